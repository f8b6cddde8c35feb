"""Rows of one model that a table or a chart would put in one cell.

A layout (or a chart) names the fields that key its cells. Rows of one model that differ in a
field it does not name (a test-split copy of a val row, a second training set) would land in
one cell, and whichever was read last would win there, silently, while another view picked
the other one (rows of equal numbers merge harmlessly and are left alone). `separating_field` finds the first field of SEPARATING that tells such rows
apart, so the table gets a row field for it (tables.py) and the chart a panel field
(charts.py): every row is shown, each in its own place. Rows that still share a cell (they
differ in none of these fields) are counted by `still_colliding`, for the table's note.
Pure functions: rows in, field names out.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import replace

from harness.layouts import Layout
from harness.types import ResultRow

from .tabletypes import TagIndex, field_value

__all__ = ["SEPARATING", "separating_field", "still_colliding", "covered", "cell_of", "separate_layout"]

#: Fields that tell apart two rows of one model in one cell, in the order they are added.
SEPARATING = ("split", "train", "dataset")


def covered(fields: Iterable[str]) -> set[str]:
    """The row attributes the named fields fix ("data" is dataset and split)."""
    names = set(fields)
    return names | ({"dataset", "split"} if "data" in names else set())


def cell_of(fields: Sequence[str], tags: TagIndex | None = None) -> Callable[[ResultRow], tuple[str, ...]]:
    """A row -> its values of `fields` (its cell in a view keyed by them; "" fields skipped)."""
    return lambda r: tuple(field_value(r, f, tags) for f in fields if f)


def _groups(rows: Sequence[ResultRow], key: Callable[[ResultRow], Hashable]) -> list[list[ResultRow]]:
    """Rows of one model in one cell that disagree (equal numbers, such as the decoy generation
    counts every decoy task repeats, merge harmlessly)."""
    groups: dict[Hashable, list[ResultRow]] = {}
    for r in rows:  # rows of different models in one cell are a view's choice (a model-free audit)
        groups.setdefault((r.model, key(r)), []).append(r)
    return [g for g in groups.values() if len({(r.value, r.ci_low, r.ci_high, r.n) for r in g}) > 1]


def separating_field(rows: Sequence[ResultRow], key: Callable[[ResultRow], Hashable], used: Iterable[str],
                     tags: TagIndex | None = None) -> str | None:
    """The first field of SEPARATING, not among `used`, whose value differs between rows that
    `key` (a row -> its cell) puts in one cell; None when no such rows exist."""
    groups = _groups(rows, key)
    fixed = covered(used)
    for name in SEPARATING:
        if name not in fixed and any(len({field_value(r, name, tags) for r in g}) > 1 for g in groups):
            return name
    return None


def still_colliding(rows: Sequence[ResultRow], key: Callable[[ResultRow], Hashable]) -> list[str]:
    """The models with two rows of different values in one cell (the last read is shown)."""
    return sorted({g[0].model for g in _groups(rows, key)})


def separate_layout(layout: Layout, rows: Sequence[ResultRow], tags: TagIndex | None = None
                    ) -> tuple[Layout, tuple[str, ...]]:
    """`layout` with a row field (at the end of `rows`) for each field that tells apart rows of
    one model (`rows`: the models' rows, not the model-free ones) it would put in one cell, and
    the fields added."""
    added: list[str] = []
    while True:
        fields = (*layout.split_by, *layout.rows, *layout.columns)
        name = separating_field(rows, cell_of(fields, tags), fields, tags)
        if name is None:
            return layout, tuple(added)
        layout = replace(layout, rows=(*layout.rows, name))
        added.append(name)
