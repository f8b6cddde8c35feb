"""Probe `language-prior`: a model-free audit of a dataset's language priors (Goyal §3).

Needs no model capability; its rows describe the data, not a model, so none has a better
direction (`higher_is_better=None`, docs/leaderboard.md). On the task's split: the answer entropy per question type and
its question-count-weighted mean (balancing raised it 56% on VQA), the VQA accuracy of the
Prior ("yes") and of the question-type prior (priors fitted on the task's train split when
it has one, else on the split itself, said in the report), and the question prefixes whose
majority answer is most predictive ("do you see a" -> yes scores 87% on VQA v1).
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar, Mapping

from harness.api import Display, Layout, Option, Probe, ProbeContext
from harness.errors import UsageError
from harness.stats import bootstrap_ci
from harness.types import ResultRow

from .display import AUDIT_DISPLAY
from .metrics import (
    answer_entropy_by_type,
    canonical_answer,
    fit_priors,
    predictive_prefixes,
    prior_accuracies,
)
from .tables import AUDIT_LAYOUTS

__all__ = ["LanguagePriorAudit"]


class LanguagePriorAudit(Probe):
    name = "language-prior"
    headline = (("audit/answer_entropy", ""), ("audit/answer_entropy_change", "*"))
    model_free = True
    description = "model-free audit: answer entropy per question type, Prior / type-prior accuracy, predictive prefixes"
    options: ClassVar[Mapping[str, Option]] = {
        "min_count": Option(20, "fewest questions a prefix needs to be listed", min=1, max=10_000_000),
        "max_words": Option(4, "longest prefix (words)", min=1, max=20),
        "top": Option(10, "prefixes listed in the report", min=0, max=10_000),
        "compare_to": Option("", "another dataset/split (e.g. vqa1/val): its weighted answer entropy and the "
                                 "relative change to this one's (Goyal: +56% from VQA v1 to v2)"),
    }

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        if self.config["compare_to"]:  # a malformed reference: one line on load, before any work
            _reference(str(self.config["compare_to"]))

    def run(self, ctx: ProbeContext) -> list[ResultRow]:
        examples = [ex for ex in ctx.examples if canonical_answer(ex)]
        if not examples:
            for m in ("audit/answer_entropy", "audit/prior_accuracy", "audit/qtype_prior_accuracy"):
                ctx.metric_unavailable(m, "split has no answers")
            return []
        typed = [ex for ex in examples if ex.question_type]
        rows: list[ResultRow] = []
        if typed:
            per_type, weighted = answer_entropy_by_type([canonical_answer(ex) for ex in typed],
                                                        [ex.question_type for ex in typed])
            rows.append(ctx.row("audit/answer_entropy", weighted, len(typed), unit="bits"))
            for qtype, (h, n) in per_type.items():
                rows.append(ctx.row(f"audit/answer_entropy/question_type={qtype}", h, n, unit="bits"))
            _report_entropy(ctx, per_type, weighted)
            rows += _compare(ctx, str(self.config["compare_to"]), weighted)
        else:
            ctx.metric_unavailable("audit/answer_entropy", "no question types in the data")

        found = ctx.train_examples()
        train, source = (found[0], f"the task's train split {found[1]}") if found else \
            (ctx.examples, "the evaluated split itself (in-sample)")
        fit = fit_priors(train)
        prior, qprior = prior_accuracies(fit, examples)
        if fit.prior and prior.size:
            rows.append(ctx.row("audit/prior_accuracy", float(prior.mean()), prior.size,
                                ci=bootstrap_ci(prior, seed=ctx.seed)))
            rows.append(ctx.row("audit/qtype_prior_accuracy", float(qprior.mean()), qprior.size,
                                ci=bootstrap_ci(qprior, seed=ctx.seed)))
            ctx.report(f"Priors fitted on {source}: Prior answer {fit.prior!r}; "
                       f"{len(fit.by_type)} question-type priors.")
        else:
            ctx.metric_unavailable("audit/prior_accuracy", "no human answers to score the priors against")
            ctx.metric_unavailable("audit/qtype_prior_accuracy", "no human answers to score the priors against")

        prefixes = predictive_prefixes(examples, max_words=int(self.config["max_words"]),
                                       min_count=int(self.config["min_count"]), top=int(self.config["top"]))
        if prefixes:
            best = prefixes[0]
            rows.append(ctx.row("audit/top_prefix_accuracy", best.accuracy, best.count))
            lines = ["Most predictive question prefixes (majority answer's VQA accuracy):", "",
                     "| prefix | majority answer | questions | accuracy % |", "|---|---|---|---|"]
            lines += [f"| {p.prefix} | {p.answer} | {p.count} | {100 * p.accuracy:.2f} |" for p in prefixes]
            ctx.report("\n".join(lines))
        # Model-free: a property of the data, no column is "better" (docs/leaderboard.md).
        return [replace(r, higher_is_better=None) for r in rows]

    @classmethod
    def layouts(cls) -> tuple[Layout, ...]:
        return AUDIT_LAYOUTS

    @classmethod
    def display(cls) -> Display:
        return AUDIT_DISPLAY


def _report_entropy(ctx: ProbeContext, per_type, weighted: float, k: int = 12) -> None:
    lines = [f"Answer entropy, weighted by question-type frequency: {weighted:.4f} bits.", "",
             "| question type | questions | entropy (bits) |", "|---|---|---|"]
    biggest = sorted(per_type.items(), key=lambda kv: (-kv[1][1], kv[0]))[:k]
    lines += [f"| {t} | {n} | {h:.4f} |" for t, (h, n) in biggest]
    ctx.report("\n".join(lines))


def _reference(other: str) -> tuple[str, str]:
    """compare_to's (dataset spec, split); one UsageError line when it is not DATASET/SPLIT."""
    spec, sep, split = other.rpartition("/")
    if not sep or not spec or not split:
        raise UsageError(f"language-prior: compare_to={other!r} must be DATASET/SPLIT, e.g. vqa1/val")
    return spec, split


def _compare(ctx: ProbeContext, other: str, weighted: float) -> list[ResultRow]:
    """The reference dataset's weighted answer entropy and the relative change to this one."""
    if not other:
        return []
    spec, split = _reference(other)
    ref = [ex for ex in ctx.examples_of(spec, split) if canonical_answer(ex) and ex.question_type]
    if not ref:
        ctx.metric_unavailable("audit/answer_entropy_change", f"{other} has no typed answered questions")
        return []
    _, ref_h = answer_entropy_by_type([canonical_answer(ex) for ex in ref], [ex.question_type for ex in ref])
    rows = [ctx.row("audit/answer_entropy", ref_h, len(ref), unit="bits", dataset=spec, variant=f"reference:{split}")]
    if ref_h > 0:
        change = (weighted - ref_h) / ref_h
        rows.append(ctx.row("audit/answer_entropy_change", change, len(ref), unit="fraction",
                            variant=f"vs {other}"))
        ctx.report(f"Weighted answer entropy {weighted:.4f} bits vs {ref_h:.4f} on {other}: "
                   f"{100 * change:+.1f}% (Goyal et al. report +56% from VQA v1 to v2).")
    return rows
