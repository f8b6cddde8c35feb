"""`harness leaderboard build`: hand run folders to the registered publishers."""

from __future__ import annotations

from pathlib import Path

import click

from harness.host import get_host
from harness.paths import DEFAULT_LEADERBOARD, DEFAULT_RUNS
from harness.specs import Place

from .publish import publish

__all__ = ["leaderboard"]


@click.group()
def leaderboard() -> None:
    """Leaderboard tables (markdown, CSV, JSON) and the static site from run directories."""


@leaderboard.command("build")
@click.argument("runs", nargs=-1, type=Place(exists=True, path_type=Path))
@click.option("--out", type=Place(file_okay=False, path_type=Path), default=DEFAULT_LEADERBOARD,
              show_default=True, help="Folder for the leaderboard (never inside a source package).")
@click.option("--all-runs", is_flag=True,
              help="Keep every run, not only the newest complete one per model, suite, probe and task.")
def build(runs: tuple[Path, ...], out: Path, all_runs: bool) -> None:
    """Build tables, charts and index.html from RUNS (run folders or folders of runs;
    default: results/runs/). No run folder among them is an error (exit 3), not an empty
    leaderboard."""

    written = publish(get_host(), list(runs) or [DEFAULT_RUNS], out, latest_only=not all_runs,
                      progress=lambda text: click.echo(f"warning: {text}", err=True), require_runs=True)
    for path in written:
        click.echo(str(path))
