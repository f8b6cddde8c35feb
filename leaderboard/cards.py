"""The image-reliance card: one screen per model with the evidence that it uses the image.

The card is a view of result rows and of what the probes declare (`Display.evidence`,
harness.display, read from the run folders): which rows of which probe answer which
question, how to read them, which suites measure them. The leaderboard names no probe or
metric itself, so a third-party probe's evidence gets its card line like a built-in one.
For each model it gathers, across suites and runs, every matching row with its interval and
the run it came from; evidence no run of the model has is listed as not measured (with the
suites that would measure it), never filled in. Each row has its own label: the evidence
name, and when the model has several rows of it, what tells them apart (the fields the
evidence names in `context`, else the variant, the training data, the data). Only "direct"
evidence (the image removed or swapped) enters the verdict line; "context" evidence (e.g. a
question perturbation) is shown, never read as image evidence. A row over fewer than
MIN_PAIRED questions (paired.py) enters no verdict: its interval says nothing ([100, 100] over
one question), so a model with only such rows gets "too few questions to tell".
Pure: rows in, `Card` records out (site.py, reliance.py and runreport.py render them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from harness.display import Display, Evidence
from harness.report import md_cell, md_code
from harness.types import ResultRow

from .labels import Names, readable_spec
from .paired import MIN_PAIRED, enough_items
from .tabletypes import TagIndex, field_value

__all__ = ["Declared", "CardLine", "Card", "declared_evidence", "build_cards", "card_markdown", "verdict",
           "row_label", "value_text", "value_label", "context", "significant"]


@dataclass(frozen=True)
class Declared:
    """A piece of evidence and the probe that declares it."""

    probe: str
    evidence: Evidence

    @property
    def key(self) -> str:
        return f"{self.probe}/{self.evidence.id}"


@dataclass(frozen=True)
class CardLine:
    """One piece of evidence of one model: the rows found (empty: not measured)."""

    declared: Declared
    rows: tuple[ResultRow, ...]

    @property
    def evidence(self) -> Evidence:
        return self.declared.evidence


@dataclass(frozen=True)
class Card:
    model: str
    lines: tuple[CardLine, ...]

    @property
    def measured(self) -> int:
        return sum(1 for line in self.lines if line.rows)


def declared_evidence(displays: Mapping[str, Display]) -> list[Declared]:
    """Every probe's evidence, in display order (`Evidence.order`, then probe and id)."""
    found = [Declared(probe, ev) for probe, d in displays.items() for ev in d.evidence]
    return sorted(found, key=lambda d: (d.evidence.order, d.probe, d.evidence.id))


def matching(declared: Declared, rows: Sequence[ResultRow]) -> tuple[ResultRow, ...]:
    """The rows of one model that are this evidence (the first metric present wins)."""
    ev = declared.evidence
    mine = [r for r in rows if r.probe == declared.probe and ev.variant_ok(r.variant) and r.metric in ev.metrics]
    for metric in ev.metrics:
        found = [r for r in mine if r.metric == metric]
        if found:  # the newest run first among equal rows (`--all-runs`), as the tables list runs
            newest = sorted(found, key=lambda r: r.run_id, reverse=True)
            return tuple(sorted(newest, key=lambda r: (r.suite, r.dataset, r.split, r.train, r.variant)))
    return ()


def build_cards(rows: Iterable[ResultRow], displays: Mapping[str, Display], models: Sequence[str] | None = None
                ) -> list[Card]:
    """One card per model (all models of `rows`, or `models` in that order)."""
    by_model: dict[str, list[ResultRow]] = {}
    for r in rows:
        by_model.setdefault(r.model, []).append(r)
    names = list(models) if models is not None else sorted(by_model)
    evidence = declared_evidence(displays)
    return [Card(m, tuple(CardLine(d, matching(d, by_model.get(m, []))) for d in evidence)) for m in names]


def scale(row: ResultRow) -> float:
    """Fractions and [0, 1] scores are printed x100 (%, points, score x100)."""
    return 100.0 if row.unit in ("fraction", "score") else 1.0


def value_text(row: ResultRow, names: Names | None = None) -> tuple[str, str]:
    """(value, interval) as the card prints them: fractions in % (drops in points), scores x100;
    a row without an interval says why (the probe's reason)."""
    k = scale(row)
    value = f"{k * row.value:.1f}"
    if row.ci_low is None or row.ci_high is None:
        why = names.no_interval(row.metric, row.probe) if names is not None else ""
        return value, f"no interval: {why}" if why else "no interval (the probe gives none)"
    return value, f"[{k * row.ci_low:.1f}, {k * row.ci_high:.1f}]"


