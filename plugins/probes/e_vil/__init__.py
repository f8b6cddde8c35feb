"""The `nle` probe and the `e-vil` suites (Kayser et al. 2021; docs/e-vil.md).

For each task: the model answers (or picks a choice), S_T is computed, the model explains
its own answer for the correctly answered examples, and every automatic metric gives S_E
and S_O = S_T * S_E; also the combined e-ViL score and, where examples carry several
references (VQA-X, toyvqa), the reference ("GT") row: each reference scored against the
others. Per-example scores go to `artifacts/nle/.../<task>.jsonl` for `harness nle sample` /
`harness nle import` (human evaluation). See docs/e-vil.md.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from harness.api import Display, Layout, Option, Probe, ProbeContext, Suite, Task
from harness.errors import ResourceError, UsageError
from harness.fileio import atomic_write_json, write_jsonl
from harness.perexample import write_scores
from harness.rundir import safe_name
from harness.stats import bootstrap_ci
from harness.types import ResultRow
from vqa_harness_plugins.metrics.evil_score import e_vil_score, why_not_combined
from vqa_harness_plugins.metrics.nlg import METRIC_LABELS, METRICS, nlg_scores
from vqa_harness_plugins.nlp import bertscore_settings
from vqa_harness_plugins.nlp.bertscore import chosen_model_problem

from .display import EVIL_DISPLAY
from .scoring import CORRECT_RULES, gt_pairs, task_scores
from .tables import EVIL_LAYOUTS, GT_VARIANT, task_label

__all__ = ["NLEProbe", "EVIL_SUITE", "EVIL_DEV_SUITE", "EVIL_TOY_SUITE", "artifact_name"]

def artifact_name(dataset: str, split: str) -> str:
    """Stem of the per-example artifact of one task."""
    return safe_name(f"{dataset}_{split}")


class NLEProbe(Probe):
    name = "nle"
    headline = (("s_t", ""), ("s_e/e_vil_score", ""), ("s_e/e_vil_score_no_spice", ""))
    description = "e-ViL explanation scores: S_T, S_E and S_O per NLG metric, combined e-ViL score, GT row"
    requires = ("explain",)
    requires_any = ("answer", "score_choices")
    needs = ("explanations",)
    options = {
        "metrics": Option("all", "comma-separated subset of bleu1..4, meteor, rouge_l, cider, spice, bertscore_f1"),
        "tokenize": Option("ptb", "tokenization for the pycocoevalcap metrics", choices=("ptb", "simple", "none")),
        "correct": Option("any", "when a VQA-accuracy answer counts as correct for S_E: any (acc > 0), "
                          "full (acc == 1), mode (equals the most common human answer)", choices=CORRECT_RULES),
        "gt": Option(True, "also score the references against each other (the GT row)"),
        "bertscore_model": Option("", "local model folder for BERTScore (default: harness resources)"),
        "bertscore_layers": Option(0, "BERTScore layer (0: the model's default)", min=0, max=1000),
        "bertscore_batch": Option(64, "BERTScore batch size", min=1, max=65_536),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        _metric_list(self.config["metrics"], METRICS)  # a mistyped metric: one line on load, before any work

    def cache_settings(self) -> dict:
        """BERTScore's model and layer when the options leave them to `$VQA_HARNESS_BERTSCORE_*`
        or the installed package (another layer or model gives other S_E numbers)."""
        return {"bertscore": bertscore_settings(self.config["bertscore_model"] or None)}

    def run(self, ctx: ProbeContext) -> list[ResultRow]:
        metrics = _metric_list(self.config["metrics"], METRICS)
        chosen = chosen_model_problem(self.config["bertscore_model"] or None) if "bertscore_f1" in metrics else ""
        if chosen:  # a model the user chose but mistyped: one line before any model call
            raise ResourceError(f"{chosen}; fix it, or leave bertscore_f1 out of the probe's metrics")
        ctx.tag("task", task_label(ctx.dataset, ctx.split))
        examples = ctx.examples
        if not ctx.labelled:
            ctx.metric_unavailable("s_t", "split has no ground truth")
            return []
        answers = _answers(ctx)
        ts = task_scores(examples, answers, self.config["correct"])
        rows = [ctx.row("s_t", ts.s_t, len(examples), ci=bootstrap_ci(ts.values, seed=ctx.seed))]

        write_scores(ctx, [ex.id for ex in examples], {"s_t": ts.values})
        idx = [i for i in np.flatnonzero(ts.correct) if examples[i].explanations]
        no_refs = int(ts.correct.sum()) - len(idx)
        rows.append(ctx.row("n_correct", len(idx), len(examples), unit="count", higher_is_better=None))
        explain_kw: dict[str, Any] = dict(
            metrics=metrics, tokenize=self.config["tokenize"],
            bertscore_model=self.config["bertscore_model"] or None,
            bertscore_layers=int(self.config["bertscore_layers"]) or None,
            batch_size=int(self.config["bertscore_batch"]),
            device=ctx.device,
        )
        per_example: dict[str, tuple[float, ...]] = {}
        hyps: list[str] = []
        errors = empty = 0
        if idx:
            sub = [examples[i] for i in idx]
            preds = ctx.predict(sub, "explain", answers=[answers[i] or "" for i in idx], variant="explain")
            for p in preds:
                text = p.explanation if p.ok and isinstance(p.explanation, str) else ""
                errors += not p.ok
                empty += not text.strip()
                hyps.append(text)
            result = nlg_scores(hyps, [list(ex.explanations) for ex in sub], **explain_kw)
            per_example = dict(result.per_example)
            for m, reason in result.unavailable.items():
                ctx.metric_unavailable(f"s_e/{m}", reason)
            for key, value in result.resources.items():
                ctx.use_resource(key, value)
            scores = dict(result.corpus)
            combined = e_vil_score(scores)
            if combined is not None:
                scores[combined[0]] = combined[1]
            elif why_not_combined(metrics, result.unavailable):
                ctx.metric_unavailable("s_e/e_vil_score", why_not_combined(metrics, result.unavailable))
            for m, s_e in scores.items():
                rows.append(ctx.row(f"s_e/{m}", s_e, len(idx), unit="score"))
                rows.append(ctx.row(f"s_o/{m}", ts.s_t * s_e, len(examples), unit="score"))
            rows.append(ctx.row("empty_explanations", empty, len(idx), unit="count", higher_is_better=None))
            _report(ctx, ts, len(idx), scores, combined, result.unavailable, empty, errors, no_refs)
        else:
            ctx.metric_unavailable("s_e", "no correctly answered example with a reference explanation")
        if self.config["gt"]:
            rows += _gt_rows(ctx, examples, explain_kw, e_vil_score, nlg_scores)
        _write_artifact(ctx, examples, answers, ts, idx, hyps, per_example)
        return rows

    @classmethod
    def layouts(cls) -> tuple[Layout, ...]:
        """Kayser Table 3 layout (S_O, S_T, S_E per dataset), human scores, automatic metrics."""
        return EVIL_LAYOUTS

    @classmethod
    def display(cls) -> Display:
        return EVIL_DISPLAY


def _metric_list(spec: str, known: Sequence[str]) -> tuple[str, ...]:
    if spec.strip() in ("", "all"):
        return tuple(known)
    chosen = tuple(m.strip() for m in spec.split(",") if m.strip())
    bad = [m for m in chosen if m not in known]
    if bad:
        raise UsageError(f"nle: unknown metric(s) {', '.join(bad)}; known: {', '.join(known)}")
    return chosen


def _answers(ctx: ProbeContext) -> list[str | None]:
    """The model's answers; by argmax of `score_choices` when it cannot answer openly."""
    if ctx.has("answer"):
        return [p.answer if p.ok else None for p in ctx.predict(ctx.examples, "answer")]
    preds = ctx.predict(ctx.examples, "score_choices")
    out: list[str | None] = []
    for ex, p in zip(ctx.examples, preds):
        if not p.ok or not p.choice_scores:
            out.append(None)
        else:
            out.append(ex.choices[int(np.argmax(p.choice_scores))])
    return out


