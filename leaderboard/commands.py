"""Commands of the leaderboard plugin: `harness report RUN` and `harness compare RUN_A RUN_B`.

Imports happen inside the commands, so `harness --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import click

from harness.errors import DataError
from harness.fileio import atomic_write_text
from harness.folders import check_output_folder, check_outside_runs
from harness.rundir import RunDir
from harness.specs import Place

from .compare import check_probes, compare_runs, comparisons_json, render_comparisons
from .runreport import render_run_markdown, write_run_report
from .runs import load_run
from .texttable import terminal_width

__all__ = ["report", "compare"]

#: Most bootstrap resamples `compare` takes (10**30 hung; each metric keeps one float per resample).
MAX_BOOT = 1_000_000


@click.command()
@click.argument("run", type=Place(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=Place(file_okay=False, path_type=Path), default=None,
              help="Folder for report.html and report_full.md (default: the run folder).")
@click.option("--stdout", "to_stdout", is_flag=True, help="Also print the markdown report.")
@click.option("--evidence", "evidence", multiple=True, type=Place(exists=True, path_type=Path),
              help="Run folders (or folders of runs) whose runs of the same model fill the image-reliance "
                   "card (default: the folder holding RUN).")
def report(run: Path, out: Path | None, to_stdout: bool, evidence: tuple[Path, ...]) -> None:
    """Render RUN (a runs/<run-id> folder): the image-reliance card of its model, headline
    numbers, paper-style tables, example pairs and local explanations from its artifacts,
    skipped probes, failures with plugin names, and the manifest (versions, seed, resources)."""

    if out is not None:  # one line, before anything is read or written; RUN's own folder is the default
        check_output_folder(out, "--out", own_run=run)
    elif (writer := RunDir(run).writer()) is not None:  # one writer per run folder: a snapshot would stay stale
        raise DataError(f"run {run} is still being written (process {writer or '?'}); report it once that run "
                        "has ended, or pass --out DIR for a snapshot outside the run folder")
    sources = list(evidence) or [Path(run).resolve().parent]
    written = write_run_report(run, out, evidence=sources)
    if to_stdout:
        click.echo(render_run_markdown(load_run(run), evidence=sources), nl=False)
    for path in written:
        click.echo(str(path), err=to_stdout)


@click.command()
@click.argument("run_a", type=Place(exists=True, file_okay=False, path_type=Path))
@click.argument("run_b", type=Place(exists=True, file_okay=False, path_type=Path))
@click.option("--probe", "probes", multiple=True, help="Only this probe's metrics (repeatable).")
@click.option("--n-boot", default=10_000, show_default=True, type=click.IntRange(min=100, max=MAX_BOOT),
              help="Bootstrap resamples.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1),
              help="Seed of the bootstrap resamples.")
@click.option("--json", "json_out", type=Place(dir_okay=False, path_type=Path), default=None,
              help="Also write the comparisons as JSON to this file.")
@click.option("--wide", is_flag=True, help="One flat table with every column and the metric ids (for scripts), "
                                          "instead of tables that fit the terminal.")
def compare(run_a: Path, run_b: Path, probes: tuple[str, ...], n_boot: int, seed: int, json_out: Path | None,
            wide: bool) -> None:
    """Test whether the models of RUN_A and RUN_B (two runs/<run-id> folders) differ on the same
    questions: per metric, the difference A - B, its paired-bootstrap 95% interval and p-value,
    and the exact McNemar p-value for per-question correctness (docs/compare.md)."""

    if json_out is not None:  # one line before the work; never into a run folder (its results.jsonl ...)
        check_outside_runs(json_out, (run_a, run_b), "--json")
    a, b = load_run(run_a), load_run(run_b)
    for which, info in (("A", a), ("B", b)):
        writer = RunDir(info.path).writer()
        if writer is not None:  # its rows and per-question files are still changing
            raise DataError(f"run {which} ({info.path}) is still being written (process {writer or '?'}); compare "
                            "it once that run has ended")
        results = info.path / "results.jsonl"
        if info.problems and not info.rows and results.is_file():  # none could be read: say why, not "no metric in both"
            more = len(info.problems) - 1
            raise DataError(info.problems[0] + (f" (and {more} more problem(s))" if more else ""))
        if not info.rows:  # nothing to compare in it: say so, not "no metric in both"
            raise DataError(f"run {which} ({info.path}) has no result rows: {results} is "
                            f"{'empty' if results.is_file() else 'missing'}")
    check_probes(a, b, probes)
    found, notes = compare_runs(a, b, seed=seed, n_boot=n_boot, probes=probes)
    for which, info in (("B", b), ("A", a)):
        status = info.manifest.get("status", "complete")
        if status != "complete":  # a run that ended early has only some of its suite's rows
            notes.insert(0, f"run {which} did not complete (status {status}): only the metrics it computed "
                            "are compared")
    for which, info in (("B", b), ("A", a)):
        if info.problems:  # rows it could not read are not compared
            notes.insert(0, f"run {which}: {len(info.problems)} problem(s) reading it, e.g. {info.problems[0]}")
    if Path(run_a).resolve() == Path(run_b).resolve():  # a slip on the command line, most likely
        notes.insert(0, f"RUN_A and RUN_B are the same run folder ({run_a}): every difference is 0 by construction")
    for note in notes:
        click.echo(f"note: {note}", err=True)
    if not found:
        raise DataError(f"no metric has per-question scores in both {run_a} and {run_b} "
                        "(artifacts/<probe>/per_example/*.json; see docs/compare.md)")
    click.echo(render_comparisons(a, b, found, width=terminal_width(), wide=wide, n_boot=n_boot), nl=False)
    if json_out is not None:
        atomic_write_text(json_out, comparisons_json(a, b, found, seed=seed, n_boot=n_boot))
