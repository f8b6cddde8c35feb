""""Does it use the image?": one table across models, the answer at a glance.

A row per model, a column per piece of image-reliance evidence the probes declare
("direct" and "support" roles, harness.display; "context" stays on the cards), each cell a
value with its 95% interval. When a model has several rows of one piece of evidence (the
pairs of three training conditions, a second split), the cell shows the one the evidence
prefers (`Evidence.prefer`) measured like the rest of the column, and says how many there
are (the card lists them all).

A column compares like with like: its condition is the quantity (probe, data and split,
training data, variant, metric) most of its models have; the header says it ("Measured
on"). A model without a row of that condition shows the row it has, named in the cell
("train U, not compared"), untested. Among the cells of the condition, the one with the
most image use (`Evidence.more`) is the top (▲), chosen among rows over comparable numbers
of questions (paired.rankable); every other cell whose run has per-question scores for the
same questions is tested against it with the paired bootstrap (significance.py): ≈ not
significantly different (p >= 0.05), ▼ significantly less (p < 0.05), each with its p-value
printed in the cell; · not tested when there are no per-question scores, or too few
questions in common (paired.pairing_problem, the count printed). The top is bold only when
it is significantly above every other model of its group. Nothing is hover text: the marks
and a legend are on the page, in index.md and in the terminal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.display import Display
from harness.types import ResultRow

from .cards import (
    Card,
    Declared,
    build_cards,
    context,
    declared_evidence,
    scale,
    value_label,
    verdict,
)
from .paired import MIN_PAIRED, ScoreIndex, compare_many, rankable
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
    "untested": ("·", "not tested: no per-question scores to pair with ▲ (or none that match their row: problems.txt)"),
    "few": ("·", f"k paired (k of n paired): not tested, only k questions in common with ▲: fewer than {MIN_PAIRED}, "
                 "where no test can reach p < 0.05, or fewer than half of either model's n, whose means then "
                 "cover different questions"),
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
    #: "few": how many questions it shares with ▲ ("1 paired", "900 of 2476 paired").
    paired: str = ""
    #: What sets the row apart from the column's condition ("train U"); '' when it is of it.
    apart: str = ""

    def value(self) -> str:
        if self.row is None:
            return "-"
        return f"{scale(self.row) * self.row.value:.1f}"

    def interval(self) -> str:
        r = self.row
        if r is None or r.ci_low is None or r.ci_high is None:
            return "" if r is None else "no interval"
        k = scale(r)
        return f"[{k * r.ci_low:.1f}, {k * r.ci_high:.1f}]"

    def sig(self, n_boot: int = N_BOOT) -> str:
        """The visible mark: '▲', '≈ p 0.41', '▼ p < 0.0005', '·', '· 1 paired' or ''."""
        if not self.mark:
            return ""
        glyph = MARKS[self.mark][0]
        if self.paired:
            return f"{glyph} {self.paired}"
        return f"{glyph} p {p_short(self.p, n_boot)}" if self.p is not None else glyph


@dataclass(frozen=True)
class RelianceTable:
    columns: tuple[Declared, ...]
    models: tuple[str, ...]
    cells: tuple[tuple[Cell, ...], ...]
    verdicts: tuple[str, ...]
    #: Per column: the data and training data of its condition (every cell not named otherwise).
    data: tuple[str, ...]
    n_boot: int = N_BOOT
    #: Models none of whose runs holds any of the columns' evidence (named under the table).
    unmeasured: tuple[str, ...] = ()

    def marks_used(self) -> list[str]:
        return [m for m in MARKS if any(c.mark == m for row in self.cells for c in row)]


def short_verdict(card: Card) -> str:
    """'uses the image', 'no measurable use', 'too few questions to tell: n = 1' or 'no direct
    test' (the card has the sentence)."""
    said = verdict(card)
    if not said:
        return "no direct test"
    if said.startswith("too few"):
        return said.split(" (")[0]
    return "uses the image" if said.startswith("uses") else "no measurable use"


def _pool(declared: Declared, rows: Sequence[ResultRow], tags: TagIndex | None) -> list[ResultRow]:
    """The rows the table may show among a model's rows of one piece of evidence (`prefer`)."""
    pool = list(rows)
    for name, values in declared.evidence.prefer.items():
        for value in values:
            found = [r for r in pool if field_value(r, name, tags) == value]
            if found:
                pool = found
                break
    return pool


def _quantity(row: ResultRow) -> tuple[str, ...]:
    """What a cell measures: on which questions, after which training."""
    return (row.probe, row.dataset, row.split, row.train, row.variant, row.metric)


