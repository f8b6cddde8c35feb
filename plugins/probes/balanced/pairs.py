"""Probe `pairs`: complementary-pair analysis (Goyal et al. 2017, §4).

Over the complementary pairs whose two questions were both evaluated (and on which the
model did not fail): the share with both predictions correct, with identical predictions,
with different predictions, and the strict pair accuracy (mean of the lower VQA accuracy
of the two). "Correct" is defined in `metrics.py` and docs/balanced-vqa.md.
"""

from __future__ import annotations

import numpy as np

from harness.api import Display, Layout, Probe, ProbeContext
from harness.perexample import write_scores
from harness.report import md_cell
from harness.stats import bootstrap_ci, wilson_interval
from harness.types import ResultRow

from .display import PAIR_DISPLAY
from .examples import show_pairs
from .metrics import find_pairs, pair_outcomes
from .tables import PAIR_LAYOUTS, trained_condition

__all__ = ["PairProbe", "PAIR_METRICS"]

#: Metric name -> column title.
PAIR_METRICS = {
    "pair/both_correct": "both correct",
    "pair/identical": "identical predictions",
    "pair/different": "different predictions",
    "pair/strict_accuracy": "strict pair accuracy",
}


class PairProbe(Probe):
    name = "pairs"
    headline = (("pair/both_correct", ""), ("pair/identical", ""))
    description = "complementary pairs: both correct, identical / different predictions, strict accuracy"
    requires = ("answer",)
    needs = ("pair_id",)

    def run(self, ctx: ProbeContext) -> list[ResultRow]:
        ctx.tag("trained", trained_condition(ctx.train))

        if not ctx.labelled:
            for m in PAIR_METRICS:
                ctx.metric_unavailable(m, "split has no ground-truth answers")
            return []
        pairs, dangling = find_pairs(ctx.examples)
        _report_load_summary(ctx)
        if not pairs:
            for m in PAIR_METRICS:
                ctx.metric_unavailable(m, "no complementary pair with both questions evaluated "
                                          f"({dangling} question(s) whose partner is absent)")
            return []
        preds = ctx.predict(ctx.examples, "answer")
        ok = [(i, j) for i, j in pairs if preds[i].ok and preds[j].ok]
        failed = len(pairs) - len(ok)
        if not ok:
            for m in PAIR_METRICS:
                ctx.metric_unavailable(m, "the model failed on every paired question")
            return []
        outcomes = pair_outcomes([(ctx.examples[i], ctx.examples[j]) for i, j in ok],
                                 [(preds[i].answer or "", preds[j].answer or "") for i, j in ok])
        n = len(outcomes)
        both = sum(o.both_correct for o in outcomes)
        same = sum(o.identical for o in outcomes)
        strict = np.array([o.strict_accuracy for o in outcomes])

        write_scores(ctx, [f"{ctx.examples[i].id}|{ctx.examples[j].id}" for i, j in ok],
                     {"pair/both_correct": [float(o.both_correct) for o in outcomes],
                      "pair/identical": [float(o.identical) for o in outcomes],
                      "pair/different": [float(not o.identical) for o in outcomes],
                      "pair/strict_accuracy": strict})
        rows = [
            ctx.row("pair/both_correct", both / n, n, ci=wilson_interval(both, n)),
            ctx.row("pair/identical", same / n, n, ci=wilson_interval(same, n), higher_is_better=False),
            ctx.row("pair/different", (n - same) / n, n, ci=wilson_interval(n - same, n)),
            ctx.row("pair/strict_accuracy", float(strict.mean()), n, ci=bootstrap_ci(strict, seed=ctx.seed)),
        ]
        notes = [f"{n} complementary pairs scored."]
        if dangling:
            notes.append(f"{dangling} question(s) name a partner that is not among the evaluated questions "
                         "(e.g. cut by --limit); their pairs are not scored.")
        if failed:
            notes.append(f"{failed} pair(s) skipped because the model failed on one of the questions.")
        _report_examples(ctx, ok, preds, outcomes)
        show_pairs(ctx, ok, preds, outcomes)
        ctx.report(" ".join(notes))
        return rows

    @classmethod
    def layouts(cls) -> tuple[Layout, ...]:
        return PAIR_LAYOUTS

    @classmethod
    def display(cls) -> Display:
        return PAIR_DISPLAY


def _report_load_summary(ctx: ProbeContext) -> None:
    """Pairs-file problems found when loading (official files): counted, never dropped silently."""
    summary = ctx.dataset_summary()
    unknown = summary.get("pairs_unknown_question_ids", 0)
    if "pairs" in summary:
        text = (f"Pairs file: {summary['pairs']} pairs, {summary.get('pairs_used', 0)} used; "
                f"{unknown} pair(s) name question ids with no question/annotation")
        shown = summary.get("unknown_question_ids_shown") or []
        text += f" (first: {', '.join(map(str, shown))})" if shown else ""
        for key, what in (("question_mismatch", "whose two questions differ in text"),
                          ("same_image", "with both questions on one image")):
            if summary.get(f"pairs_{key}"):
                first = ", ".join(f"[{a}, {b}]" for a, b in summary.get(f"{key}_shown") or [])
                text += (f"; {summary[f'pairs_{key}']} pair(s) {what} (first: {first}), "
                         "not complementary pairs, not scored")
        ctx.report(text + ".")


def _report_examples(ctx: ProbeContext, pairs, preds, outcomes, k: int = 6) -> None:
    lines = ["Example pairs (first identical-answer pairs, then others):", "",
             "| question | image A: prediction / answer | image B: prediction / answer | both correct |",
             "|---|---|---|---|"]
    order = sorted(range(len(outcomes)), key=lambda n: (not outcomes[n].identical, n))[:k]
    for n in order:
        i, j = pairs[n]
        a, b = ctx.examples[i], ctx.examples[j]
        lines.append(f"| {md_cell(a.question)} | {md_cell(preds[i].answer)} / {md_cell(a.label or '-')} | "
                     f"{md_cell(preds[j].answer)} / {md_cell(b.label or '-')} | "
                     f"{'yes' if outcomes[n].both_correct else 'no'} |")
    ctx.report("\n".join(lines))
