"""Probe `image-ablation`: does an open-ended answer depend on the image? (docs/image-ablation.md)

The same questions are asked four times: with the real image, with the image removed (a
constant gray image, `harness.types.BLANK_IMAGE`, and no image id), with the image of another
question (a seeded derangement, by default within the same question type, never another
question on the same image), and with the question removed (real image; the question type
and whatever the dataset derived from the question go with it: `harness.inputs`). Rows, per
condition:

- `vqa_accuracy` (official per-question VQA accuracy; `label_accuracy` for closed-set
  data) with a 95% bootstrap interval;
- `vqa_accuracy_drop`: mean over the same questions of (real - condition), with a paired
  bootstrap interval (questions resampled once for both conditions);
- `answer_change_rate`: share of questions whose normalized answer differs from the answer
  with the real image (Wilson interval).

A model that never looks at the image has drop 0 and change 0 for the gray and swapped
images, whatever its accuracy. With the real image a failed prediction scores 0 (as in the
accuracy probe); a condition's rows use the questions the model answered both with the real
and with the changed input (the others are counted in the report), so a failure is never
read as a drop. A condition that changes an input the model declares it does not read
(`Model.inputs`) is not run (no rows; the reason is in the report). Per-question scores go
to the run's per-example artifacts (harness.perexample) for `harness compare`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Mapping

import numpy as np

from harness.api import Display, Layout, Option, Probe, ProbeContext
from harness.metrics import (
    normalize_answer,
    reference_label,
    split_by_metric,
    switched_note,
    vqa_accuracy_batch,
)
from harness.perexample import write_scores
from harness.report import md_cell
from harness.stats import bootstrap_ci, wilson_interval
from harness.types import Example, Prediction, ResultRow

from .derange import image_derangement
from .display import ABLATION_DISPLAY
from .examples import show_ablation
from .tables import ABLATION_LAYOUTS

__all__ = ["ImageAblationProbe", "CONDITIONS", "answers_changed", "paired_drop"]

#: Condition ids (the rows' `variant`), in display order.
CONDITIONS = ("real", "blank", "swap", "no-question")


def answers_changed(first: Sequence[str], second: Sequence[str]) -> np.ndarray:
    """1.0 where two answers differ after the official VQA answer normalization, else 0.0."""
    def norm(a: str) -> str:
        return normalize_answer((a or "").strip().lower())

    return np.array([float(norm(a) != norm(b)) for a, b in zip(first, second)])


def paired_drop(real: np.ndarray, other: np.ndarray, *, seed: int, n_boot: int = 1000) -> tuple[float, float, float]:
    """(mean(real - other), low, high): the drop and its paired percentile-bootstrap interval."""
    diff = np.asarray(real, dtype=np.float64) - np.asarray(other, dtype=np.float64)
    low, high = bootstrap_ci(diff, seed=seed, n_boot=n_boot)
    return float(diff.mean()), low, high


def _scores(examples: Sequence[Example], preds: Sequence[Prediction]) -> dict[str, tuple[list[int], np.ndarray]]:
    """metric -> (item indices, per-item scores): VQA accuracy where the example has human
    answers, label accuracy where it has only a label; model errors score 0."""

    out: dict[str, tuple[list[int], np.ndarray]] = {}
    vqa, label, _ = split_by_metric(examples)  # the stated rule (harness.metrics.rule)
    if vqa:
        values = vqa_accuracy_batch([preds[i].answer or "" for i in vqa], [examples[i].answers for i in vqa])
        out["vqa_accuracy"] = (vqa, np.where([not preds[i].ok for i in vqa], 0.0, values))
    if label:
        out["label_accuracy"] = (label, np.array([
            float(preds[i].ok and (preds[i].answer or "").strip().lower()
                  == reference_label(examples[i]).strip().lower()) for i in label]))
    return out


class ImageAblationProbe(Probe):
    name = "image-ablation"
    headline = (("vqa_accuracy", "real"), ("vqa_accuracy_drop", "blank"), ("vqa_accuracy_drop", "swap"),
                ("vqa_accuracy_drop", "no-question"), ("label_accuracy_drop", "blank"))
    description = "accuracy with the real, a gray and another question's image and without the question; drops"
    requires = ("answer",)
    options: ClassVar[Mapping[str, Option]] = {
        "swap_within": Option("question_type", "swap images among questions of the same type, or any",
                              choices=("question_type", "any")),
    }

    def run(self, ctx: ProbeContext) -> list[ResultRow]:
        examples = list(ctx.examples)
        if not ctx.labelled:
            ctx.metric_unavailable("vqa_accuracy", "split has no ground-truth answers")
            return []
        images = [ex.image_id or ex.image for ex in examples]
        groups = [ex.question_type for ex in examples] if self.config["swap_within"] == "question_type" else None
        plan = image_derangement(images, groups, seed=ctx.seed)
        swapped = [i for i, d in enumerate(plan.donor) if d is not None]
        everyone = list(range(len(examples)))
        variants: dict[str, tuple[list[int], list[Example]]] = {
            "real": (everyone, examples),
            # Removals as the harness defines them: the input and what the dataset derived
            # from it (image id; question type), never the input alone (harness.inputs).
            "blank": (everyone, ctx.ablate(examples, "image")),
            # Another question's image: the own image's derived meta goes with it (harness.inputs).
            "swap": (swapped, [ex.with_(image=examples[plan.donor[i]].image, image_id=examples[plan.donor[i]].image_id)
                               for i, ex in zip(swapped, ctx.ablate([examples[i] for i in swapped], "image"))]),
            "no-question": (everyone, ctx.ablate(examples, "question")),
        }
        preds: dict[str, list[Prediction]] = {}
        for cond, (_, shown) in variants.items():
            reason = _unchangeable(cond, ctx.model_inputs)
            if reason:  # the condition cannot change what the model reads: no rows, the reason
                ctx.metric_unavailable(f"vqa_accuracy_drop ({cond})", reason)
            elif not shown:
                ctx.metric_unavailable(f"vqa_accuracy ({cond})", "no question could be given another question's "
                                       "image (every question type has its questions on one image)")
            else:
                preds[cond] = ctx.predict(shown, "answer", variant="" if cond == "real" else cond)
        note = switched_note(split_by_metric(examples)[2], len(examples))
        if note:
            ctx.report(note)
        real_scores = _scores(examples, preds["real"])
        if not real_scores:
            ctx.metric_unavailable("vqa_accuracy", "no example has human answers or a label")
            return []
        rows = _real_rows(ctx, examples, real_scores)
        for cond in CONDITIONS[1:]:
            if cond in preds:
                rows += _condition_rows(ctx, cond, examples, variants[cond][0], variants[cond][1], preds, real_scores)
        _report(ctx, examples, plan, self.config["swap_within"], preds, variants)
        show_ablation(ctx, examples, plan.donor, preds, variants["swap"][0])
        return rows

    @classmethod
    def layouts(cls) -> tuple[Layout, ...]:
        return ABLATION_LAYOUTS

    @classmethod
    def display(cls) -> Display:
        return ABLATION_DISPLAY


def _unchangeable(cond: str, inputs: frozenset[str] | None) -> str:
    """Why a condition cannot change the model's input (it declares it does not read it), or ''."""
    needed = {"blank": "image", "swap": "image", "no-question": "question"}.get(cond)
    if inputs is None or needed is None or needed in inputs:
        return ""
    return f"the model declares it does not read the {needed} (Model.inputs), so this condition changes nothing it sees"


