"""What the command line is given: `name:key=value,key=value` specs for models and datasets,
and paths (`Place`, which refuses an empty one); a dataset spec as people read it
(`readable_spec`, shared by report.md and the leaderboard)."""

from __future__ import annotations

import os
import re
from typing import Any

import click

from .errors import UsageError

__all__ = ["parse_spec", "format_spec", "check_spec_names", "Place", "readable_spec", "looks_like_spec"]


class Place(click.Path):
    """`click.Path` for every path option and argument of the `harness` commands, the plugins'
    included: an empty path (`--out "$OUT"` with OUT unset) is a usage error naming the option,
    where click.Path reads it as the current folder (runs, leaderboards and resources were
    written there). A leading `~` means the home folder, as the folder checks read it, also
    where the shell leaves it (`--out=~/runs`)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail(f"empty path {value!r} (an unset shell variable?); give '.' for the current folder",
                      param, ctx)
        return super().convert(os.path.expanduser(value) if isinstance(value, str) else value, param, ctx)


def check_spec_names(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """click callback for a spec option (`--model`, `--dataset`): a spec without a name (`''`,
    an unset shell variable; `:epochs=1`) is a usage error naming the option."""
    for spec in value if isinstance(value, tuple) else (value,):
        if spec is not None and not spec.partition(":")[0].strip():
            raise click.BadParameter(f"empty name in {spec!r} (a spec is NAME or NAME:key=value)")
    return value


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """'cnn-lstm:epochs=5,hidden=256' -> ('cnn-lstm', {'epochs': '5', 'hidden': '256'}). Values
    may contain ':' or '/' (paths); a value with a comma must be quoted with single quotes:
    path='a,b'."""
    name, sep, rest = spec.partition(":")
    name = name.strip()
    if not name:
        raise UsageError(f"empty name in spec {spec!r}")
    options: dict[str, str] = {}
    if not sep or not rest.strip():
        return name, options
    for item in _split_items(rest):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"bad option {item!r} in {spec!r}; expected key=value")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == "'":
            value = value[1:-1]
        if key.strip() in options:  # which one was meant? (a dict would keep the last silently)
            raise UsageError(f"option {key.strip()!r} given twice in {spec!r}")
        options[key.strip()] = value
    return name, options


def _split_items(text: str) -> list[str]:
    items, cur, quoted = [], [], False
    for ch in text:
        if ch == "'":
            quoted = not quoted
        if ch == "," and not quoted:
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    items.append("".join(cur))
    return [i.strip() for i in items if i.strip()]


def format_spec(name: str, options: dict[str, object]) -> str:
    """Canonical spec text (sorted keys) used in run ids and result rows."""
    if not options:
        return name
    return name + ":" + ",".join(f"{k}={options[k]}" for k in sorted(options))


def looks_like_spec(text: str) -> bool:
    """Whether `text` is a dataset spec ('toyvqa:variant=balanced/val', 'vqa2/val')."""
    return bool(re.match(r"^[A-Za-z0-9_.-]+(:[^/\s]+=[^/\s]*)?(/[A-Za-z0-9_-]+)?$", text or "")) and \
        (":" in text or "/" in text)


def readable_spec(spec: str) -> str:
    """'toyvqa:variant=balanced,images=40/val' -> 'toyvqa (balanced, images=40), val'.

    The `variant` option shows its value alone; other options stay `key=value`; a
    trailing split is kept after a comma. Anything that is not a spec is returned as is.
    """
    if not looks_like_spec(spec):
        return spec
    data, split = spec, ""
    if "/" in spec:
        head, tail = spec.rsplit("/", 1)
        if re.fullmatch(r"[a-z0-9-]+", tail):  # a split name (val, test-dev, val-fit)
            data, split = head, tail
    name, _, options = data.partition(":")
    shown = []
    for item in filter(None, options.split(",")):
        key, _, value = item.partition("=")
        shown.append(value if key in ("variant", "decoys") else item)
    text = name + (f" ({', '.join(shown)})" if shown else "")
    return text + (f", {split}" if split else "")
