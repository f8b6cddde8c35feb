"""`harness report RUN`: one run as markdown and HTML."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["report"]


@click.command()
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for report.html and report_full.md (default: the run folder).")
@click.option("--stdout", "to_stdout", is_flag=True, help="Also print the markdown report.")
def report(run: Path, out: Path | None, to_stdout: bool) -> None:
    """Render RUN (a runs/<run-id> folder): headline numbers, paper-style tables, example
    pairs and local explanations from its artifacts, failures with plugin names, and the
    manifest (versions, seed, resources used)."""
    from .runreport import render_run_markdown, write_run_report
    from .runs import load_run

    written = write_run_report(run, out)
    if to_stdout:
        click.echo(render_run_markdown(load_run(run)), nl=False)
    for path in written:
        click.echo(str(path), err=to_stdout)