def _real_rows(ctx: ProbeContext, examples: list[Example], real_scores) -> list[ResultRow]:
    """Accuracy with the real image over every question (a failed prediction scores 0)."""
    rows = []
    for metric, (items, values) in real_scores.items():
        rows.append(ctx.row(metric, float(values.mean()), len(values), ci=bootstrap_ci(values, seed=ctx.seed),
                            variant="real"))
        write_scores(ctx, [examples[i].id for i in items], {metric: values}, variant="real")
    return rows


def _condition_rows(ctx: ProbeContext, cond: str, examples: list[Example], index: list[int], shown: list[Example],
                    preds: Mapping[str, list[Prediction]], real_scores) -> list[ResultRow]:
    """Accuracy, drop and answer change of one condition, on the questions the model answered
    both with the real input and in the condition (failed predictions are left out, counted)."""

    keep = [j for j, i in enumerate(index) if preds["real"][i].ok and preds[cond][j].ok]
    if len(keep) < len(index):
        ctx.report(f"{cond}: {len(index) - len(keep)} question(s) left out: the model failed on them with the real "
                   "or the changed input.")
    if not keep:
        ctx.metric_unavailable(f"vqa_accuracy_drop ({cond})", "the model failed on every question of the condition")
        return []
    index = [index[j] for j in keep]
    cond_preds = [preds[cond][j] for j in keep]
    cond_scores = _scores([shown[j] for j in keep], cond_preds)
    rows: list[ResultRow] = []
    for metric, (items, values) in cond_scores.items():
        full = dict(zip(real_scores[metric][0], real_scores[metric][1]))
        base = np.array([full[index[j]] for j in items])
        # Accuracy under an ablated input has no better direction (a question-only model keeps its
        # accuracy with a gray image): only the real-image accuracy and the drops are compared.
        rows.append(ctx.row(metric, float(values.mean()), len(values), ci=bootstrap_ci(values, seed=ctx.seed),
                            variant=cond, higher_is_better=None))
        drop, low, high = paired_drop(base, values, seed=ctx.seed)
        rows.append(ctx.row(f"{metric}_drop", drop, len(values), ci=(low, high), variant=cond))
        write_scores(ctx, [examples[index[j]].id for j in items],
                     {metric: values, f"{metric}_drop": base - values}, variant=cond)
    change = answers_changed([preds["real"][i].answer or "" for i in index], [p.answer or "" for p in cond_preds])
    k = int(change.sum())
    rows.append(ctx.row("answer_change_rate", k / len(index), len(index), variant=cond,
                        ci=wilson_interval(k, len(index)), higher_is_better=True))
    write_scores(ctx, [examples[i].id for i in index], {"answer_change_rate": change}, variant=cond)
    return rows


