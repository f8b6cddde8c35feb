""""Does it use the image?": one table across models, the answer at a glance.

A row per model, a column per piece of image-reliance evidence the probes declare
("direct" and "support" roles, harness.display; "context" stays on the cards), each cell a
value with its 95% interval. When a model has several rows of one piece of evidence (the
pairs of three training conditions), the cell shows the one the evidence prefers
(`Evidence.prefer`) and says how many there are (the card lists them all).

In each column, among cells of the same quantity (probe, data, variant, metric: the same
questions), the cell with the most image use (`Evidence.more`) is the top (▲); every other
cell whose run has per-question scores for the same questions is tested against it with
the paired bootstrap (significance.py): ≈ not significantly different (p >= 0.05), ▼
significantly less (p < 0.05), each with its p-value printed in the cell. The top is bold
only when it is significantly above every other model of its group. Nothing is hover
text: the marks and a legend are on the page, in index.md and in the terminal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.display import Display
from harness.types import ResultRow

from .cards import Card, Declared, build_cards, declared_evidence, scale, verdict
from .labels import readable_spec
from .paired import ScoreIndex, compare_many
from .significance import p_short
from .tabletypes import TagIndex, field_value

__all__ = ["Cell", "RelianceTable", "reliance_table", "ALPHA", "N_BOOT", "MARKS", "legend"]

ALPHA = 0.05
#: Resamples per test (the site's tables use the same).
N_BOOT = 2000
#: Mark -> (glyph, meaning), in legend order.
MARKS = {
    "top": ("▲", "the most image use in its column (among models measured on the same questions; every model "
                 "at that value); bold when significantly above every other model"),
    "same": ("≈", "not significantly different from ▲ (paired bootstrap on the same questions, p ≥ 0.05)"),
    "less": ("▼", "significantly less image use than ▲ (p < 0.05)"),
    "more": ("△", "significantly more than ▲ on the questions both answered (their means differ on the rest)"),
    "untested": ("·", "not tested: no per-question scores to pair with ▲"),
}


@dataclass(frozen=True)
class Cell:
    """One model's value of one piece of evidence, and its test against the column's top."""

    row: ResultRow | None
    mark: str = ""
    p: float | None = None
    bold: bool = False
    #: How many rows the model has of this evidence (the cell shows one).
    of: int = 0

    def value(self) -> str:
        if self.row is None:
            return "–"
        return f"{scale(self.row) * self.row.value:.1f}"

    def interval(self) -> str:
        r = self.row
        if r is None or r.ci_low is None or r.ci_high is None:
            return "" if r is None else "no interval"
        k = scale(r)
        return f"[{k * r.ci_low:.1f}, {k * r.ci_high:.1f}]"

    def sig(self, n_boot: int = N_BOOT) -> str:
        """The visible mark: '▲', '≈ p 0.41', '▼ p < 0.0005', '·' or ''."""
        if not self.mark:
            return ""
        glyph = MARKS[self.mark][0]
        return f"{glyph} p {p_short(self.p, n_boot)}" if self.p is not None else glyph


@dataclass(frozen=True)
class RelianceTable:
    columns: tuple[Declared, ...]
    models: tuple[str, ...]
    cells: tuple[tuple[Cell, ...], ...]
    verdicts: tuple[str, ...]
    #: Per column: the data its cells were measured on when they share it, else "".
    data: tuple[str, ...]
    n_boot: int = N_BOOT
    #: Models none of whose runs holds any of the columns' evidence (named under the table).
    unmeasured: tuple[str, ...] = ()

    def marks_used(self) -> list[str]:
        return [m for m in MARKS if any(c.mark == m for row in self.cells for c in row)]


def short_verdict(card: Card) -> str:
    """'uses the image', 'no measurable use' or 'no direct test' (the card has the sentence)."""
    said = verdict(card)
    if not said:
        return "no direct test"
    return "uses the image" if said.startswith("uses") else "no measurable use"


def _chosen(declared: Declared, rows: Sequence[ResultRow], tags: TagIndex | None) -> ResultRow | None:
    """The row the table shows among a model's rows of one piece of evidence (`prefer`)."""
    pool = list(rows)
    for name, values in declared.evidence.prefer.items():
        for value in values:
            found = [r for r in pool if field_value(r, name, tags) == value]
            if found:
                pool = found
                break
    return pool[0] if pool else None


def _quantity(row: ResultRow) -> tuple[str, ...]:
    return (row.probe, row.dataset, row.split, row.variant, row.metric)