def _condition(pools: Sequence[Sequence[ResultRow]]) -> tuple[str, ...] | None:
    """The column's condition: the quantity most models have a row of (the first on a tie)."""
    counts: dict[tuple[str, ...], int] = {}
    for pool in pools:
        for key in dict.fromkeys(_quantity(r) for r in pool):
            counts[key] = counts.get(key, 0) + 1
    return max(counts, key=lambda k: counts[k]) if counts else None


def _apart(declared: Declared, row: ResultRow, like: ResultRow, tags: TagIndex | None) -> str:
    """What sets `row` apart from `like` (the column's condition): the fields the evidence
    names in `context` ("train U"), else data, training data, variant, metric."""
    ev = declared.evidence
    for fields in (dict(ev.context), {"data": "{}", "train": "trained on {}", "variant": "{}", "metric": "{}"}):
        parts = [template.format(value_label(ev, name, field_value(row, name, tags)) or "-")
                 for name, template in fields.items() if field_value(row, name, tags) != field_value(like, name, tags)]
        if parts:
            return ", ".join(parts)
    return "another condition"


#: (mark, p, bold, paired) of one cell.
Mark = tuple[str, float | None, bool, str]


def _test_column(declared: Declared, chosen: list[ResultRow | None], index: ScoreIndex | None,
                 n_boot: int) -> list[Mark]:
    """(mark, p, bold, paired) per model of one column whose cells are all of its condition
    (the caller leaves the others out)."""
    out: list[Mark] = [("", None, False, "")] * len(chosen)
    more = declared.evidence.more
    members = [i for i, row in enumerate(chosen) if row is not None]
    if not more or not members:
        return out
    sign = 1.0 if more == "higher" else -1.0
    rows = [chosen[i] for i in members]
    # ▲ only among means over comparable numbers of questions (not 1 question vs 2,476).
    rivals = [i for i, ok in zip(members, rankable(rows)) if ok]  # type: ignore[arg-type]
    if not rivals:
        return [("few", None, False, f"n = {r.n}") if r is not None else o for r, o in zip(chosen, out)]
    best = max(sign * chosen[i].value for i in rivals)  # type: ignore[union-attr]
    # Every model at the top value is ▲ (not whichever sorts first when values tie).
    tops = [i for i in rivals if sign * chosen[i].value == best]  # type: ignore[union-attr]
    top = tops[0]
    others = [i for i in members if i not in tops]
    results = compare_many(index, [(chosen[i], chosen[top]) for i in others], n_boot=n_boot) \
        if index is not None and others else [None] * len(others)
    all_less = bool(others)
    for i, result in zip(others, results):
        if result is None:
            out[i] = ("untested", None, False, "")
            all_less = False
            continue
        t = result.test
        if result.problem:  # too few questions in common: no verdict either way
            most = max(result.n_a, result.n_b)
            out[i] = ("few", None, False, f"{t.n} paired" if t.n == most else f"{t.n} of {most} paired")
            all_less = False
        elif t.p >= ALPHA or t.diff == 0:
            out[i] = ("same", t.p, False, "")
            all_less = False
        elif sign * t.diff < 0:
            out[i] = ("less", t.p, False, "")
        else:
            out[i] = ("more", t.p, False, "")
            all_less = False
    for i in tops:
        out[i] = ("top", None, all_less and len(tops) == 1, "")
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
    grid: list[list[Cell]] = [[] for _ in cards]
    data = []
    for k, j in enumerate(keep):
        col = columns[k]
        pools = [_pool(col, c.lines[j].rows, tags) for c in cards]
        condition = _condition(pools)
        # Each model's row of the column's condition, else the (preferred) row it has, named.
        chosen = [next((r for r in pool if _quantity(r) == condition), pool[0] if pool else None) for pool in pools]
        like = next(r for r in chosen if r is not None and _quantity(r) == condition)
        same = [r if r is not None and _quantity(r) == condition else None for r in chosen]
        tested = _test_column(col, same, index, n_boot)
        for m, (row, marked) in enumerate(zip(chosen, tested)):
            apart = _apart(col, row, like, tags) if row is not None and same[m] is None else ""
            grid[m].append(Cell(row, *marked[:3], of=len(cards[m].lines[j].rows), paired=marked[3], apart=apart))
        data.append(context(like))
    cells = tuple(tuple(row) for row in grid)
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
                     "the one the probe prefers, measured like the rest of its column, the card all of them.")
    if any(c.apart for row in table.cells for c in row):
        lines.append("(train U, not compared): the model has no row measured like the rest of its column (the data "
                     "and training data each column's header names); the cell shows the one it has, named, and "
                     "it is not tested against the others.")
    return lines
