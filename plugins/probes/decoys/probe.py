"""Multiple-choice decoy probes (Chao et al. 2018; docs/decoys.md).

`decoys`: accuracy of the picked candidate on each decoy set (Orig, IoU, QoU, IoU+QoU,
All), built from the example's meta (`mc_target`, `decoys`). The pick is the argmax of the
model's `score_choices` when it has it; otherwise its open answer matched to a candidate
under `harness.metrics.normalize_answer` (an unmatched answer scores 0 and the unmatched
rate is reported; never a random pick). Modality ablations for any model: the image
and/or the question removed (harness.inputs: a gray image and no image id; no question and
no question type) give rows QA / IA / A next to the full IQA input (skipped for models
that are themselves an ablation, i.e. declare `inputs`, like MLP-A). Also model-free reference rows per variant: Random
(the expected accuracy of a uniform pick) and the Eq. 2 answer-frequency rule counted on
the task's training split.

`decoy-audit`: the Eq. 2 rule, neutrality statistics and generation statistics (decoys by
source, fill-ins, short sets, filter rejections when the generation is cached).
"""

from __future__ import annotations

from collections import Counter
from typing import ClassVar, Mapping, Sequence

import numpy as np

from harness.api import Display, Layout, Option, Probe, ProbeContext
from harness.errors import UsageError
from harness.metrics import normalize_answer, vqa_accuracy
from harness.perexample import write_scores
from harness.specs import parse_spec
from harness.stats import bootstrap_ci
from harness.types import Example, ResultRow
from vqa_harness_plugins.generators.decoys import (
    VARIANTS,
    Eq2Rule,
    eq2_rule,
    neutrality,
    normalize_for_match,
    variant_choices,
)

from .display import AUDIT_DISPLAY, DECOY_DISPLAY
from .examples import show_decoys
from .tables import AUDIT_LAYOUTS, DECOY_LAYOUTS

__all__ = ["DecoyProbe", "DecoyAuditProbe", "ABLATIONS", "mc_variant_examples", "pick_scores"]

#: Ablation label -> (blank image, blank question); "IQA" is the full input.
ABLATIONS: Mapping[str, tuple[bool, bool]] = {"IQA": (False, False), "QA": (True, False),
                                              "IA": (False, True), "A": (True, True)}
METRIC = "mc_accuracy"


def _variants(option: str, probe: str = "decoys") -> list[str]:
    names = [v.strip() for v in option.split(",") if v.strip()]
    bad = [v for v in names if v not in VARIANTS]
    if bad or not names:
        problem = f"unknown variant(s) {', '.join(bad)}" if bad else f"variants={option!r} names no decoy set"
        raise UsageError(f"probe {probe}: {problem}; variants: {', '.join(VARIANTS)}")
    return names


def mc_variant_examples(examples: Sequence[Example], variant: str, seed: int) -> tuple[list[Example], list[str]]:
    """Examples with the variant's candidates, and the ids whose candidate list is empty
    (fewer than 2 candidates or no target), which are left out and reported."""
    out, empty = [], []
    for ex in examples:
        target = ex.meta.get("mc_target") or ex.label
        decoys = ex.meta.get("decoys")
        if decoys is None:  # a plain MC dataset: its own choices are the Orig set
            if variant != "orig":
                empty.append(ex.id)
                continue
            choices = tuple(ex.choices)
        else:
            choices = variant_choices(target, decoys, variant, key=ex.id, seed=seed)
        if len(choices) < 2 or not target or normalize_for_match(target) not in {normalize_for_match(c) for c in choices}:
            empty.append(ex.id)
            continue
        out.append(ex.with_(choices=choices, meta={**ex.meta, "mc_target": target}))
    return out, empty


