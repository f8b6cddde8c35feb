"""The image-reliance card: one screen per model with the evidence that it uses the image.

The card is a view of result rows (nothing else): `EVIDENCE` below, as data, says which
rows of which probe answer which question. For each model it gathers, across suites and
runs, every matching row with its interval and the run it came from; evidence no run of the
model has is listed as not measured (with the suite that would measure it), never filled in.
Each row has its own label: the evidence name, and when the model has several rows of it,
what tells them apart (the training condition, the perturbation's color set, the data).
Only the image ablations are a direct test of image use (`Evidence.direct`): the verdict
line reads them alone. Color Maximal perturbs the question, not the image: it tells whether
the model reads the question's color word, and is shown as context, never as image evidence.
Pure: rows in, `Card` records out (site.py and runreport.py render them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.report import md_cell, md_code
from harness.types import ResultRow

from .charts import condition
from .labels import readable_spec

__all__ = ["Evidence", "EVIDENCE", "CardLine", "Card", "build_cards", "card_markdown", "verdict", "row_label"]


@dataclass(frozen=True)
class Evidence:
    """Which rows answer one question about image use, and how to read them."""

    id: str
    label: str
    #: The probe and metric names (the first metric present wins), and the variant
    #: (exact, or a prefix ending in "*").
    probe: str
    metrics: tuple[str, ...]
    variant: str
    #: How to read the number (one line) and where it comes from.
    reading: str
    source: str
    #: The suite(s) that measure it, named when the evidence is absent.
    suites: str
    docs: str
    #: A direct test of image use (the image removed or swapped): the verdict reads these only.
    direct: bool = False


EVIDENCE: tuple[Evidence, ...] = (
    Evidence("ablation-blank", "Accuracy drop, gray image", "image-ablation",
             ("vqa_accuracy_drop", "label_accuracy_drop"), "blank",
             "points lost when the image is replaced by gray; > 0: the answers need the image",
             "image-ablation probe", "toy (image-ablation-toy), real VQA suites", "image-ablation.md#rows", True),
    Evidence("ablation-swap", "Accuracy drop, another question's image", "image-ablation",
             ("vqa_accuracy_drop", "label_accuracy_drop"), "swap",
             "points lost with the image of another question of the same type; > 0: the answers follow the image",
             "image-ablation probe", "toy (image-ablation-toy), real VQA suites", "image-ablation.md#rows", True),
    Evidence("ablation-swap-change", "Answers changed, another question's image", "image-ablation",
             ("answer_change_rate",), "swap",
             "share of answers that change when the image is swapped; 0: the image is ignored",
             "image-ablation probe", "toy (image-ablation-toy), real VQA suites", "image-ablation.md#rows"),
    Evidence("pairs-different", "Complementary pairs answered differently", "pairs", ("pair/different",), "",
             "same question, two images with different answers: share answered differently; higher = "
             "the image is used", "Goyal et al. 2017, §4", "balanced-vqa", "balanced-vqa.md#probes-and-metrics"),
    Evidence("decoys-with", "IoU+QoU accuracy with the image", "decoys", ("mc_accuracy",), "iou+qou",
             "multiple choice where neither the question nor the image alone suffices; compare with the "
             "next line", "Chao et al. 2018, Table 3", "decoys", "decoys.md#probes-and-suite"),
    Evidence("decoys-without", "IoU+QoU accuracy without the image", "decoys", ("mc_accuracy/QA",), "iou+qou",
             "the same model with the image blanked; far below the line above = the image is used",
             "Chao et al. 2018, Table 3 (generic ablation)", "decoys", "decoys.md#probes-and-suite"),
    Evidence("color-max", "Answers changed by Color Maximal (question perturbation)", "counterfactual",
             ("answer_change_rate",), "color_max_*",
             "context, not image evidence: the color word in the QUESTION is replaced by the most distant color "
             "(the image is unchanged); a share above 0 says the model reads that word, which a question-only "
             "model does too", "Stoikou et al. 2023, Table 2", "counterfactual",
             "counterfactual.md#metrics-result-rows-variant--kind-id"),
    Evidence("nle-se", "S_E of explanations", "nle", ("s_e/e_vil_score", "s_e/e_vil_score_no_spice"), "",
             "automatic explanation score over correctly answered examples (x100, higher is better)",
             "Kayser et al. 2021, Table 3", "e-vil-toy, e-vil", "e-vil.md#scores"),
)


@dataclass(frozen=True)
class CardLine:
    """One piece of evidence of one model: the rows found (empty: not measured)."""

    evidence: Evidence
    rows: tuple[ResultRow, ...]


@dataclass(frozen=True)
class Card:
    model: str
    lines: tuple[CardLine, ...]

    @property
    def measured(self) -> int:
        return sum(1 for line in self.lines if line.rows)


def _variant_ok(ev: Evidence, variant: str) -> bool:
    if ev.variant.endswith("*"):
        return variant.startswith(ev.variant[:-1])
    return variant == ev.variant


def _matching(ev: Evidence, rows: Sequence[ResultRow]) -> tuple[ResultRow, ...]:
    mine = [r for r in rows if r.probe == ev.probe and _variant_ok(ev, r.variant) and r.metric in ev.metrics]
    for metric in ev.metrics:  # the first metric present wins
        found = [r for r in mine if r.metric == metric]
        if found:
            return tuple(sorted(found, key=lambda r: (r.suite, r.dataset, r.split, r.train, r.variant, r.run_id)))
    return ()


def build_cards(rows: Iterable[ResultRow], models: Sequence[str] | None = None) -> list[Card]:
    """One card per model (all models of `rows`, or `models` in that order)."""
    by_model: dict[str, list[ResultRow]] = {}
    for r in rows:
        by_model.setdefault(r.model, []).append(r)
    names = list(models) if models is not None else sorted(by_model)
    return [Card(m, tuple(CardLine(ev, _matching(ev, by_model.get(m, []))) for ev in EVIDENCE)) for m in names]


def value_text(row: ResultRow) -> tuple[str, str]:
    """(value, interval) as the card prints them: fractions in % (drops in points), scores x100."""
    scale = 100.0 if row.unit in ("fraction", "score") else 1.0
    value = f"{scale * row.value:.1f}"
    if row.ci_low is None or row.ci_high is None:
        return value, "no interval (corpus-level score)" if row.unit == "score" else "no interval"
    return value, f"[{scale * row.ci_low:.1f}, {scale * row.ci_high:.1f}]"


def context(row: ResultRow) -> str:
    """Where a row was measured: data, variant and training data, shortly."""
    parts = [readable_spec(f"{row.dataset}/{row.split}")]
    if row.variant and not row.variant.startswith(("blank", "swap", "iou+qou")) and row.probe != "pairs":
        parts.append(row.variant)
    text = "; ".join(parts)
    return text + (f" · trained on {readable_spec(row.train)}" if row.train else "")


def verdict(card: Card) -> str:
    """One line from the image ablations (the only direct test: `Evidence.direct`), or ''
    without them; question perturbations and the other evidence never enter it."""
    drops = [r for line in card.lines if line.evidence.direct for r in line.rows]
    if not drops:
        return ""
    if any(r.ci_low is not None and r.ci_low > 0 for r in drops):
        return "uses the image: accuracy falls significantly without it"
    return "no measurable use of the image: removing or swapping it does not lower accuracy"


def _condition(train: str) -> str:
    """A training set as a Goyal condition ('U', 'B', 'B_half') where it is one, else shortly."""
    found = {"unbalanced": "U", "balanced": "B", "balanced half": "B_half"}.get(condition(train))
    return f"train {found}" if found else f"trained on {readable_spec(train)}"


def row_label(evidence: Evidence, row: ResultRow, rows: Sequence[ResultRow]) -> str:
    """The evidence name, and when `rows` (the model's rows of it) hold several, what sets
    `row` apart: "Complementary pairs answered differently (train B_half)"."""
    if len(rows) < 2:
        return evidence.label
    parts = []
    if len({r.variant for r in rows}) > 1:
        prefix = evidence.variant[:-1] if evidence.variant.endswith("*") else ""
        parts.append(row.variant[len(prefix):].replace("_", " ") + (" colors" if row.probe == "counterfactual" else ""))
    if len({r.train for r in rows}) > 1:
        parts.append(_condition(row.train) if row.train else "not trained")
    if len({(r.dataset, r.split) for r in rows}) > 1:
        parts.append(readable_spec(f"{row.dataset}/{row.split}"))
    if len({r.suite for r in rows}) > 1 and not parts:
        parts.append(f"suite {row.suite}")
    if not parts and len({r.run_id for r in rows}) > 1:
        parts.append(f"run {row.run_id}")
    if not parts:
        return evidence.label
    said = ", ".join(parts)
    return f"{evidence.label[:-1]}; {said})" if evidence.label.endswith(")") else f"{evidence.label} ({said})"


def card_markdown(card: Card) -> str:
    """The card as a markdown section (for `harness report`)."""
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    body = []
    for line in card.lines:
        if not line.rows:
            body.append([line.evidence.label, "not measured", "", f"no row in this model's runs ({line.evidence.suites})", ""])
            continue
        for r in line.rows:
            value, ci = value_text(r)
            body.append([row_label(line.evidence, r, line.rows), value, ci, context(r), r.run_id])
    head = f"## Image reliance: {md_code(card.model)}\n\n"
    said = verdict(card)
    if said:
        head += f"**{said}.**\n\n"
    head += ("Each line: a measurement of this model that tells whether it uses the image (values in %, "
             "drops in points, S_E x100; 95% intervals).\n\n")
    body = [[md_cell(c) for c in row] for row in body]  # dataset names, run ids: user text
    return head + tabulate(body, headers=["evidence", "value", "95% CI", "measured on", "run"], tablefmt="github",
                           disable_numparse=True) + "\n"
