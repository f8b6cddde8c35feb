"""The counter-examples probe's rankings file: per question, everything its Recall@5 hits
follow from, so a researcher can re-derive (or re-score) each one (docs/balanced-vqa.md).

`artifacts/counter-examples/<dataset>/<split>/<task>/rankings-<dataset>-<split>.jsonl`, one
JSON object per scored question, in the order of the per-example score files:

- `id`, `image_id` (I), `complement` (I');
- `candidates`: the K candidates as the probe builds them (I', then the K-1 images nearest
  to I by ascending distance, ties by image id), and `distances` to I, aligned with them;
- `shown`: per ranker that shows the model all candidates at once (`trained`), the order it
  was given them in (`score_images`' scores are in this order);
- `scores`: per model ranker, the scores it sorted, rounded as ranked (`significant`):
  `model`, aligned with `candidates` (the score of the model's answer on each image, ascending;
  null: the answer absent from that image's scores, or a failed call), `trained`, aligned with
  `shown.trained` (`score_images`, descending; null: a failed call, every candidate tied);
- `rankings`: per ranker, the candidates best first, after the seeded tie-break
  (`rank(order, key, question_rng(seed, "<ranker>/<id>"))`, where `order` is `shown.trained`
  for `trained` and `candidates` for the others);
- `hits`: per ranker, 1 when I' is in the first 5 (the per-example scores).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping, Sequence

from harness.fileio import write_jsonl

__all__ = ["write_rankings"]


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def write_rankings(path: Path, ids: Sequence[str], images: Sequence[str], targets: Sequence[str],
                   cand_sets: Sequence[Sequence[str]], dists: Sequence[Mapping[str, float]],
                   rankings: Mapping[str, Sequence[Sequence[str]]], top: int,
                   shown: Mapping[str, Sequence[Sequence[str]]],
                   keys: Mapping[str, Sequence[Mapping[str, float]]]) -> None:
    """Write the file described above. `shown[ranker][q]` is the order `keys[ranker][q]` is
    written in (the candidates' order when `ranker` is not in `shown`)."""
    def records():
        for q, (qid, image, target, cands) in enumerate(zip(ids, images, targets, cand_sets)):
            scores = {}
            for ranker, per_question in keys.items():
                order = shown[ranker][q] if ranker in shown else cands
                scores[ranker] = [_finite(per_question[q][c]) for c in order]
            yield {"id": qid, "image_id": image, "complement": target, "candidates": list(cands),
                   "distances": [dists[q][c] for c in cands],
                   "shown": {r: list(orders[q]) for r, orders in shown.items()}, "scores": scores,
                   "rankings": {r: list(ranked[q]) for r, ranked in rankings.items()},
                   "hits": {r: int(target in ranked[q][:top]) for r, ranked in rankings.items()}}

    write_jsonl(path, records())