def variant_examples(ctx: ProbeContext, variant: str) -> tuple[list[Example], list[str]]:
    """`mc_variant_examples` of the task, the candidate lists computed once per data, seed
    and code and shared by every model (`ctx.memo`)."""
    examples = ctx.examples
    by_id = {ex.id: ex for ex in examples}
    if len(by_id) != len(examples):  # ids repeat: no safe key per example
        return mc_variant_examples(examples, variant, ctx.seed)

    def build() -> dict:
        kept, empty = mc_variant_examples(examples, variant, ctx.seed)
        return {"kept": [[ex.id, list(ex.choices), ex.meta["mc_target"]] for ex in kept], "empty": empty}

    found = ctx.memo(f"variant/{variant}", {"seed": ctx.seed}, build)
    out = [by_id[i].with_(choices=tuple(choices), meta={**by_id[i].meta, "mc_target": target})
           for i, choices, target in found["kept"]]
    return out, list(found["empty"])


def _hit(ex: Example, picked: str | None) -> float:
    """Score of a picked candidate: VQA accuracy vs the human answers for VQA data, else
    whether it is the target."""
    if picked is None:
        return 0.0
    if ex.meta.get("mc_scoring") == "vqa" and ex.answers:

        return float(vqa_accuracy(picked, list(ex.answers)))
    return 1.0 if normalize_for_match(picked) == normalize_for_match(ex.meta["mc_target"]) else 0.0


def eq2_scores(rule: Eq2Rule, test: Sequence[Example]) -> np.ndarray:
    """Each question's score under the Eq. 2 rule: its picks scored as a model's pick is
    (`_hit`: VQA accuracy against the human answers on VQA data), in expectation over ties."""
    return np.array([np.mean([_hit(ex, c) for c in rule.picks(ex.choices)]) if ex.choices else 0.0
                     for ex in test])


def _random_expectation(ex: Example) -> float:
    return float(np.mean([_hit(ex, c) for c in ex.choices]))


def pick_scores(ctx: ProbeContext, examples: list[Example], variant: str,
                picks: list[str | None] | None = None) -> tuple[np.ndarray, int, int]:
    """Per-example scores of the model's pick, the unmatched-answer count (-1 when the
    model scores choices) and the model-error count; `picks`, when given, receives each
    example's picked candidate (None: no pick)."""
    if ctx.has("score_choices"):
        preds = ctx.predict(examples, "score_choices", variant=variant)
        scores = []
        for ex, p in zip(examples, preds):
            picked = ex.choices[int(np.argmax(p.choice_scores))] if p.ok and p.choice_scores else None
            scores.append(_hit(ex, picked))
            if picks is not None:
                picks.append(picked)
        return np.array(scores), -1, sum(1 for p in preds if not p.ok)

    preds = ctx.predict(examples, "answer", variant=variant, show_choices=True)
    scores, unmatched = [], 0
    for ex, p in zip(examples, preds):
        picked = None
        if p.ok and p.answer is not None:
            norm = {normalize_answer(c).lower(): c for c in reversed(ex.choices)}
            picked = norm.get(normalize_answer(p.answer).lower())
            unmatched += picked is None
        scores.append(_hit(ex, picked))
        if picks is not None:
            picks.append(picked)
    return np.array(scores), unmatched, sum(1 for p in preds if not p.ok)


def _train_examples(ctx: ProbeContext) -> tuple[list[Example], str]:
    """The task's training data; without any, the test data itself (said in the label)."""
    found = ctx.train_examples()
    if found is not None:
        return found
    return list(ctx.examples), f"{ctx.dataset}/{ctx.split} (no train split: counted on the test data)"



def _reference_rows(ctx: ProbeContext, variant: str, test: Sequence[Example], *,
                    order: tuple[str, ...]) -> tuple[list[ResultRow], str]:
    """Model-free rows for one decoy set: a uniform pick's expected accuracy, and the Eq. 2
    answer-frequency rule counted on the task's training data (absent when it has no
    candidates); computed once per data and shared by every model. Also the label of the
    data the rule was counted on."""

    def build() -> dict:
        train, label = _train_examples(ctx)
        values = {"random": [float(np.mean([_random_expectation(e) for e in test])), len(test)], "label": label}
        items = [(ex.choices, ex.meta["mc_target"]) for ex in mc_variant_examples(train, variant, ctx.seed)[0]]
        if items:
            rule = eq2_rule(items)
            hits = eq2_scores(rule, test)
            values["eq2"] = [float(hits.mean()), len(hits)]
        return values

    found = ctx.memo(f"reference/{variant}", {"seed": ctx.seed, "test": [ex.id for ex in test]}, build)
    metrics = {"random": "random_accuracy", "eq2": "eq2_rule_accuracy"}
    rows = [ctx.row(metrics[k], found[k][0], found[k][1], variant=variant, higher_is_better=None)  # model-free
            for k in order if k in found]
    return rows, found["label"]