def _test_column(declared: Declared, chosen: list[ResultRow | None], index: ScoreIndex | None,
                 n_boot: int) -> list[tuple[str, float | None, bool]]:
    """(mark, p, bold) per model of one column."""
    out: list[tuple[str, float | None, bool]] = [("", None, False)] * len(chosen)
    more = declared.evidence.more
    if not more:
        return out
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, row in enumerate(chosen):
        if row is not None:
            groups.setdefault(_quantity(row), []).append(i)
    for members in groups.values():
        sign = 1.0 if more == "higher" else -1.0
        best = max(sign * chosen[i].value for i in members)  # type: ignore[union-attr]
        # Every model at the top value is ▲ (not whichever sorts first when values tie).
        tops = [i for i in members if sign * chosen[i].value == best]  # type: ignore[union-attr]
        top = tops[0]
        others = [i for i in members if i not in tops]
        results = compare_many(index, [(chosen[i], chosen[top]) for i in others], n_boot=n_boot) \
            if index is not None and others else [None] * len(others)
        all_less = bool(others)
        for i, result in zip(others, results):
            if result is None:
                out[i] = ("untested", None, False)
                all_less = False
                continue
            t = result.test
            if t.p >= ALPHA or t.diff == 0:
                out[i] = ("same", t.p, False)
                all_less = False
            elif sign * t.diff < 0:
                out[i] = ("less", t.p, False)
            else:
                out[i] = ("more", t.p, False)
                all_less = False
        for i in tops:
            out[i] = ("top", None, all_less and len(tops) == 1)
    return out


def reliance_table(rows: Sequence[ResultRow], displays: Mapping[str, Display], *, index: ScoreIndex | None = None,
                   tags: TagIndex | None = None, models: Sequence[str] | None = None,
                   n_boot: int = N_BOOT) -> RelianceTable | None:
    """The table, or None when no model has a row of any declared (non-context) evidence."""
    cards = build_cards(rows, displays, models)
    wanted = {d.key for d in declared_evidence(displays) if d.evidence.role != "context"}
    keep = [j for j, line in enumerate(cards[0].lines) if line.declared.key in wanted
            and any(c.lines[j].rows for c in cards)] if cards else []
    if not keep:
        return None
    unmeasured = tuple(c.model for c in cards if not any(c.lines[j].rows for j in keep))
    cards = [c for c in cards if c.model not in unmeasured]
    columns = tuple(cards[0].lines[j].declared for j in keep)
    chosen = [[_chosen(c.lines[j].declared, c.lines[j].rows, tags) for j in keep] for c in cards]
    tested = [_test_column(col, [chosen[m][k] for m in range(len(cards))], index, n_boot)
              for k, col in enumerate(columns)]
    cells = tuple(tuple(Cell(chosen[m][k], *tested[k][m], of=len(cards[m].lines[j].rows))
                        for k, j in enumerate(keep)) for m in range(len(cards)))
    data = []
    for k in range(len(keep)):
        found = {(r.dataset, r.split) for m in range(len(cards)) for r in [chosen[m][k]] if r is not None}
        data.append(readable_spec("/".join(found.pop())) if len(found) == 1 else "")
    return RelianceTable(columns, tuple(c.model for c in cards), cells, tuple(short_verdict(c) for c in cards),
                         tuple(data), n_boot, unmeasured)


def legend(table: RelianceTable) -> list[str]:
    """The legend lines for the marks the table uses, and what the numbers are."""
    lines = ["Values: fractions in %, accuracy drops in points; [95% interval]. A column's cells come from "
             "the probes' rows (the model's card lists all of them)."]
    lines += [f"{MARKS[m][0]} {MARKS[m][1]}" for m in table.marks_used()]
    untested = [c.evidence.header for c in table.columns if not c.evidence.more]
    if untested:
        lines.append(f"No mark in {', '.join(untested)}: neither end of it alone says the image is used (read it "
                     "beside the other columns), so no model is tested against another there.")
    if table.unmeasured:
        lines.append(f"No image-reliance evidence yet for {', '.join(table.unmeasured)}: none of their runs has a "
                     "probe that measures it (the columns' suites do).")
    if any(c.of > 1 for row in table.cells for c in row):
        lines.append("(1 of n): the model has n rows of this evidence (training conditions, data); the cell shows "
                     "the one the probe prefers, the card all of them.")
    return lines
