"""Every estimate with its interval, or a stated reason why there is none.

A table cell whose row has no 95% interval (a corpus-level score, an exact count of the
data, a model-free reference) would otherwise print a bare number next to numbers with
intervals. The table note says why, once per reason, with the reason the probe declares
(`Display.no_interval`, harness.display); a probe that declares none gets "the probe gives
none". Counts are not estimates and need no reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.layouts import Layout

from .labels import Names

__all__ = ["interval_note", "missing_intervals", "no_interval_sentences"]


def missing_intervals(rows: Sequence[Any], names: Names) -> dict[str, list[str]]:
    """{reason: [metric names]} for the rows (ResultRow or None) without an interval."""
    found: dict[str, list[str]] = {}
    for r in rows:
        if r is None or r.unit == "count" or (r.ci_low is not None and r.ci_high is not None):
            continue
        reason = names.no_interval(r.metric, r.probe) or "the probe gives none"
        label = names.metric(r.metric, r.probe)
        bucket = found.setdefault(reason, [])
        if label not in bucket:
            bucket.append(label)
    return found


def no_interval_sentences(found: dict[str, list[str]]) -> list[str]:
    """"No interval for A, B: reason." per reason; labels holding a comma ("S_E, BLEU-1") are
    separated by semicolons, so two of them never read as four."""
    def listed(labels: list[str]) -> str:
        return ("; " if any("," in label for label in labels) else ", ").join(labels)

    return [f"No interval for {listed(labels)}: {reason}." for reason, labels in found.items()]


def interval_note(body: Sequence[tuple[Any, ...]], names: Names, layout: Layout) -> str:
    """The note for the cells of table rows `(lead, line, values, ...)` that have no interval."""
    if layout.fmt == "count":
        return ""
    rows = [v for b in body for v in b[2]]
    parts = no_interval_sentences(missing_intervals(rows, names))
    if layout.mean_column and body:
        parts.append(f"{layout.mean_column}: the mean of the row's values, no interval.")
    return " ".join(parts)
