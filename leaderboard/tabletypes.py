"""The leaderboard's table records: a rendered `Table` and the run's row tags (`TagIndex`),
shared by the table builder (tables.py) and the modules that lay tables out or mark them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from harness.layouts import RowTags
from harness.types import ResultRow

from .labels import direction_text

__all__ = ["Table", "TagIndex", "field_value", "PLAIN_FIELDS"]

#: ResultRow attributes a layout, chart or evidence may name as a field (else "data" or a tag).
PLAIN_FIELDS = ("model", "train", "dataset", "split", "probe", "variant", "metric", "suite", "run_id", "unit")


@dataclass(frozen=True)
class Table:
    """A rendered table: title, header, body cells (already formatted), and what it shows."""

    title: str
    headers: tuple[str, ...]
    body: tuple[tuple[str, ...], ...]
    note: str = ""
    description: str = ""
    reference: str = ""
    probe: str = ""
    #: The dataset spec(s) behind the table, shown in small type under a readable title,
    #: with the fields every row shares (e.g. "trained on ...") that were folded out of it.
    spec: str = ""
    #: Per header: "↑" higher is better, "↓" lower is better, "" mixed or not a value.
    directions: tuple[str, ...] = ()
    #: Per body row: the result row behind each cell (None for labels and derived cells).
    cells: tuple[tuple[ResultRow | None, ...], ...] = ()
    #: The layout that made the table, and how many table rows `extremes` left out.
    layout_id: str = ""
    cut: int = 0
    #: Per body row and cell: a significance mark ("", "best", "same"), and its explanation.
    marks: tuple[tuple[tuple[str, str], ...], ...] = ()
    #: For display (`compact`): columns whose cells all say the same thing, headers without
    #: the parts every column shares, and the spec line saying those shared values once.
    folded: tuple[int, ...] = ()
    short_headers: tuple[str, ...] = ()
    shared: str = ""
    #: Per body row and cell: hover text of cells without a number (why a cell is "n/a").
    hints: tuple[tuple[str, ...], ...] = ()

    def compact(self) -> "Table":
        """The table as the site and the markdown show it: columns every row shares folded
        into the spec line under the title (the data form keeps every column)."""
        if not (self.folded or self.short_headers or self.shared):
            return self
        keep = [i for i in range(len(self.headers)) if i not in self.folded]

        def pick(seq: Sequence) -> tuple:
            return tuple(seq[i] for i in keep if i < len(seq))

        heads = tuple(self.short_headers[i] if i < len(self.short_headers) else self.headers[i] for i in keep)
        return replace(self, headers=heads, body=tuple(pick(r) for r in self.body),
                       directions=pick(self.directions), cells=tuple(pick(c) for c in self.cells),
                       marks=tuple(pick(m) for m in self.marks), hints=tuple(pick(h) for h in self.hints),
                       spec=self.shared or self.spec,
                       folded=(), short_headers=(), shared="")

    @property
    def explanation(self) -> str:
        """The one line under the title: what it measures and which direction is better."""
        arrows = direction_text({d for d in self.directions if d})
        text = self.description or (f"Every metric of the `{self.probe}` probe (no paper layout declared)."
                                    if self.probe else "")
        said = "higher is better" in text or "lower is better" in text
        # Value columns without a mark (their rows disagree: Color Maximal vs Minimal) are
        # not under the table's arrow: name them.
        values = [j for j in range(len(self.headers)) if any(j < len(c) and c[j] is not None for c in self.cells)]
        unmarked = [self.headers[j] for j in values if not (j < len(self.directions) and self.directions[j])]
        if arrows and unmarked:
            arrows += f"; {', '.join(unmarked)}: no single better direction"
        return " ".join(t for t in (text, f"({arrows})" if arrows and not said else "") if t)


class TagIndex:
    """Row tags of every run: (run_id, probe, dataset, split, train) -> {tag: value}."""

    def __init__(self, by_run: Mapping[str, Sequence[RowTags]] | None = None) -> None:
        self._tags: dict[tuple[str, str, str, str, str], dict[str, str]] = {}
        for run_id, tags in (by_run or {}).items():
            for t in tags:
                self._tags.setdefault((run_id, *t.key()), {}).update(t.tags)

    def get(self, row: ResultRow, name: str) -> str | None:
        found = self._tags.get((row.run_id, row.probe, row.dataset, row.split, row.train))
        return None if found is None else found.get(name)

    def tasks_with(self, run_id: str, probe: str, name: str) -> list[tuple[str, str, str, str]]:
        """(dataset, split, train, value) of each task of the run's probe tagged `name`."""
        return [(key[2], key[3], key[4], found[name]) for key, found in self._tags.items()
                if key[:2] == (run_id, probe) and name in found]


def field_value(row: ResultRow, name: str, tags: TagIndex | None) -> str:
    """A field of a row: a ResultRow attribute, "data" (dataset/split) or a row tag ('' if none)."""
    if name in PLAIN_FIELDS:
        return str(getattr(row, name))
    if name == "data":
        return f"{row.dataset}/{row.split}"
    value = tags.get(row, name) if tags is not None else None
    return value if value is not None else ""
