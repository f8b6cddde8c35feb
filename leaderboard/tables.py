"""Table layouts: the generic pivot (models x data/metric) and shared formatting."""

from __future__ import annotations

from collections.abc import Sequence

from harness.api import Table
from harness.report import format_value
from harness.types import ResultRow

__all__ = ["HIDDEN_MARKERS", "cell", "generic_tables"]

#: Breakdowns too wide for a markdown table (kept in CSV/JSON).
HIDDEN_MARKERS = ("question_type=",)


def cell(row: ResultRow | None) -> str:
    """A value with its interval in small type-friendly form, '-' when absent."""
    if row is None:
        return "-"
    return format_value(row)


def generic_tables(probe: str, rows: Sequence[ResultRow]) -> list[Table]:
    """One table per probe: rows = (model, trained on), columns = (data, variant, metric)."""
    shown = [r for r in rows if not any(m in r.metric for m in HIDDEN_MARKERS)]
    if not shown:
        return []
    columns: list[tuple[str, str, str]] = []
    for r in shown:
        key = (f"{r.dataset}/{r.split}", r.variant, r.metric)
        if key not in columns:
            columns.append(key)
    columns.sort(key=lambda c: (c[0], c[1], _metric_order(c[2])))
    datasets = {c[0] for c in columns}
    variants = {c[1] for c in columns}
    index: dict[tuple[str, str], dict[tuple[str, str, str], ResultRow]] = {}
    for r in shown:
        index.setdefault((r.model, r.train), {})[(f"{r.dataset}/{r.split}", r.variant, r.metric)] = r
    headers = ["model", "trained on"]
    for data, variant, metric in columns:
        parts = [data] if len(datasets) > 1 else []
        parts += [variant] if len(variants) > 1 and variant else []
        parts.append(metric)
        headers.append(" ".join(parts))
    body = []
    for (model, train) in sorted(index):
        cells = index[(model, train)]
        body.append((model, train or "-", *(cell(cells.get(c)) for c in columns)))
    return [Table(title=f"{probe}", headers=tuple(headers), body=tuple(body))]


def _metric_order(metric: str) -> tuple[int, str]:
    return (metric.count("/"), metric)
