"""`harness list ...` and `harness plugins`."""

from __future__ import annotations

import shutil

import click

from harness.data.check import suite_needs
from harness.host import get_host
from harness.suites import TOY_SUITE

__all__ = ["list_cmd", "plugins_cmd"]

KINDS = ("models", "datasets", "probes", "suites", "features", "publishers", "commands")


@click.command("list")
@click.argument("kind", type=click.Choice(KINDS))
def list_cmd(kind: str) -> None:
    """List registered models, datasets, probes, suites, feature extractors, publishers or
    plugin commands, with the plugin that provides each."""
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    host = get_host()
    registry = getattr(host, kind)
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
            desc = (obj.help or "").strip().splitlines()[0] if obj.help else ""
        rows.append([entry.name, extra, entry.plugin, desc])
    if kind == "suites" and TOY_SUITE not in registry:
        rows.append([TOY_SUITE, "nothing (embedded)", "(core)", "every probe that exists on the embedded toy benchmark"])
    heads = {"models": "capabilities", "datasets": "splits", "probes": "needs", "suites": "needs",
             "features": "modality", "publishers": "", "commands": ""}
    click.echo(tabulate(sorted(rows), headers=["name", heads[kind], "plugin", "description"], tablefmt="simple",
                        maxcolwidths=_widths(rows)))
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
