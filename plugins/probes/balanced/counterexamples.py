"""Probe `counter-examples`: counter-example explanations, Recall@5 (Goyal et al. 2017, §5).

For each question Q on image I whose complementary question asks Q on another image I':
candidates = I' plus the K-1 images nearest to I in an image-feature space (K = 24). Up to
four rankers order the candidates, and Recall@5 is the share of questions with I' in the
top 5:

- Random: a seeded random order (chance = 5/K);
- Distance: ascending feature distance to I;
- Model (the paper's "VQA model" baseline): ascending score of the model's predicted
  answer A (on I) when the model answers Q on each candidate image; needs `answer` with
  `Answer.scores`. An answer absent from a candidate's scores ranks as least likely
  (first). Not applicable (no number, the reason in the report) when the model does not
  read the image (`Model.inputs` without "image") or when its score for A is the same on
  every candidate of every question: its answer scores do not depend on the image, and
  the ranking would only be the random tie-break.
- Model (trained): descending `score_images` (a trained counter-example explainer such as
  `counterexample-explainer`): the model gets Q, the answer to explain (the ground-truth
  answer as in the paper's Table 4, or its own prediction: option `explain_answer`) and
  the K candidates in a seeded random order.

Per-question hits (1 when I' is in the top 5) of each ranker go to the run's per-example
scores (harness.perexample), so `harness compare` tests two models' Recall@5 on the same
questions (exact McNemar and paired bootstrap). Ties are broken by a seeded shuffle, never by
candidate position; the two model rankers compare scores to 6 significant digits
(`significant`), which makes a reordering by last-bit differences between machines unlikely
(it still happens when two scores straddle a rounding boundary). Questions are sampled
(seeded) down to `max_questions`, because the Model ranker costs K model calls each. The
report also gives each ranker's Recall@5 on the questions whose complement is among the
K-1 nearest images (Goyal's I' in I_NN) and on the others (where Distance cannot hit).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import ClassVar, Mapping, Sequence

import numpy as np

from harness.api import Display, Layout, Option, Probe, ProbeContext
from harness.errors import UsageError
from harness.metrics import normalize_answer
from harness.metrics.rule import canonical_answer
from harness.perexample import write_scores
from harness.rundir import safe_name
from harness.stats import wilson_interval
from harness.types import CANDIDATE_IMAGES, Example, ResultRow
from vqa_harness_plugins.models.features.candidates import (
    BUILTIN,
    builtin_features,
    load_feature_file,
    nearest_candidates,
    question_rng,
    rank,
)
from vqa_harness_plugins.models.features.files import file_stamp

from .display import COUNTEREXAMPLE_DISPLAY
from .metrics import recall_at_k
from .rankings import write_rankings
from .tables import COUNTEREXAMPLE_LAYOUTS, trained_condition

__all__ = ["CounterExampleProbe", "RANKERS", "select_questions", "model_scores", "image_independent", "significant"]

RANKERS = ("random", "distance", "model", "trained")
#: Rankers that do not use the model: the same value for every model on the same data.
MODEL_FREE = ("random", "distance")
TOP = 5
#: Scores closer than this (relative to their size) count as equal in `image_independent`.
SAME_SCORE = 1e-6


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


def significant(key: Mapping[str, float], digits: int = 6) -> dict[str, float]:
    """A ranking key with each model score rounded to `digits` significant digits (the
    precision `SAME_SCORE` stands for): scores that agree that far tie and the seeded shuffle
    orders them, so a difference in the last bits (another CPU model, another batch shape)
    reorders candidate images only when two scores straddle a rounding boundary. Infinite
    scores (absent answers) stay as they are."""
    return {c: float(f"{v:.{digits}g}") if math.isfinite(v) else v for c, v in key.items()}


def image_independent(blocks: Sequence[Sequence[float]]) -> bool:
    """True when every block (one question's scores over its candidate images) is constant,
    up to SAME_SCORE relative to the largest magnitude (absent answers: all -inf)."""
    for block in blocks:
        finite = [v for v in block if math.isfinite(v)]
        if len(finite) not in (0, len(block)):
            return False
        if finite and max(finite) - min(finite) > SAME_SCORE * max(1.0, max(abs(v) for v in finite)):
            return False
    return True


class CounterExampleProbe(Probe):
    name = "counter-examples"
    headline = (("counterexample/recall@5", "model"), ("counterexample/recall@5", "trained"))
    description = ("counter-example explanations: Recall@5 of the complementary image (Random, Distance, Model, "
                   "Model (trained))")
    needs = ("pair_id",)
    options: ClassVar[Mapping[str, Option]] = {
        "k": Option(24, "candidates per question (the complement + k-1 nearest images)", min=2, max=10_000),
        "features": Option(BUILTIN, "image features: 'pixels' (built-in) or a .npz/.npy/.h5 file keyed by image id"),
        "max_questions": Option(300, "questions scored (seeded sample; 0 = all)", min=0, max=10_000_000),
        "explain_answer": Option("truth", "answer the trained ranker explains: 'truth' (the ground-truth answer, "
                                 "Goyal Table 4) or 'predicted' (the model's own answer on I)",
                                 choices=("truth", "predicted")),
    }

    def cache_settings(self) -> dict:
        """A feature file's resolved path, size and modification time (for a `.npy`, its id
        list's too): an edited file ranks again instead of restoring the output stored before."""
        source = str(self.config["features"])
        return {} if source == BUILTIN else {"features": file_stamp(source)}

    def run(self, ctx: ProbeContext) -> list[ResultRow]:
        ctx.tag("trained", trained_condition(ctx.train))

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
        # Candidates are the split's images with features: a model is shown each candidate, so
        # an image of the feature file that no question of the split has (a COCO-wide file,
        # a --limit run) would reach it without its file.
        in_split = {ex.image_id for ex in examples}
        ids = sorted(i for i in feats if i in in_split)
        pool = len(ids)
        if pool < k:
            for r in RANKERS:
                ctx.metric_unavailable(f"{metric} ({r})", f"only {pool} images of the split have features, "
                                                          f"need k={k}")
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
        shown: dict[str, list] = {}  # the order each model ranker's candidates were shown in
        keys: dict[str, list] = {}  # the scores it sorted, rounded as ranked
        model_rank = self._model_rankings(ctx, usable, cand_sets, keys)
        if model_rank is not None:
            rankings["model"] = model_rank
        trained_rank = self._trained_rankings(ctx, usable, cand_sets, shown, keys)
        if trained_rank is not None:
            rankings["trained"] = trained_rank
        n = len(usable)
        rows = [ctx.row(f"{metric}", TOP / k, n, variant="chance", higher_is_better=None)]  # a chance level
        hits_of = {}
        ids = [examples[i].id for i in usable]
        for ranker, ranked in rankings.items():
            hits_of[ranker] = hits = recall_at_k(ranked, targets, TOP)
            s = int(hits.sum())
            # Random and Distance rank without the model: references, not a model's score
            # (docs/leaderboard.md, "Which direction is better").
            rows.append(ctx.row(metric, s / n, n, ci=wilson_interval(s, n), variant=ranker,
                                **({"higher_is_better": None} if ranker in MODEL_FREE else {})))
            # Per-question hits (0/1) for paired comparisons: `harness compare` (McNemar) and the site.
            write_scores(ctx, ids, {metric: hits}, variant=ranker)
        # Everything the hits follow from, per question (rankings.py): candidates, order shown, scores, rankings.
        write_rankings(ctx.artifact(f"rankings-{safe_name(ctx.dataset)}-{ctx.split}.jsonl"), ids,
                       [examples[i].image_id for i in usable], targets, cand_sets, dists, rankings, TOP,
                       {r: shown[r] for r in rankings if r in shown}, {r: keys[r] for r in rankings if r in keys})
        ctx.report(f"{n} questions scored with K={k} candidates (chance Recall@{TOP} = {TOP / k:.4f}) drawn from "
                   f"the split's {pool} images with features ({len(feats)} in the features); "
                   f"features: {self.config['features']}"
                   + (f"; {skipped} sampled question(s) skipped for lack of image features." if skipped else "."))
        ctx.report(_neighbourhood_note(hits_of, targets, cand_sets, dists))
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

    def _model_rankings(self, ctx: ProbeContext, usable, cand_sets, keys_out: dict) -> list[list[str]] | None:
        metric = f"counterexample/recall@{TOP} (model)"
        if not ctx.has("answer"):
            ctx.metric_unavailable(metric, "the model has no `answer` capability")
            return None
        inputs = ctx.model_inputs
        if inputs is not None and "image" not in inputs:
            _not_applicable(ctx, "model", f"not applicable: the model does not read the image (inputs: "
                                          f"{', '.join(sorted(inputs)) or 'none'}), so its answer scores cannot "
                                          "rank candidate images")
            return None
        examples = ctx.examples
        originals = [examples[i] for i in usable]
        preds = ctx.predict(originals, "answer", variant="counterexample-original")
        image_of = _image_paths(examples)
        copies = [ex.with_(id=f"{ex.id}@{img}", image_id=img, image=image_of.get(img, ""), answers=(),
                           label="", pair_id="", choices=(), explanations=(), meta={})
                  for ex, cands in zip(originals, cand_sets) for img in cands]
        cand_preds = ctx.predict(copies, "answer", variant="counterexample-candidates")
        if not any(p.ok and p.answer_scores for p in cand_preds):
            ctx.metric_unavailable(metric, "the model gives no answer scores (Answer.scores)")
            return None
        keys, pos, failed = [], 0, 0
        for pred, cands in zip(preds, cand_sets):
            block = cand_preds[pos: pos + len(cands)]
            pos += len(cands)
            if not pred.ok or any(not p.ok for p in block):
                failed += 1
            answer = pred.answer or ""
            keys.append({c: (model_scores(answer, p.answer_scores) if p.ok else float("-inf"))
                         for c, p in zip(cands, block)})
        if image_independent([list(key.values()) for key in keys]):
            _not_applicable(ctx, "model", "not applicable: the model's score for its answer is the same on every "
                                          f"candidate image of all {len(keys)} questions (its answer scores do not "
                                          "depend on the image), so the ranking would be the random tie-break")
            return None
        keys_out["model"] = [significant(key) for key in keys]
        out = [rank(cands, key, question_rng(ctx.seed, f"model/{ex.id}"))
               for ex, cands, key in zip(originals, cand_sets, keys_out["model"])]
        if failed:
            ctx.report(f"Model ranker: {failed} question(s) had a failed model call (failed candidates rank first).")
        return out

    def _trained_rankings(self, ctx: ProbeContext, usable, cand_sets, shown_out: dict, keys_out: dict
                          ) -> list[list[str]] | None:
        """Descending `score_images` of a trained explainer; candidates passed in a seeded
        random order (the complement's position tells nothing), kept in `shown_out`, and the
        scores (rounded; NaN: a failed call) in `keys_out`."""
        metric = f"counterexample/recall@{TOP} (trained)"
        if not ctx.has("score_images"):
            ctx.metric_unavailable(metric, "the model has no `score_images` capability (a trained counter-example "
                                           "explainer, e.g. counterexample-explainer)")
            return None
        found = ctx.train_examples() if ctx.train else None
        if found is not None and not select_questions(found[0], 1, ctx.seed):
            _not_applicable(ctx, "trained", f"not applicable: the model was trained on {found[1]}, which has no "
                                            "complementary pairs to learn counter-examples from")
            return None
        examples = ctx.examples
        originals = [examples[i] for i in usable]
        if self.config["explain_answer"] == "predicted":
            if not ctx.has("answer"):
                ctx.metric_unavailable(metric, "explain_answer=predicted needs the model's `answer` capability")
                return None
            preds = ctx.predict(originals, "answer", variant="counterexample-original")
            answers = [p.answer or "" for p in preds]
        else:

            answers = [canonical_answer(ex) for ex in originals]
        image_of = _image_paths(examples)
        queries = []
        for ex, cands in zip(originals, cand_sets):
            shown = rank(cands, None, question_rng(ctx.seed, f"trained-order/{ex.id}"))
            queries.append(ex.with_(meta={**ex.meta, CANDIDATE_IMAGES: [[c, image_of.get(c, "")] for c in shown]}))
        preds = ctx.predict(queries, "score_images", variant="counterexample-trained", answers=answers)
        out, failed, orders, scores = [], 0, [], []
        for ex, query, pred in zip(originals, queries, preds):
            shown = [c for c, _ in query.meta[CANDIDATE_IMAGES]]
            if not pred.ok or pred.choice_scores is None:
                failed += 1
                key = {c: 0.0 for c in shown}
                scores.append({c: math.nan for c in shown})
            else:
                key = {c: -float(v) for c, v in zip(shown, pred.choice_scores)}
                scores.append(significant({c: float(v) for c, v in zip(shown, pred.choice_scores)}))
            orders.append(shown)
            out.append(rank(shown, significant(key), question_rng(ctx.seed, f"trained/{ex.id}")))
        shown_out["trained"], keys_out["trained"] = orders, scores
        if failed == len(out):
            ctx.metric_unavailable(metric, f"every score_images call failed ({failed}); see the model errors")
            return None
        if failed:
            ctx.report(f"Model (trained) ranker: {failed} question(s) had a failed model call (ranked at random).")
        which = "the ground-truth answer" if self.config["explain_answer"] == "truth" else "the model's answer"
        ctx.report(f"Model (trained) ranker: `score_images` explaining {which} to each question.")
        return out

    @classmethod
    def layouts(cls) -> tuple[Layout, ...]:
        return COUNTEREXAMPLE_LAYOUTS

    @classmethod
    def display(cls) -> Display:
        return COUNTEREXAMPLE_DISPLAY


def _not_applicable(ctx: ProbeContext, ranker: str, reason: str) -> None:
    """A ranker that does not apply to this model: the reason in the report, and the row tag
    `n/a:<metric>:<ranker>` so the leaderboard shows "n/a" with it (docs/leaderboard.md)."""
    metric = f"counterexample/recall@{TOP}"
    ctx.metric_unavailable(f"{metric} ({ranker})", reason)
    ctx.tag(f"n/a:{metric}:{ranker}", reason)


def _image_paths(examples: Sequence[Example]) -> dict[str, str]:
    image_of: dict[str, str] = {}
    for ex in examples:
        image_of.setdefault(ex.image_id, ex.image)
    return image_of


def _neighbourhood_note(hits_of: Mapping[str, np.ndarray], targets: Sequence[str], cand_sets, dists) -> str:
    """Recall@5 per ranker on questions whose complement is among the K-1 nearest images
    (Goyal's setting: I' in I_NN) and on the others (forced into the candidates)."""
    inside = np.array([dist[t] <= max(dist[c] for c in cands if c != t)
                       for t, cands, dist in zip(targets, cand_sets, dists)], dtype=bool)
    parts = []
    for ranker, hits in hits_of.items():
        near = f"{100 * hits[inside].mean():.1f}" if inside.any() else "-"
        far = f"{100 * hits[~inside].mean():.1f}" if (~inside).any() else "-"
        parts.append(f"{ranker} {near} / {far}")
    return (f"The complement is among the K-1 nearest images for {int(inside.sum())} of {len(inside)} questions. "
            f"Recall@{TOP} (%) there / on the others: " + ", ".join(parts) + ".")
