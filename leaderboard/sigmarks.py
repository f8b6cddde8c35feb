"""Significance marks on leaderboard tables: is a cell distinguishable from its column's best?

Within each value column of a table, cells are compared only with cells of the same
quantity (probe, dataset, split, variant, metric: Goyal Table 3 mixes answer types in one
column). The best cell of each group (by the rows' direction) is marked "best"; every other
cell whose run has per-question scores for the same questions is tested against it with the
paired bootstrap (significance.py) and marked "same" when p >= alpha, "differs" otherwise,
with the difference, its interval and p in the mark's explanation. Cells without
per-question scores get no mark (nothing is claimed about them), nor do cells whose row has
no better direction (`higher_is_better` None: model-free rows, counts, chance levels,
accuracies under an ablated input, degenerate values; docs/leaderboard.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from harness.types import ResultRow

from .paired import ScoreIndex, compare_many
from .tables import Table

__all__ = ["mark_tables", "mark_table", "ALPHA", "N_BOOT"]

ALPHA = 0.05
#: Resamples per comparison on the site (harness compare uses 10,000).
N_BOOT = 2000


def _diff(row: ResultRow, diff: float, low: float, high: float) -> str:
    if row.unit in ("fraction", "score"):
        return f"{100 * diff:+.2f} [{100 * low:+.2f}, {100 * high:+.2f}] points"
    return f"{diff:+.4f} [{low:+.4f}, {high:+.4f}]"


def mark_table(table: Table, index: ScoreIndex, *, alpha: float = ALPHA, n_boot: int = N_BOOT) -> Table:
    """`table` with `marks` filled (unchanged when no column has two comparable cells)."""
    if not table.cells:
        return table
    width = len(table.headers)
    marks = [[("", "")] * width for _ in table.body]
    # Every (cell, best of its group) to test, then one batched test.
    todo: list[tuple[int, int, ResultRow, ResultRow]] = []
    bests: list[tuple[int, int, ResultRow]] = []
    for j in range(width):
        groups: dict[tuple[str, ...], list[tuple[int, ResultRow]]] = {}
        for i, cells in enumerate(table.cells):
            cell = cells[j] if j < len(cells) else None
            if cell is not None:
                key = (cell.probe, cell.dataset, cell.split, cell.variant, cell.metric)
                groups.setdefault(key, []).append((i, cell))
        for found in groups.values():
            # Rows without a direction (model-free, counts, chance, ablated inputs, degenerate
            # values) are neither best nor compared with it.
            members = [(i, c) for i, c in found if c.higher_is_better is not None]
            if len({c.model for _, c in members}) < 2 or len({c.higher_is_better for _, c in members}) != 1:
                continue
            hib = members[0][1].higher_is_better
            best_i, best = max(members, key=lambda m: m[1].value if hib else -m[1].value)
            bests.append((best_i, j, best))
            todo += [(i, j, cell, best) for i, cell in members
                     if not (i == best_i or cell.value == best.value and cell.model == best.model)]
    results = compare_many(index, [(cell, best) for _, _, cell, best in todo], n_boot=n_boot)
    tested: set[tuple[int, int]] = set()
    for (i, j, cell, best), result in zip(todo, results):
        if result is None:
            continue
        t = result.test
        why = f"vs the best ({best.model}): {_diff(cell, t.diff, t.low, t.high)}, p = {t.p:.3g}, n = {t.n} paired items"
        marks[i][j] = ("same" if t.p >= alpha else "differs", why)
        tested.add((id(best), j))
    found = False
    for best_i, j, best in bests:
        if (id(best), j) in tested:
            marks[best_i][j] = ("best", "best in its column; ≈ marks cells not significantly different")
            found = True
    if not found:
        return table
    return replace(table, marks=tuple(tuple(m) for m in marks))


def mark_tables(tables: Mapping[str, Sequence[Table]], index: ScoreIndex) -> dict[str, list[Table]]:
    """Every table of every suite, marked."""
    return {suite: [mark_table(t, index) for t in found] for suite, found in tables.items()}
