"""`harness list ...` and `harness plugins`; what each suite reads (`suite_needs`)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Sequence

import click

from harness.api import Suite
from harness.data.origin import file_distribution
from harness.data.session import Session
from harness.errors import HarnessError
from harness.host import PluginHost, get_host
from harness.suites import TOY_SUITE

__all__ = ["list_cmd", "plugins_cmd", "suite_needs"]

KINDS = ("models", "datasets", "probes", "suites", "features", "publishers", "commands")


@click.command("list")
@click.argument("kind", type=click.Choice(KINDS))
def list_cmd(kind: str) -> None:
    """List registered models, datasets, probes, suites, feature extractors, publishers or
    plugin commands, with the plugin that provides each."""
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    host = get_host()
    registry = getattr(host, kind)
    heads = {"models": "capabilities", "datasets": "splits", "probes": "needs", "suites": "needs",
             "features": "modality", "publishers": "", "commands": ""}
    rows = []
    for entry in registry:
        obj = entry.obj
        desc = getattr(obj, "description", "")
        extra = ""
        if kind == "models":
            extra = ", ".join(sorted(obj.capabilities()))
        elif kind == "datasets":
            extra = ", ".join(obj.splits)
        elif kind == "probes":
            extra = "(model-free)" if obj.model_free else (", ".join(obj.requires or obj.requires_any) or "(any model)")
        elif kind == "suites":
            extra = suite_needs(obj, host)
        elif kind == "features":
            extra = obj.modality
        elif kind == "commands":
            # The help's first paragraph, whole: its first source line stops mid-sentence.
            desc = " ".join((obj.help or "").strip().split("\n\n")[0].split())
        rows.append([entry.name, extra, entry.plugin, desc])
    if kind == "suites" and TOY_SUITE not in registry:
        rows.append([TOY_SUITE, "nothing (embedded)", "(core)", "every probe that exists on the embedded toy benchmark"])
    headers, widths, rows = ["name", heads[kind], "plugin", "description"], _widths(rows), sorted(rows)
    if not heads[kind]:  # publishers and commands have no second column: print none (not a nameless one)
        keep = (0, 2, 3)
        headers, widths = [headers[i] for i in keep], [widths[i] for i in keep]
        rows = [[row[i] for i in keep] for row in rows]
    click.echo(tabulate(rows, headers=headers, tablefmt="simple", maxcolwidths=widths))
    _warn(host)


def _widths(rows: list[list[str]]) -> list[int | None]:
    """Column widths that fit the terminal: the name and plugin columns as they are, the
    needs / description columns wrapped into what is left (a suite's needs run to 200 characters)."""
    width = shutil.get_terminal_size((100, 24)).columns
    fixed = max((len(r[0]) for r in rows), default=4) + max((len(r[2]) for r in rows), default=6) + 8
    rest = max(40, width - fixed)
    extra = min(max((len(r[1]) for r in rows), default=1), max(16, rest // 3))
    return [None, max(1, extra), None, max(20, rest - extra)]


@click.command("plugins")
def plugins_cmd() -> None:
    """Show loaded plugins, their distributions, what each registered, and failures."""
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    host = get_host()
    provided: dict[str, list[str]] = {}
    for kind in KINDS:
        for entry in getattr(host, kind):
            provided.setdefault(entry.plugin, []).append(f"{getattr(host, kind).kind} {entry.name}")
    rows = [[p.name, p.distribution, "; ".join(provided.get(p.name, [])) or "(nothing)"] for p in host.loaded]
    click.echo(tabulate(rows, headers=["plugin", "distribution", "provides"], tablefmt="simple"))
    _warn(host)


def _warn(host) -> None:
    for failure in host.failures:
        click.echo(f"warning: {failure}", err=True)


#: Stands for the user's --data-dir when `suite_needs` asks the datasets for their paths.
_DATA_DIR = Path("/<data-dir>")


def _tops(paths: Sequence[Path], *, folders: bool = False) -> list[str]:
    """The first component under --data-dir of each path ("vqa2/", or a top-level file
    name unless `folders`); a path outside it (an absolute option) as it is; files an
    installed distribution ships (a data package) are not listed: `_shipped` names them."""
    out = []
    for path in paths:
        try:
            parts = Path(path).relative_to(_DATA_DIR).parts
        except ValueError:
            if not file_distribution(path):
                out.append(str(path))
            continue
        if parts:
            out.append(parts[0] + ("/" if folders or len(parts) > 1 else ""))
    return list(dict.fromkeys(out))


def _shipped(paths: Sequence[Path]) -> list[str]:
    """The distributions ("easy-vqa 1.0") that ship some of `paths` (outside --data-dir)."""
    found = []
    for path in paths:
        try:
            Path(path).relative_to(_DATA_DIR)
        except ValueError:
            found.append(file_distribution(path))
    return sorted({d for d in found if d})


def suite_needs(suite: Suite, host: PluginHost) -> str:
    """What a suite reads under --data-dir, short (the `needs` column of `harness list
    suites`): "nothing (embedded)", or the top-level folders/files of its tasks' files
    (train sources included) and, apart, the image folders image models read."""
    if suite.toy:
        return "nothing (embedded)"
    session = Session(host, data_dir=_DATA_DIR)
    files: list[Path] = []
    images: list[Path] = []
    try:
        for task in suite.tasks:
            plugin = session.dataset(task.dataset)
            files += plugin.expected_files(task.split)
            source = task.train_source(plugin.splits)
            if source is not None:
                files += session.dataset(source[0]).expected_files(source[1])
            images += plugin.image_folders()
    except HarnessError as exc:
        return f"unknown ({exc})"
    except Exception as exc:  # a plugin bug must not take `harness list suites` down
        return f"unknown (plugin error: {type(exc).__name__})"
    tops = _tops(files)
    shipped = _shipped(files + images)
    packaged = f"files shipped with {', '.join(shipped)}" if shipped else ""
    if not tops:
        return f"nothing ({packaged})" if packaged else "nothing (embedded)"
    extra = [t for t in _tops(images, folders=True) if t not in tops]
    anyof = "any of " if suite.partial and len(tops) > 1 else ""
    return (f"--data-dir: {anyof}{', '.join(tops)}"
            + (f" (+ {', '.join(extra)} images for image models)" if extra else "")
            + (f" (+ {packaged})" if packaged else ""))
