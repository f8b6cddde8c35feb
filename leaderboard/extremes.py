"""Shortened tables (a layout's `extremes` = k): per model, the k highest and the k lowest rows
by their first value, each labelled with its rank, in one stable order.

The global rules of the counterfactual probe list dozens of concepts per model; the index
shows, for every model, its k most and k least robust concepts (docs/leaderboard.md). Rows
are ranked by value (highest first), ties by more items (n), then by their label, so two
models' tables list their rows in the same way. A row without a better direction (a
degenerate value, harness.display `Degenerate`) is never ranked: its model is named in the
table's note instead. The full lists are on the site's full pages and in results.csv.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["keep_extremes", "RANK_HEADER"]

#: The rank column's header unless the layout names it (`names["rank"]`).
RANK_HEADER = "rank (1 = highest)"


def keep_extremes(body: Sequence[tuple[Any, ...]], k: int, by: int = 1
                  ) -> tuple[list[tuple[tuple[Any, ...], str]], int, list[str]]:
    """(kept (row, rank label) pairs, rows left out, models not ranked) for table rows
    `(lead, line, values, sources, hints)` whose first `by` lead cells name the model (and
    its run, when a table shows several runs of one model)."""
    groups: dict[str, list[tuple[Any, ...]]] = {}
    for b in body:
        groups.setdefault(" ".join(str(x) for x in b[0][:by]), []).append(b)
    kept: list[tuple[tuple[Any, ...], str]] = []
    cut = 0
    unranked: list[str] = []
    for model, members in groups.items():
        scored = [b for b in members if b[2] and b[2][0] is not None and b[2][0].higher_is_better is not None]
        if not scored:
            unranked.append(model)
            cut += len(members)
            continue
        scored.sort(key=lambda b: (-b[2][0].value, -b[2][0].n, tuple(str(x) for x in b[0])))
        n = len(scored)
        chosen = list(range(n)) if n <= 2 * k else [*range(k), *range(n - k, n)]
        cut += len(members) - len(chosen)
        kept += [(scored[i], f"{i + 1} of {n}") for i in chosen]
    return kept, cut, unranked