def _gt_rows(ctx, examples, kw, e_vil_score, nlg_scores) -> list[ResultRow]:
    cands, refs, used = gt_pairs(examples)
    if not cands:
        ctx.metric_unavailable("s_e/* (GT)", "examples carry a single reference explanation; "
                               "the GT row needs at least two per example")
        return []

    def build() -> dict[str, float]:
        result = nlg_scores(cands, refs, **kw)
        found = dict(result.corpus)
        combined = e_vil_score(found)
        if combined is not None:
            found[combined[0]] = combined[1]
        return found

    # Model-independent: scored once per data and options, shared by every model and run.
    scores = ctx.memo("gt-scores", {k: v for k, v in kw.items() if k != "device"}, build)
    ctx.report(f"GT row: {len(cands)} reference-vs-others pairs from {used} examples "
               "(each reference scored against the other references of its example).")
    # Model-free references: no better direction (docs/leaderboard.md).
    return [ctx.row(f"s_e/{m}", v, len(cands), unit="score", variant=GT_VARIANT, higher_is_better=None)
            for m, v in scores.items()]


def _report(ctx, ts, n_correct, scores, combined, unavailable, empty, errors, no_refs) -> None:
    lines = [f"S_T ({ts.kind}) = {100 * ts.s_t:.2f} over {len(ts.values)} examples; "
             f"{n_correct} answered correctly (S_E is their mean score)."]
    lines += ["", "| metric | S_E | S_O = S_T·S_E |", "|---|---|---|"]
    for m, v in scores.items():
        lines.append(f"| {METRIC_LABELS.get(m, m)} | {v:.4f} | {ts.s_t * v:.4f} |")
    if combined is not None and combined[0].endswith("no_spice"):
        lines += ["", "The combined e-ViL score is computed WITHOUT SPICE (SPICE unavailable: "
                  f"{unavailable.get('spice', 'not requested')}): harmonic mean of BERTScore F1 and "
                  "the harmonic mean of ROUGE-L, CIDEr and METEOR; it is named `e_vil_score_no_spice`."]
    if empty or errors:
        lines += ["", f"{empty} of {n_correct} explanations were empty or not strings "
                  f"({errors} failed in the model) and were scored as empty explanations."]
    if no_refs:
        lines += ["", f"{no_refs} correctly answered examples have no reference explanation and are left out of S_E."]
    ctx.report("\n".join(lines))


