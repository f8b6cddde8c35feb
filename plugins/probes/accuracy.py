"""Accuracy probe: official VQA accuracy (docs/metrics.md) or label accuracy, with CIs.

Which one an example gets is the stated rule of `harness.metrics.rule` (docs/metrics.md,
"Which accuracy"): VQA accuracy with at least 4 human answers, else label accuracy against
its label or most common answer (a dataset with one answer per question is never scored
0.0 by a leave-one-out it cannot pass); the report says how many were switched.

Per question the official per-question value (unrounded); overall, per answer type and
per question type means with seeded bootstrap 95% intervals. The lenient variant (always
normalizes, as lmms-eval does) is reported under its own name, `vqa_accuracy_lenient`.
Examples on which the model raised are scored 0 and counted in the report.
Splits without ground truth (VQA test-dev/test) get the official results file
`[{"question_id", "answer"}]` for the evaluation server and no accuracy.
"""

from __future__ import annotations

import json

import numpy as np

from harness.api import ChartSpec, Display, Layout, Probe, ProbeContext, Suite, Task
from harness.fileio import atomic_write_text
from harness.metrics import (
    accuracy_breakdown,
    reference_label,
    split_by_metric,
    switched_note,
    vqa_accuracy_batch,
    vqa_accuracy_lenient_batch,
)
from harness.perexample import write_scores
from harness.report import md_cell
from harness.stats import bootstrap_ci
from harness.types import ResultRow

__all__ = ["AccuracyProbe", "ACCURACY_SUITE", "ACCURACY_LAYOUTS", "ACCURACY_NAMES", "ANSWER_TYPE_CATEGORIES"]

#: Readable names of the accuracy metrics (the leaderboard, `harness compare`).
ACCURACY_NAMES = {"vqa_accuracy": "VQA accuracy", "vqa_accuracy_lenient": "VQA accuracy (lenient)",
                  "label_accuracy": "label accuracy", "vqa_accuracy/answer_type=*": "VQA accuracy by answer type",
                  "vqa_accuracy/question_type=*": "VQA accuracy by question type"}
#: The answer-type chart's categories (metric -> label), in order.
ANSWER_TYPE_CATEGORIES = {"vqa_accuracy": "overall", "vqa_accuracy/answer_type=yes/no": "yes/no",
                          "vqa_accuracy/answer_type=number": "number", "vqa_accuracy/answer_type=other": "other"}


class AccuracyProbe(Probe):
    name = "accuracy"
    headline = (("vqa_accuracy", ""), ("label_accuracy", ""))
    #: What a split without ground truth (test-dev / test) gets instead of rows.
    announce = {"results_official.json": "evaluation-server results file"}
    description = "official VQA accuracy (per answer/question type, bootstrap CIs) or label accuracy"
    requires = ("answer",)

    def run(self, ctx: ProbeContext) -> list[ResultRow]:
        preds = ctx.predict(ctx.examples, "answer")
        answers = [p.answer if p.ok and p.answer is not None else "" for p in preds]
        errors = sum(1 for p in preds if not p.ok)
        _export_official(ctx, answers)
        if not ctx.labelled:
            ctx.report("Split without ground truth: predictions exported in the official results "
                       f"format to `{ctx.artifact('results_official.json')}`; no accuracy computed.")
            _server_file_notes(ctx, len(preds), errors)
            ctx.metric_unavailable("vqa_accuracy", "split has no ground-truth answers")
            return []
        rows: list[ResultRow] = []
        with_humans, labelled_only, switched = split_by_metric(ctx.examples)
        note = switched_note(switched, len(ctx.examples))
        if note:
            ctx.report(note)
            if not with_humans:
                ctx.metric_unavailable("vqa_accuracy", note)
        if with_humans:
            ex_h = [ctx.examples[i] for i in with_humans]
            pred_h = [answers[i] if preds[i].ok else None for i in with_humans]
            per_q = vqa_accuracy_batch([p or "" for p in pred_h], [ex.answers for ex in ex_h])
            per_q = np.where([p is None for p in pred_h], 0.0, per_q)  # errors score 0
            for item in accuracy_breakdown(per_q, [ex.answer_type for ex in ex_h],
                                           [ex.question_type for ex in ex_h], seed=ctx.seed):
                rows.append(ctx.row(item["metric"], item["value"], item["n"], ci=(item["ci_low"], item["ci_high"])))
            lenient = vqa_accuracy_lenient_batch([p or "" for p in pred_h], [ex.answers for ex in ex_h])
            lenient = np.where([p is None for p in pred_h], 0.0, lenient)
            # Per-question scores for paired comparisons (`harness compare`, harness.perexample).
            write_scores(ctx, [ex.id for ex in ex_h], {"vqa_accuracy": per_q, "vqa_accuracy_lenient": lenient})
            for kind in sorted({ex.answer_type for ex in ex_h if ex.answer_type}):
                idx = [k for k, ex in enumerate(ex_h) if ex.answer_type == kind]
                write_scores(ctx, [ex_h[k].id for k in idx], {f"vqa_accuracy/answer_type={kind}": per_q[idx]})
            lo, hi = bootstrap_ci(lenient, seed=ctx.seed)
            rows.append(ctx.row("vqa_accuracy_lenient", float(lenient.mean()), len(lenient), ci=(lo, hi)))
            _report_examples(ctx, ex_h, pred_h, per_q)
        if labelled_only:
            hits = np.array([
                1.0 if preds[i].ok and answers[i].strip().lower() == reference_label(ctx.examples[i]).strip().lower()
                else 0.0 for i in labelled_only
            ])
            lo, hi = bootstrap_ci(hits, seed=ctx.seed)
            rows.append(ctx.row("label_accuracy", float(hits.mean()), len(hits), ci=(lo, hi)))
            write_scores(ctx, [ctx.examples[i].id for i in labelled_only], {"label_accuracy": hits})
        if errors:
            ctx.report(f"{errors} of {len(preds)} examples failed in the model and were scored 0.")
        return rows

    @classmethod
    def layouts(cls) -> tuple[Layout, ...]:
        return ACCURACY_LAYOUTS

    @classmethod
    def display(cls) -> Display:
        return Display(title="Accuracy", docs="metrics.md", metric_names=ACCURACY_NAMES, charts=(
            ChartSpec("answer-types", "VQA accuracy by answer type, per test data", axis="VQA accuracy (%)",
                      metrics=tuple(ANSWER_TYPE_CATEGORIES), where={"variant": ("",)}, panels=("model",),
                      categories="metric", series="data", labels={"metric": ANSWER_TYPE_CATEGORIES}),))


