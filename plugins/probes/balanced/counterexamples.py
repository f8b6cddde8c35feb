"""Probe `counter-examples`: counter-example explanations, Recall@5 (Goyal et al. 2017, §5).

For each question Q on image I whose complementary question asks Q on another image I':
candidates = I' plus the K-1 images nearest to I in an image-feature space (K = 24). Three
rankers order the candidates, and Recall@5 is the share of questions with I' in the top 5:

- Random: a seeded random order (chance = 5/K);
- Distance: ascending feature distance to I;
- Model: ascending score of the model's predicted answer A (on I) when the model answers Q
  on each candidate image; needs `answer` with `Answer.scores`. An answer absent from a
  candidate's scores ranks as least likely (first).

Ties are broken by a seeded shuffle, never by candidate position. Questions are sampled
(seeded) down to `max_questions`, because the Model ranker costs K model calls each.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Mapping

import numpy as np

from harness.api import Layout, Option, Probe, ProbeContext
from harness.errors import UsageError
from harness.metrics import normalize_answer
from harness.types import Example, ResultRow

from .features import (
    BUILTIN,
    builtin_features,
    load_feature_file,
    nearest_candidates,
    question_rng,
    rank,
)
from .metrics import recall_at_k
from .tables import trained_condition

__all__ = ["CounterExampleProbe", "RANKERS", "select_questions", "model_scores"]

RANKERS = ("random", "distance", "model")
TOP = 5


def select_questions(examples: list[Example], limit: int, seed: int) -> list[int]:
    """Indices of questions with a complementary question on another image (seeded sample)."""
    index = {ex.id: i for i, ex in enumerate(examples)}
    eligible = [i for i, ex in enumerate(examples)
                if ex.pair_id in index and examples[index[ex.pair_id]].image_id != ex.image_id]
    if limit and len(eligible) > limit:
        rng = question_rng(seed, "counter-examples/sample")
        eligible = sorted(rng.sample(eligible, limit))
    return eligible


def model_scores(answer: str, scores: Mapping[str, float] | None) -> float:
    """The score of `answer` among a prediction's answer scores (-inf when absent)."""
    if not scores:
        return float("-inf")
    if answer in scores:
        return float(scores[answer])
    target = normalize_answer(answer)
    hits = [float(v) for k, v in scores.items() if normalize_answer(k) == target]
    return max(hits) if hits else float("-inf")