def _write_artifact(ctx, examples, answers, ts, idx, hyps, per_example) -> None:
    stem = artifact_name(ctx.dataset, ctx.split)
    pos = {i: j for j, i in enumerate(idx)}
    records = []
    for i, ex in enumerate(examples):
        j = pos.get(i)
        rec = {"id": ex.id, "image_id": ex.image_id, "image": ex.image, "question": ex.question,
               "answer": answers[i], "task_score": float(ts.values[i]), "correct": bool(ts.correct[i]),
               "references": list(ex.explanations)}
        if j is not None:
            rec["explanation"] = hyps[j]
            rec["scores"] = {m: float(v[j]) for m, v in per_example.items()}
        records.append(rec)
    write_jsonl(ctx.artifact(f"{stem}.jsonl"), records)
    atomic_write_json(ctx.artifact(f"{stem}.meta.json"), {
        "dataset": ctx.dataset, "split": ctx.split, "model": ctx.model_spec, "run_id": ctx.run_id,
        "suite": ctx.suite, "train": ctx.train, "s_t": ts.s_t, "s_t_kind": ts.kind, "n": len(examples),
        "metrics": sorted(per_example),
    })


# ------------------------------------------------------------------------------ suites

#: The offline demo: the toy benchmark's reference explanations (part of `--suite toy`).
EVIL_TOY_SUITE = Suite(
    name="e-vil-toy",
    description="e-ViL scores (S_T, S_E, S_O) on the toy benchmark's explanations (offline)",
    tasks=(Task("toyvqa:variant=unbalanced", "val", ("nle",), train=("toyvqa:variant=unbalanced", "train"),
                label="unbalanced"),),
    toy=True,
)

#: The paper's protocol: train on train, score on test (VCR: its val, as the paper did).
EVIL_SUITE = Suite(
    name="e-vil",
    description="e-ViL (Kayser 2021): S_T, S_E, S_O on e-SNLI-VE, VQA-X, VCR — each dataset whose files "
                "are present (the others are named and skipped)",
    partial=True,
    tasks=(
        Task("e-snli-ve", "test", ("nle",), train=("e-snli-ve", "train"), label="e-SNLI-VE"),
        Task("vqa-x", "test", ("nle",), train=("vqa-x", "train"), label="VQA-X"),
        Task("vcr", "val", ("nle",), train=("vcr", "train"), label="VCR"),
    ),
)

#: What runs with only e-SNLI-VE dev and VQA-X val at hand: fit on one by-image half, score
#: on the other (datasets' `<split>-fit` / `<split>-eval` pseudo-splits).
EVIL_DEV_SUITE = Suite(
    partial=True,
    name="e-vil-dev",
    description="e-ViL on e-SNLI-VE dev and VQA-X val only: fit on a seeded by-image half, score the other",
    tasks=(
        Task("e-snli-ve", "dev-eval", ("nle",), train=("e-snli-ve", "dev-fit"), label="e-SNLI-VE dev halves"),
        Task("vqa-x", "val-eval", ("nle",), train=("vqa-x", "val-fit"), label="VQA-X val halves"),
    ),
)
