"""Significance marks on leaderboard tables: is a cell distinguishable from its column's best,
and from the row above it?

Within each value column of a table, cells are ranked only among cells of the same
quantity and training data (probe, dataset, split, training data, variant, metric: Goyal
Table 3 mixes answer types in one column, the pairs table training conditions). The group's
best cell (by the rows' direction) is chosen among rows over comparable numbers of
questions (paired.rankable: a mean over one question is no rival to one over 2,476). Every
other cell of a group whose run has per-question scores for the same questions is tested
against it with the paired bootstrap (significance.py) and marked "same" when p >= alpha,
"differs" otherwise, with the difference, its interval and p in the mark's explanation; on
too few common questions (paired.pairing_problem) it is "untested", and the hover says why.
The best is marked "best" (bold) only when every other cell of its group was tested and is
significantly worse: bold is a test's verdict, never merely the largest number (two
identical rankers, or a column with one model, have no bold cell). Cells without
per-question scores get no mark (nothing is claimed about them), nor do cells whose row has
no better direction (`higher_is_better` None: model-free rows, counts, chance levels,
accuracies under an ablated input, degenerate values; docs/leaderboard.md).

Each cell is also tested against the cell of the same quantity in the row above it (another
model or training set: the same test questions), whatever the direction: the difference,
its 95% interval and p go into the cell's hover text only, so the cell itself stays a number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from harness.types import ResultRow

from .paired import Comparison, ScoreIndex, compare_many, rankable
from .significance import p_text
from .tables import Table

__all__ = ["mark_tables", "mark_table", "ALPHA", "N_BOOT", "ABOVE_NOTE"]

ALPHA = 0.05
#: Resamples per comparison on the site (harness compare uses 10,000).
N_BOOT = 2000
#: The table note when cells carry the test against the row above.
ABOVE_NOTE = ("Hover a value for its paired test against the value above it (same questions; the hover text "
              "names that model): the difference, its 95% interval and p.")


def _diff(row: ResultRow, diff: float, low: float, high: float) -> str:
    if row.unit in ("fraction", "score"):
        return f"{100 * diff:+.2f} [{100 * low:+.2f}, {100 * high:+.2f}] points"
    return f"{diff:+.4f} [{low:+.4f}, {high:+.4f}]"


def _quantity(row: ResultRow) -> tuple[str, ...]:
    """What a cell measures on which questions (the row above may differ in training data)."""
    return (row.probe, row.dataset, row.split, row.variant, row.metric)


def _key(row: ResultRow) -> tuple[str, ...]:
    """A ranking group: the same quantity and training data (a model trained on other data
    is not ranked against it)."""
    return (*_quantity(row), row.train)


def _who(row: ResultRow, other: ResultRow) -> str:
    """The model of `other`, with its training data when that is what differs from `row`."""
    return other.model if other.model != row.model else f"{other.model}, trained on {other.train or '-'}"


def _best_pairs(table: Table, width: int) -> tuple[list[tuple[int, int, ResultRow, ResultRow]],
                                                    list[tuple[int, int, ResultRow]]]:
    """Every (cell, best of its group) to test, and the bests."""
    todo: list[tuple[int, int, ResultRow, ResultRow]] = []
    bests: list[tuple[int, int, ResultRow]] = []
    for j in range(width):
        groups: dict[tuple[str, ...], list[tuple[int, ResultRow]]] = {}
        for i, cells in enumerate(table.cells):
            cell = cells[j] if j < len(cells) else None
            if cell is not None:
                groups.setdefault(_key(cell), []).append((i, cell))
        for found in groups.values():
            # Rows without a direction (model-free, counts, chance, ablated inputs, degenerate
            # values) are neither best nor compared with it.
            members = [(i, c) for i, c in found if c.higher_is_better is not None]
            if len({c.model for _, c in members}) < 2 or len({c.higher_is_better for _, c in members}) != 1:
                continue
            hib = members[0][1].higher_is_better
            rivals = [m for m, ok in zip(members, rankable([c for _, c in members])) if ok]
            if not rivals:
                continue
            best_i, best = max(rivals, key=lambda m: m[1].value if hib else -m[1].value)
            bests.append((best_i, j, best))
            todo += [(i, j, cell, best) for i, cell in members
                     if not (i == best_i or cell.value == best.value and cell.model == best.model)]
    return todo, bests


def _above_pairs(table: Table, width: int) -> list[tuple[int, int, ResultRow, ResultRow]]:
    """Every (cell, the cell above it) of the same quantity from another model or training set."""
    out = []
    for j in range(width):
        for i in range(1, len(table.cells)):
            row, up = table.cells[i], table.cells[i - 1]
            cell = row[j] if j < len(row) else None
            prev = up[j] if j < len(up) else None
            if cell is not None and prev is not None and _quantity(cell) == _quantity(prev) and \
                    (cell.model, cell.train, cell.run_id) != (prev.model, prev.train, prev.run_id):
                out.append((i, j, cell, prev))
    return out


def _said(result: Comparison, versus: str, n_boot: int) -> str:
    t = result.test
    if result.problem:
        return f"{versus}: not tested, {result.problem}"
    of = f" (of {result.n_a} and {result.n_b})" if t.n < max(result.n_a, result.n_b) else ""
    return f"{versus}: {_diff(result.a, t.diff, t.low, t.high)}, p {p_text(t.p, n_boot)}, n = {t.n} paired items{of}"


def mark_table(table: Table, index: ScoreIndex, *, alpha: float = ALPHA, n_boot: int = N_BOOT) -> Table:
    """`table` with `marks` filled (unchanged when no cell has a comparable cell)."""
    if not table.cells:
        return table
    width = len(table.headers)
    marks = [[("", "")] * width for _ in table.body]
    todo, bests = _best_pairs(table, width)
    above = _above_pairs(table, width)
    # One batched test: comparisons over the same number of questions share their resamples.
    results = compare_many(index, [(c, other) for _, _, c, other in todo + above], n_boot=n_boot)
    tested: set[tuple[int, int]] = set()
    # The best is bold only when a test says so: every other cell of its group was tested
    # and is significantly worse. Otherwise no cell is bold (identical rankers, one model).
    beaten: dict[tuple[int, int], bool] = {}
    for (i, j, cell, best), result in zip(todo, results):
        key = (id(best), j)
        if result is None:
            beaten[key] = False
            continue
        said = _said(result, f"vs the best ({_who(cell, best)})", n_boot)
        tested.add(key)
        if result.problem:  # too few common questions: no verdict either way
            beaten[key] = False
            marks[i][j] = ("untested", said)
            continue
        worse = result.test.p < alpha and (result.test.diff < 0) == bool(best.higher_is_better)
        beaten[key] = beaten.get(key, True) and worse
        marks[i][j] = ("same" if result.test.p >= alpha else "differs", said)
    for best_i, j, best in bests:
        if (id(best), j) in tested and beaten.get((id(best), j)):
            marks[best_i][j] = ("best", "best in its column, significantly better than every other model (paired "
                                        "bootstrap, p < 0.05)")
    found_above = False
    for (i, j, cell, prev), result in zip(above, results[len(todo):]):
        if result is None:
            continue
        kind, why = marks[i][j]
        above_said = _said(result, f"vs the row above ({_who(cell, prev)})", n_boot)
        marks[i][j] = (kind, "; ".join(w for w in (why, above_said) if w))
        found_above = True
    if not tested and not found_above:
        return table
    note = " ".join(t for t in (table.note, ABOVE_NOTE if found_above else "") if t)
    return replace(table, marks=tuple(tuple(m) for m in marks), note=note)


def mark_tables(tables: Mapping[str, Sequence[Table]], index: ScoreIndex) -> dict[str, list[Table]]:
    """Every table of every suite, marked."""
    return {suite: [mark_table(t, index) for t in found] for suite, found in tables.items()}