ANSWER_TYPE_COLUMNS = (("vqa_accuracy", "All"), ("vqa_accuracy/answer_type=yes/no", "Yes/No"),
                       ("vqa_accuracy/answer_type=number", "Number"), ("vqa_accuracy/answer_type=other", "Other"),
                       ("vqa_accuracy_lenient", "All (lenient)"), ("label_accuracy", "label acc."))

ACCURACY_LAYOUTS = (
    Layout(id="accuracy", title="Accuracy on {data}",
           description="Official VQA accuracy (%, higher is better) overall and per answer type; label accuracy "
                       "for closed-set data. Lenient = always-normalized variant (not official).",
           reference="VQA evaluation (Antol et al. 2015; GT-Vision-Lab vqaEval.py)", split_by=("data",),
           rows=("model", "train"), columns=("metric",), metrics=tuple(m for m, _ in ANSWER_TYPE_COLUMNS),
           labels={"metric": dict(ANSWER_TYPE_COLUMNS)},
           note="VQA accuracy (official) in %, 95% bootstrap intervals in brackets; "
                "lenient = always-normalized variant (not official)."),
)


def _server_file_notes(ctx: ProbeContext, n: int, errors: int) -> None:
    """Warn, in the report, when the evaluation-server file is not a full submission: the
    questions the model failed on (written with an empty answer) and a `--limit` cut (the
    split's question count from the loader's summary, when it gives one)."""
    if errors:
        ctx.report(f"**Warning:** {errors} of {n} questions failed in the model; they are written with an "
                   "empty answer (\"\") in results_official.json and the server will score them 0.")
    total = ctx.dataset_summary().get("questions")
    if isinstance(total, int) and n < total:
        ctx.report(f"**Warning:** partial results file: {n:,} of the split's {total:,} questions (--limit); "
                   "the evaluation server expects every question of the split.")


def _export_official(ctx: ProbeContext, answers: list[str]) -> None:
    def qid(ex_id: str):
        return int(ex_id) if ex_id.isdigit() else ex_id

    payload = [{"question_id": qid(ex.id), "answer": a} for ex, a in zip(ctx.examples, answers)]
    atomic_write_text(ctx.artifact("results_official.json"), json.dumps(payload, ensure_ascii=False) + "\n")


def _report_examples(ctx: ProbeContext, examples, preds, per_q, k: int = 5) -> None:
    order = np.argsort(per_q, kind="stable")[:k]
    lines = ["Lowest-scoring questions:", "", "| question | prediction | human answers | acc |", "|---|---|---|---|"]
    for i in order:
        ex = examples[i]
        humans = md_cell(", ".join(sorted(set(ex.answers)))[:80])
        pred = md_cell(preds[i]) if preds[i] is not None else "(error)"
        lines.append(f"| {md_cell(ex.question)} | {pred} | {humans} | {100 * per_q[i]:.1f} |")
    ctx.report("\n".join(lines))


# Suite: the toy benchmark's two variants, each model trained on the matching train split
# (Goyal et al.'s UU and BB cells). The balanced-vqa suite adds the full protocol.
ACCURACY_SUITE = Suite(
    toy=True,
    name="vqa-accuracy",
    description="official VQA accuracy on the toy benchmark, unbalanced (≈VQA v1) and balanced (≈VQA v2)",
    tasks=(
        Task("toyvqa:variant=unbalanced", "val", ("accuracy",),
             train=("toyvqa:variant=unbalanced", "train"), label="unbalanced"),
        Task("toyvqa:variant=balanced", "val", ("accuracy",),
             train=("toyvqa:variant=balanced", "train"), label="balanced"),
    ),
)