def _report(ctx: ProbeContext, examples: list[Example], plan, within: str, preds, variants) -> None:
    n = len(examples)
    if within == "question_type":
        text = (f"Swapped images: {plan.within_group} of {n} questions got the image of another question of the "
                "same question type")
        if plan.across_groups:
            text += (f"; {plan.across_groups} (in types whose questions share too few images) the image of a "
                     "question of another type")
    else:
        text = f"Swapped images: {plan.within_group} of {n} questions got another question's image"
    text += f"; {plan.left_out} left out of the swap condition (no other image possible)." if plan.left_out else "."
    lines = [text, "", "Questions whose answer changed with another question's image (first 5):", "",
             "| question | real image: answer | other image: answer | human answers |", "|---|---|---|---|"]
    if "swap" in preds:
        index = variants["swap"][0]
        shown = 0
        for j, i in enumerate(index):
            a, b = preds["real"][i].answer or "", preds["swap"][j].answer or ""
            if a.strip().lower() != b.strip().lower() and shown < 5:
                humans = ", ".join(sorted(set(examples[i].answers)))[:60] or examples[i].label
                lines.append(f"| {md_cell(examples[i].question)} | {md_cell(a)} | {md_cell(b)} | {md_cell(humans)} |")
                shown += 1
        if not shown:
            lines.append("| (no answer changed) | | | |")
    ctx.report("\n".join(lines))