def context(row: ResultRow) -> str:
    """Where a row was measured: data and training data, shortly."""
    text = readable_spec(f"{row.dataset}/{row.split}")
    return text + (f" · trained on {readable_spec(row.train)}" if row.train else "")


def significant(evidence: Evidence, row: ResultRow) -> bool:
    """Whether the row's 95% interval excludes 0 on the side that says "uses the image"."""
    if row.ci_low is None or row.ci_high is None:
        return False
    return row.ci_low > 0 if evidence.more == "higher" else row.ci_high < 0 if evidence.more == "lower" else False


def verdict(card: Card) -> str:
    """One line from the direct evidence (the image removed or swapped), or '' without it;
    support and context evidence never enter it, nor rows over too few questions to tell."""
    direct = [line for line in card.lines if line.evidence.direct and line.rows]
    if not direct:
        return ""
    # The same minimum as a paired test: an interval over 1 to 5 questions ([100, 100] over one)
    # cannot tell use from chance, so it gives no verdict either way.
    enough = [(line.evidence, kept) for line in direct if (kept := [r for r in line.rows if enough_items(r.n)])]
    if not enough:
        most = max(r.n for line in direct for r in line.rows)
        return f"too few questions to tell: n = {most} (fewer than {MIN_PAIRED})"
    said = [ev.header for ev, rows in enough if any(significant(ev, r) for r in rows)]
    if said:
        return f"uses the image: {' and '.join(said)} significantly above 0 (95% interval)"
    tested = " / ".join(ev.header for ev, _ in enough)
    return f"no measurable use of the image: {tested} not significantly above 0"


def value_label(evidence: Evidence, name: str, value: str) -> str:
    """A field's value as the evidence names it (`labels`), else readable."""
    found = (evidence.labels.get(name) or {}).get(value)
    if found is not None:
        return found
    if name == "variant" and evidence.variant.endswith("*"):
        return value[len(evidence.variant) - 1:].replace("_", " ")
    return readable_spec(value) if name in ("train", "dataset", "data") else value


def row_label(evidence: Evidence, row: ResultRow, rows: Sequence[ResultRow], tags: TagIndex | None = None) -> str:
    """The evidence name, and when `rows` (the model's rows of it) hold several, what sets
    `row` apart: "Complementary pairs answered differently (train B_half)"."""
    if len(rows) < 2:
        return evidence.label
    parts = []
    # The fields the evidence names (tags such as Goyal's train condition), else the defaults
    # (when those tags are absent, e.g. a run written before them).
    for fields in (dict(evidence.context), {"variant": "{}", "train": "trained on {}", "data": "{}"}):
        for name, template in fields.items():
            if len({field_value(r, name, tags) for r in rows}) > 1:
                value = field_value(row, name, tags)
                parts.append(template.format(value_label(evidence, name, value) if value else "-"))
        if parts:
            break
    if not parts and len({r.suite for r in rows}) > 1:
        parts.append(f"suite {row.suite}")
    if not parts and len({r.run_id for r in rows}) > 1:
        parts.append(f"run {row.run_id}")
    if not parts:
        return evidence.label
    said = ", ".join(parts)
    return f"{evidence.label[:-1]}; {said})" if evidence.label.endswith(")") else f"{evidence.label} ({said})"


def card_markdown(card: Card, names: Names | None = None, tags: TagIndex | None = None,
                  skipped: Mapping[str, str] | None = None) -> str:
    """The card as a markdown section (for `harness report`); `skipped`: probe -> why the run
    skipped it (said on its evidence's "not measured" line)."""
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    body = []
    for line in card.lines:
        if not line.rows:
            why = (skipped or {}).get(line.declared.probe) or \
                f"no row in this model's runs ({line.evidence.suites or 'its probe: ' + line.declared.probe})"
            body.append([line.evidence.label, "not measured", "", why, ""])
            continue
        for r in line.rows:
            value, ci = value_text(r, names)
            body.append([row_label(line.evidence, r, line.rows, tags), value, ci, context(r), r.run_id])
    head = f"## Image reliance: {md_code(card.model)}\n\n"
    said = verdict(card)
    if said:
        head += f"**{said}.**\n\n"
    head += ("Each line: a measurement of this model that tells whether it uses the image (values in %, "
             "drops in points, scores x100; 95% intervals).\n\n")
    if not body:
        return head + "No probe of these runs declares image-reliance evidence.\n"
    body = [[md_cell(c) for c in row] for row in body]  # dataset names, run ids: user text
    return head + tabulate(body, headers=["evidence", "value", "95% CI", "measured on", "run"], tablefmt="github",
                           disable_numparse=True) + "\n"
