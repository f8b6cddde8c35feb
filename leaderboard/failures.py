"""Failed examples beside the numbers: a run whose model raised on some examples (scored as
wrong, `manifest.json` `stats.example_errors`) is marked on every table row it produced.

Pure functions over what `runs.collect` read; `publish` and `site` show the result. A table
row belongs to a model when one of its cells names the model (any case), the same rule
the site's model filter uses.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from harness.types import ResultRow

from .runs import RunInfo
from .tables import Table

__all__ = ["FAILED_HEADER", "example_errors", "failed_by_model", "mark_failed_rows", "runs_table", "skip_reasons"]

#: Header of the column added to a table whose rows include a run with failed examples.
FAILED_HEADER = "failed examples"


def example_errors(info: RunInfo) -> int:
    """The run's failed-example count from its manifest (0 when absent or malformed)."""
    stats = info.manifest.get("stats")
    value = stats.get("example_errors") if isinstance(stats, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def failed_by_model(runs: Iterable[RunInfo], rows: Sequence[ResultRow]) -> dict[str, dict[str, int]]:
    """suite -> {model: failed examples} over the runs whose rows are shown."""
    shown = {(r.run_id, r.suite, r.model) for r in rows}
    counts = {info.run_id: example_errors(info) for info in runs}
    out: dict[str, dict[str, int]] = {}
    for run_id, suite, model in sorted(shown):
        n = counts.get(run_id, 0)
        if n:
            bucket = out.setdefault(suite, {})
            bucket[model] = bucket.get(model, 0) + n
    return out


def runs_table(runs: Iterable[RunInfo], rows: Sequence[ResultRow]) -> Table:
    """The runs behind the shown rows, with their status and failed-example counts."""
    shown = {r.run_id for r in rows}
    body = tuple((info.run_id, str(info.manifest.get("model", "-")), str(info.manifest.get("suite", "-")),
                  str(info.manifest.get("status", "-")), str(example_errors(info)))
                 for info in sorted(runs, key=lambda i: i.run_id) if info.run_id in shown)
    return Table("Runs behind these tables", ("run", "model", "suite", "status", FAILED_HEADER), body,
                 note="failed examples: examples on which the model raised an error (scored as wrong); "
                      "the run report names them.")


def mark_failed_rows(table: Table, failed: Mapping[str, int]) -> Table:
    """`table` with a trailing 'failed examples' column when a row's model had failures
    (the count on that row, blank elsewhere); unchanged when none did."""
    lowered = {m.lower(): n for m, n in failed.items()}
    counts = [next((lowered[c.lower()] for c in row if c.lower() in lowered), 0) for row in table.body]
    if not any(counts):
        return table
    body = tuple((*row, str(n) if n else "") for row, n in zip(table.body, counts))
    note = "failed examples: examples on which the model raised an error in that run (scored as wrong; see the run report)."
    return replace(table, headers=(*table.headers, FAILED_HEADER), body=body,
                   note=f"{table.note} {note}".strip())


_SKIP = re.compile(r"^- (?P<task>.+?): `(?P<probe>[^`]+)` — (?P<reason>.+)$")


def skip_reasons(infos: Iterable[RunInfo]) -> dict[str, str]:
    """probe -> why the runs skipped it (report.md "Probes skipped": the capability the model
    lacks), for the cards' "not measured" lines."""
    out: dict[str, str] = {}
    for info in infos:
        part = re.split(r"(?m)^## ", info.report_md)
        body = next((p for p in part if p.startswith("Probes skipped")), "")
        for line in body.splitlines():
            m = _SKIP.match(line.strip())
            if m:
                reason = html.unescape(m.group("reason"))
                out.setdefault(m.group("probe"), f"probe {m.group('probe')} skipped: {reason}")
    return out