class DecoyProbe(Probe):
    name = "decoys"
    headline = (("mc_accuracy", "orig"), ("mc_accuracy", "iou+qou"), ("mc_accuracy/QA", "iou+qou"))
    description = "multiple-choice accuracy per decoy set (Orig/IoU/QoU/IoU+QoU/All), modality ablations"
    requires_any = ("score_choices", "answer")
    needs = ("choices",)
    options: ClassVar[Mapping[str, Option]] = {
        "variants": Option(",".join(VARIANTS), "comma-separated decoy sets to evaluate"),
        "ablations": Option(True, "also blank the image and/or the question (rows QA, IA, A)"),
    }

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        _variants(self.config["variants"], self.name)  # a mistyped set: one line on load, before any work

    def run(self, ctx: ProbeContext) -> list[ResultRow]:
        rows: list[ResultRow] = []
        ctx.tag("base", _base_dataset(ctx.dataset))  # Table 3 is split by it (tables.py)
        # A model that reads only some inputs (MLP-A, -QA, -IA) is itself an ablation.
        ablate = bool(self.config["ablations"]) and ctx.model_inputs is None
        train_label = ""
        for variant in _variants(self.config["variants"]):
            examples, empty = variant_examples(ctx, variant)
            if empty:
                ctx.report(f"decoys={variant}: {len(empty)} question(s) with an empty candidate list left out "
                           f"(e.g. {', '.join(empty[:5])})")
            if not examples:
                ctx.metric_unavailable(f"{METRIC} ({variant})", "no question has candidates for this decoy set")
                continue
            per_example: dict[str, np.ndarray] = {}  # per-question scores (harness.perexample)
            picks: dict[str, list[str | None]] = {}  # the picks, for the examples shown with their images
            for label, (blank_image, blank_question) in ABLATIONS.items():
                if label != "IQA" and not ablate:
                    continue
                removed = [what for what, gone in (("image", blank_image), ("question", blank_question)) if gone]
                shown = ctx.ablate(examples, removed) if removed else examples  # input and what derives from it
                tag = variant if label == "IQA" else f"{variant}/{label}"
                scores, unmatched, errors = pick_scores(ctx, shown, tag, picks.setdefault(label, []))
                metric = METRIC if label == "IQA" else f"{METRIC}/{label}"
                lo, hi = bootstrap_ci(scores, seed=ctx.seed)
                # With the image or the question blanked, accuracy has no better direction.
                rows.append(ctx.row(metric, float(scores.mean()), len(scores), ci=(lo, hi), variant=variant,
                                    higher_is_better=True if label == "IQA" else None))
                per_example[metric] = scores
                if unmatched >= 0:
                    rows.append(ctx.row("mc_unmatched_rate" + ("" if label == "IQA" else f"/{label}"),
                                        unmatched / len(scores), len(scores), variant=variant, higher_is_better=False))
                if errors:
                    ctx.report(f"decoys={variant} [{label}]: {errors} example(s) failed in the model, scored 0.")
            if per_example:

                write_scores(ctx, [ex.id for ex in examples], per_example, variant=variant)
            show_decoys(ctx, variant, examples, picks)
            # Model-free reference rows (the same for every model).
            refs, train_label = _reference_rows(ctx, variant, examples, order=("random", "eq2"))
            rows.extend(refs)
        if train_label:
            ctx.report(f"Eq. 2 rule counted on {train_label}.")
        return rows

    @classmethod
    def layouts(cls) -> tuple[Layout, ...]:
        return DECOY_LAYOUTS

    @classmethod
    def display(cls) -> Display:
        return DECOY_DISPLAY