class CounterExampleProbe(Probe):
    name = "counter-examples"
    description = "counter-example explanations: Recall@5 of the complementary image (Random, Distance, Model)"
    options: ClassVar[Mapping[str, Option]] = {
        "k": Option(24, "candidates per question (the complement + k-1 nearest images)", min=2, max=10_000),
        "features": Option(BUILTIN, "image features: 'pixels' (built-in) or a .npz/.npy/.h5 file keyed by image id"),
        "max_questions": Option(300, "questions scored (seeded sample; 0 = all)", min=0, max=10_000_000),
    }

    def run(self, ctx: ProbeContext) -> list[ResultRow]:
        ctx.tag("trained", trained_condition(ctx.train))
        from harness.stats import wilson_interval

        k = int(self.config["k"])
        if k < 2:
            raise UsageError(f"probe 'counter-examples': k={k} must be at least 2")
        examples = ctx.examples
        chosen = select_questions(examples, int(self.config["max_questions"]), ctx.seed)
        metric = f"counterexample/recall@{TOP}"
        if not chosen:
            for r in RANKERS:
                ctx.metric_unavailable(f"{metric} ({r})", "no question has a complementary image")
            return []
        feats = self._features(ctx)
        if feats is None:
            return []
        ids = sorted(feats)
        if len(ids) < k:
            for r in RANKERS:
                ctx.metric_unavailable(f"{metric} ({r})", f"only {len(ids)} images with features, need k={k}")
            return []
        matrix = np.stack([feats[i] for i in ids])
        index = {ex.id: i for i, ex in enumerate(examples)}
        usable, cand_sets, dists = [], [], []
        for i in chosen:
            ex = examples[i]
            comp = examples[index[ex.pair_id]].image_id
            if ex.image_id not in feats or comp not in feats:
                continue
            cands, dist = nearest_candidates(ex.image_id, comp, ids, matrix, k)
            usable.append(i)
            cand_sets.append(cands)
            dists.append(dist)
        skipped = len(chosen) - len(usable)
        if not usable:
            for r in RANKERS:
                ctx.metric_unavailable(f"{metric} ({r})", "no sampled question has features for its images")
            return []
        targets = [examples[index[examples[i].pair_id]].image_id for i in usable]
        rankings = {
            "random": [rank(c, None, question_rng(ctx.seed, f"random/{examples[i].id}"))
                       for i, c in zip(usable, cand_sets)],
            "distance": [rank(c, d, question_rng(ctx.seed, f"distance/{examples[i].id}"))
                         for i, c, d in zip(usable, cand_sets, dists)],
        }
        model_rank = self._model_rankings(ctx, usable, cand_sets)
        if model_rank is not None:
            rankings["model"] = model_rank
        n = len(usable)
        rows = [ctx.row(f"{metric}", TOP / k, n, variant="chance")]
        for ranker, ranked in rankings.items():
            hits = recall_at_k(ranked, targets, TOP)
            s = int(hits.sum())
            rows.append(ctx.row(metric, s / n, n, ci=wilson_interval(s, n), variant=ranker))
        ctx.report(f"{n} questions scored with K={k} candidates (chance Recall@{TOP} = {TOP / k:.4f}); "
                   f"features: {self.config['features']}"
                   + (f"; {skipped} sampled question(s) skipped for lack of image features." if skipped else "."))
        return rows

    # ------------------------------------------------------------------ helpers
    def _features(self, ctx: ProbeContext) -> dict[str, np.ndarray] | None:
        source = str(self.config["features"])
        if source != BUILTIN:
            ctx.use_resource("counter-examples image features", str(Path(source).resolve()))
            return load_feature_file(Path(source))
        images = {}
        for ex in ctx.examples:
            images.setdefault(ex.image_id, ex.image)
        feats, missing = builtin_features(images)
        ctx.use_resource("counter-examples image features", "built-in pixels (8x8 RGB + 4x4x4 colour histogram)")
        if missing:
            ctx.report(f"{len(missing)} of {len(images)} images could not be read for features "
                       f"(first: {', '.join(missing[:3])}); questions on them are skipped.")
        if not feats:
            for r in RANKERS:
                ctx.metric_unavailable(f"counterexample/recall@{TOP} ({r})",
                                       f"no image could be read ({len(missing)} missing; pass features=<file>)")
            return None
        return feats

    def _model_rankings(self, ctx: ProbeContext, usable, cand_sets) -> list[list[str]] | None:
        metric = f"counterexample/recall@{TOP} (model)"
        if not ctx.has("answer"):
            ctx.metric_unavailable(metric, "the model has no `answer` capability")
            return None
        examples = ctx.examples
        originals = [examples[i] for i in usable]
        preds = ctx.predict(originals, "answer", variant="counterexample-original")
        image_of = {}
        for ex in examples:
            image_of.setdefault(ex.image_id, ex.image)
        copies = [ex.with_(id=f"{ex.id}@{img}", image_id=img, image=image_of.get(img, ""), answers=(),
                           label="", pair_id="", choices=(), explanations=(), meta={})
                  for ex, cands in zip(originals, cand_sets) for img in cands]
        cand_preds = ctx.predict(copies, "answer", variant="counterexample-candidates")
        if not any(p.ok and p.answer_scores for p in cand_preds):
            ctx.metric_unavailable(metric, "the model gives no answer scores (Answer.scores)")
            return None
        out, pos, failed = [], 0, 0
        for ex, pred, cands in zip(originals, preds, cand_sets):
            block = cand_preds[pos: pos + len(cands)]
            pos += len(cands)
            if not pred.ok or any(not p.ok for p in block):
                failed += 1
            answer = pred.answer or ""
            key = {c: (model_scores(answer, p.answer_scores) if p.ok else float("-inf"))
                   for c, p in zip(cands, block)}
            out.append(rank(cands, key, question_rng(ctx.seed, f"model/{ex.id}")))
        if failed:
            ctx.report(f"Model ranker: {failed} question(s) had a failed model call (failed candidates rank first).")
        return out

    @classmethod
    def layouts(cls) -> tuple[Layout, ...]:
        from .tables import COUNTEREXAMPLE_LAYOUTS

        return COUNTEREXAMPLE_LAYOUTS
