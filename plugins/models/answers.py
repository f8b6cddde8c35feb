"""What every built-in answer model shares: the answer-score conventions and errors."""

from __future__ import annotations

from typing import Mapping

from harness.errors import UsageError
from harness.types import Answer

__all__ = ["OUT_OF_VOCAB", "TOP_K", "not_fitted", "top_answers"]


#: `score_choices` value of a candidate the model cannot produce (outside its answer
#: vocabulary): a very low finite log-probability, so sums and sorts stay well defined.
OUT_OF_VOCAB = -1e9
#: How many answers `Answer.scores` carries (probabilities, best first).
TOP_K = 10


def not_fitted(name: str) -> UsageError:
    return UsageError(
        f"model {name!r} is trainable and has not been trained: it needs a train split "
        f"(a suite task with `train`, or call fit(train, seed=...) first)"
    )


def top_answers(dist: Mapping[str, float], k: int = TOP_K) -> Answer:
    ranked = sorted(dist.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return Answer(ranked[0][0], dict(ranked))