def _base_dataset(spec: str) -> str:
    """The dataset spec without its decoy-set option (one Table 3 per base dataset)."""
    name, options = parse_spec(spec)
    rest = {k: v for k, v in options.items() if k != "decoys"}
    return name + "".join(f":{k}={v}" for k, v in sorted(rest.items()))


class DecoyAuditProbe(Probe):
    name = "decoy-audit"
    headline = (("eq2_rule_accuracy", "iou+qou"),)
    model_free = True
    needs = ("choices",)
    description = "model-free shortcut audit of decoy sets: Eq. 2 rule, neutrality, generation statistics"
    options: ClassVar[Mapping[str, Option]] = {
        "variants": Option(",".join(VARIANTS), "comma-separated decoy sets to audit"),
    }

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        _variants(self.config["variants"], self.name)

    def run(self, ctx: ProbeContext) -> list[ResultRow]:
        ctx.tag("base", _base_dataset(ctx.dataset))
        rows: list[ResultRow] = []
        train_label = ""
        for variant in _variants(self.config["variants"], self.name):
            test, empty = variant_examples(ctx, variant)
            if empty:
                ctx.report(f"decoys={variant}: {len(empty)} question(s) with an empty candidate list "
                           f"(e.g. {', '.join(empty[:5])})")
            if not test:
                ctx.metric_unavailable(f"eq2_rule_accuracy ({variant})", "no question has candidates")
                continue
            refs, train_label = _reference_rows(ctx, variant, test, order=("eq2", "random"))
            rows.extend(refs)
            # Model-free rows (the data's decoys): no better direction (docs/leaderboard.md).
            rows.append(ctx.row("candidates_per_question", float(np.mean([len(e.choices) for e in test])),
                                len(test), variant=variant, unit="count", higher_is_better=None))
            stats = neutrality([(ex.choices, ex.meta["mc_target"]) for ex in test])
            units = {"decoy_use_vs_chance": "score", "decoys_never_target": "fraction", "mean_abs_dev": "score"}
            for key, value in stats.items():
                rows.append(ctx.row(f"neutrality/{key}", value, len(test), variant=variant, unit=units[key],
                                    higher_is_better=None))
        rows.extend(_generation_rows(ctx))
        if train_label:
            ctx.report(f"Eq. 2 rule counted on {train_label}.")
        return rows

    @classmethod
    def layouts(cls) -> tuple[Layout, ...]:
        return AUDIT_LAYOUTS

    @classmethod
    def display(cls) -> Display:
        return AUDIT_DISPLAY


def _generation_rows(ctx: ProbeContext) -> list[ResultRow]:
    """Decoys by source and fill-ins, from the examples' meta and the cached generation."""
    rows: list[ResultRow] = []
    n = len(ctx.examples)
    sources: Counter[str] = Counter()
    for ex in ctx.examples:
        for kind, src in (ex.meta.get("decoy_sources") or {}).items():
            for s in src:
                sources[f"{kind}/{s if s in ('orig', 'frequent') else 'generated'}"] += 1
    for key, count in sorted(sources.items()):
        rows.append(ctx.row(f"generation/{key}", count, n, unit="count", higher_is_better=None))
    source = ctx.dataset_summary().get("decoy_source")
    if source:  # released decoy files when present, generated otherwise: said in the rows
        rows.append(ctx.row(f"generation/source={source.split(':', 1)[0]}", n, n, unit="count",
                            higher_is_better=None))
        ctx.report(f"Decoys: {source}.")
    stats = ctx.dataset_summary().get("generation")
    if stats:
        for key in ("short_iou", "short_qou", "rejected_overlap", "rejected_wup", "rejected_mutual", "unique_questions"):
            if key in stats:
                rows.append(ctx.row(f"generation/{key}", stats[key], n, unit="count", higher_is_better=None))
    return rows
