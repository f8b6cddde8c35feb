"""What the command line is given: `name:key=value,key=value` specs for models and datasets,
and paths (`Place`, which refuses an empty one)."""

from __future__ import annotations

import os
from typing import Any

import click

from .errors import UsageError

__all__ = ["parse_spec", "format_spec", "check_spec_names", "Place"]


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
