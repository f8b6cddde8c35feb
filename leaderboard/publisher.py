"""The leaderboard publisher: run folders -> markdown, CSV, JSON and the static site.

    collect (runs.py)  ->  tables (tables.py, pure)  ->  files (this module, site.py)

Reads only run folders: each run's `results.jsonl`, `manifest.json` and `tables.json`
(layouts and row tags written by the run), so a leaderboard built on any machine, with or
without the plugins installed, lays out the same tables. Output is deterministic: the same
runs give byte-identical files (no timestamps, stable ordering, charts redrawn only when
their rows change). By default each quantity (model, suite, probe, data, split, training
data) shows the rows of its newest complete run (runchoice.py); `latest_only=False` shows
every run's.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from pathlib import Path

from harness.api import Publisher
from harness.errors import DataError
from harness.report import md_cell, md_code
from harness.types import ResultRow

from .failures import failed_by_model, mark_failed_rows, runs_table
from .files import remove_public, staged, write_public
from .paired import ScoreIndex
from .reliance import RelianceTable, reliance_table
from .reliancerender import reliance_markdown
from .runs import Collected, collect
from .site import write_site
from .summary import terminal_summary
from .tables import Table, TagIndex, build_tables, render_markdown

__all__ = ["LeaderboardPublisher", "build_leaderboard", "tables_of"]


def tables_of(inputs: Iterable[Path], *, latest_only: bool = True) -> dict[str, list[Table]]:
    """suite -> tables of the runs under `inputs`, as the leaderboard lays them out."""
    found = collect(inputs, latest_only=latest_only)
    return build_tables(found.rows, found.layouts, TagIndex(found.tags), found.displays)


def build_leaderboard(inputs: Iterable[Path], out: Path, *, latest_only: bool = True,
                      progress: Callable[[str], None] | None = None,
                      keep: Callable[[Collected, RelianceTable | None], None] | None = None) -> list[Path]:
    """Write index.md, <suite>.md, results.csv, results.json, problems.txt and the static
    site (index.html, models/*.html, charts/*.svg, run-reports/*.html, full/*.html) under
    `out`; `progress` hears about skipped rows, `keep` gets what was read and the reliance
    table (for the terminal summary). The files change together when the build ends
    (`files.staged`): a build that fails part-way leaves the site as it was."""
    with staged():
        return _build(inputs, out, latest_only=latest_only, progress=progress, keep=keep)


def _build(inputs: Iterable[Path], out: Path, *, latest_only: bool, progress: Callable[[str], None] | None,
           keep: Callable[[Collected, RelianceTable | None], None] | None) -> list[Path]:
    out = Path(out)
    inputs = [Path(p) for p in inputs]
    found = collect(inputs, latest_only=latest_only)
    if not found.rows and found.problems:  # every run unreadable: an empty page would replace what was built
        raise DataError(f"no result row could be read ({len(found.problems)} problem(s), e.g. {found.problems[0]}); "
                        f"nothing published, {out} left as it was")
    rows = sorted(found.rows, key=lambda r: (r.suite, r.probe, r.model, r.train, r.dataset, r.split, r.variant,
                                             r.metric, r.run_id))
    shown = {r.run_id for r in rows}
    scores = ScoreIndex([i for i in found.runs if i.run_id in shown])
    for r in rows:  # per-question scores that are not their row's mean are a problem, said like a bad row
        scores.get(r)
    problems = found.problems + scores.problems
    if problems and progress is not None:
        progress(f"{len(problems)} result row(s) or file(s) skipped, e.g. {problems[0]} (all in {out / 'problems.txt'})")
    for note in found.notes if progress is not None else ():
        progress(f"runs of a model: {note}")
    tag_index = TagIndex(found.tags)
    tables = build_tables(rows, found.layouts, tag_index, found.displays)
    failed = failed_by_model(found.runs, rows)
    tables = {suite: [mark_failed_rows(t, failed.get(suite, {})) for t in ts] for suite, ts in tables.items()}
    reliance = reliance_table(rows, found.displays, index=scores, tags=tag_index, models=sorted({r.model for r in rows}))
    written: list[Path] = []
    # The answer first: "Does it use the image?" opens index.md, as it opens index.html.
    index = ["# vqa-harness leaderboard\n"]
    if reliance is not None:
        index.append("\n" + reliance_markdown(reliance))
    index.append("\nIn the tables: fractions are shown as percentages; brackets hold 95% intervals.\n")
    if not rows:  # runs that wrote no row (failed, stopped) are named in the notes below
        index.append("\nNo result rows yet: the runs below wrote none.\n" if found.notes
                     else "\nNo runs found yet: run `harness run --model M --suite S` first.\n")
    for suite, suite_tables in tables.items():
        body = "\n".join(render_markdown(t) for t in suite_tables)
        path = out / f"{suite}.md"
        write_public(path, f"# Suite {md_code(suite)}\n\n{body}")
        written.append(path)
        index.append(f"\n## Suite {md_code(suite)}\n\n{body}")
    if rows:
        index.append("\n## Runs\n\n" + render_markdown(runs_table(found.runs, rows)))
    index += ["\nRuns of a model combined, passed over or without rows:\n\n"] + [f"- {md_cell(n)}\n" for n in found.notes] \
        if found.notes else []
    if problems:
        index.append(f"\n{len(problems)} result row(s) were skipped; see problems.txt.\n")
    write_public(out / "index.md", "".join(index))
    written.append(out / "index.md")
    for stale in sorted(out.glob("*.md")):  # a suite no longer in the runs: its old page goes
        if stale not in written and stale.read_text(encoding="utf-8", errors="replace").startswith("# Suite `"):
            remove_public(stale)
    written += _write_data(rows, problems, out)
    written += write_site(rows, problems, tables, found.runs, out, [str(p) for p in inputs], found.layouts, tag_index,
                          found.displays, reliance=reliance, notes=found.notes, index=scores)
    if keep is not None:
        keep(found, reliance)
    return written


def _write_data(rows: Sequence[ResultRow], problems: Sequence[str], out: Path) -> list[Path]:
    header = [f.name for f in fields(ResultRow)]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow(r.to_json())
    write_public(out / "results.csv", buf.getvalue())
    write_public(out / "results.json", json.dumps([r.to_json() for r in rows], indent=1, sort_keys=True) + "\n")
    write_public(out / "problems.txt", "".join(p + "\n" for p in problems))
    return [out / "results.csv", out / "results.json", out / "problems.txt"]


class LeaderboardPublisher(Publisher):
    """The built-in leaderboard (docs/leaderboard.md)."""

    name = "leaderboard"
    description = "markdown, CSV, JSON tables and a static HTML site with charts"

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self._closing = ""

    def publish(self, inputs: Sequence[Path], out: Path, *, latest_only: bool = True,
                progress: Callable[[str], None] | None = None) -> list[Path]:
        def keep(found: Collected, reliance: RelianceTable | None) -> None:
            self._closing = terminal_summary(found, reliance, Path(out))

        return build_leaderboard(inputs, out, latest_only=latest_only, progress=progress, keep=keep)

    def summary(self) -> str:
        """The reliance table (else the headline rows of the latest runs) and the path of index.html."""
        return self._closing
