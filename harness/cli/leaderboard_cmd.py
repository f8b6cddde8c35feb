"""`harness leaderboard build`."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["leaderboard"]


@click.group()
def leaderboard() -> None:
    """Leaderboard tables (markdown, CSV, JSON) and the static site from run directories."""


@leaderboard.command("build")
@click.argument("runs", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("leaderboard"), show_default=True)
@click.option("--all-runs", is_flag=True, help="Keep every run, not only the latest per (model, suite).")
def build(runs: tuple[Path, ...], out: Path, all_runs: bool) -> None:
    """Build tables, charts and index.html from RUNS (run folders or folders of runs; default: runs/)."""
    from vqa_harness_leaderboard import build_leaderboard

    written = build_leaderboard(list(runs) or [Path("runs")], out, latest_only=not all_runs)
    for path in written:
        click.echo(str(path))
