"""Shortened tables (a layout's `extremes` = k): per model, the k highest and the k lowest rows
by their first value, each labelled with its rank, in one stable order.

The global rules of the counterfactual probe list dozens of concepts per model; the index
shows, for every model, its k most and k least robust concepts (docs/leaderboard.md). Rows
are ranked by value (highest first), ties by more items (n), then by their label, so two
models' tables list their rows in the same way. A row without a better direction is never
ranked: its model is named in the table's note instead, with the reason where the run gave
one (a dataset that does not meet the probe's assumption, assumptions.py), else "no better
direction" (a degenerate value, harness.display `Degenerate`). The full lists are on the
site's full pages and in results.csv.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.types import ResultRow

from .assumptions import unmet_reason
from .tabletypes import TagIndex

__all__ = ["keep_extremes", "unranked_note", "RANK_HEADER"]

#: The rank column's header unless the layout names it (`names["rank"]`).
RANK_HEADER = "rank (1 = highest)"


def keep_extremes(body: Sequence[tuple[Any, ...]], k: int, by: int = 1
                  ) -> tuple[list[tuple[tuple[Any, ...], str]], int, dict[str, list[ResultRow]]]:
    """(kept (row, rank label) pairs, rows left out, models not ranked -> their rows) for
    table rows `(lead, line, values, sources, hints)` whose first `by` lead cells name the
    model (and its run, when a table shows several runs of one model)."""
    groups: dict[str, list[tuple[Any, ...]]] = {}
    for b in body:
        groups.setdefault(" ".join(str(x) for x in b[0][:by]), []).append(b)
    kept: list[tuple[tuple[Any, ...], str]] = []
    cut = 0
    unranked: dict[str, list[ResultRow]] = {}
    for model, members in groups.items():
        scored = [b for b in members if b[2] and b[2][0] is not None and b[2][0].higher_is_better is not None]
        if not scored:
            unranked[model] = [v for b in members for v in b[2] if v is not None]
            cut += len(members)
            continue
        scored.sort(key=lambda b: (-b[2][0].value, -b[2][0].n, tuple(str(x) for x in b[0])))
        n = len(scored)
        chosen = list(range(n)) if n <= 2 * k else [*range(k), *range(n - k, n)]
        cut += len(members) - len(chosen)
        kept += [(scored[i], f"{i + 1} of {n}") for i in chosen]
    return kept, cut, unranked


def unranked_note(unranked: Mapping[str, Sequence[ResultRow]], tags: TagIndex) -> str:
    """The table note naming the models `keep_extremes` did not rank, and why: the run's reason
    when the dataset does not meet the probe's assumption, else "no better direction"."""
    by_reason: dict[str, list[str]] = {}
    for model, rows in unranked.items():
        reasons = dict.fromkeys(found for r in rows for found in [unmet_reason(r, tags)] if found)
        by_reason.setdefault("; ".join(reasons), []).append(model)
    parts = []
    for reason, models in by_reason.items():
        if reason:
            parts.append(f"Not ranked ({', '.join(models)}): {reason}; their rows are kept without a better "
                         "direction, every row is in the full table and results.csv.")
        else:
            parts.append(f"Not ranked (no better direction, see docs/leaderboard.md): {', '.join(models)}.")
    return " ".join(parts)
