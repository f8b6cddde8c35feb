"""Counting baselines: `prior` and `qtype-prior` (Goyal et al. 2017's "prior" rows).

- `prior` answers the most common canonical training answer ("yes" on VQA).
- `qtype-prior` answers the most common answer of the question's type, else the prior.
See docs/models.md.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any, Callable, Sequence

from harness.api import Model
from harness.digest import class_source_digest, digest
from harness.errors import DataError
from harness.types import Answer, Example

from .answers import OUT_OF_VOCAB, not_fitted, top_answers
from .text import canonical_answer, normalizer, train_digest

__all__ = ["PriorModel", "QTypePriorModel"]


class _CountingPrior(Model):
    """Answer distributions counted from training labels (no weights to cache)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._prior: dict[str, float] | None = None
        self._trained: str | None = None
        self._norm: Callable[[str], str] = str

    def _count(self, train: Sequence[Example]) -> None:
        norm_name, self._norm = normalizer()
        labels = [canonical_answer(ex, self._norm) for ex in train]
        if not any(labels):
            raise DataError(
                f"model {self.name!r}: the train split has no labels or answers to count"
            )
        self._prior = _distribution(Counter(a for a in labels if a))
        self._trained = digest({"train": train_digest(train), "normalizer": norm_name})
        self._labels = labels

    def fingerprint_extra(self) -> Any:
        return {"trained": self._trained}

    def fit_key(self, train_fingerprint: str, seed: int) -> Any:
        """Counting is exact: the training data, the normalizer and the code fix the model."""
        return {"train": train_fingerprint, "normalizer": normalizer()[0], "code": class_source_digest(type(self))}

    def _dist(self, ex: Example) -> dict[str, float]:
        if self._prior is None:
            raise not_fitted(self.name)
        return self._prior

    def answer(self, batch: Sequence[Example]) -> list[Answer]:
        """The most likely answer, with the top distribution as `scores`."""
        return [top_answers(self._dist(ex)) for ex in batch]

    def score_choices(self, batch: Sequence[Example]) -> list[list[float]]:
        """log P(candidate); OUT_OF_VOCAB for answers never seen in training."""
        out = []
        for ex in batch:
            dist = self._dist(ex)
            out.append(
                [
                    math.log(dist[c]) if (c := self._norm(ch)) in dist else OUT_OF_VOCAB
                    for ch in ex.choices
                ]
            )
        return out


def _distribution(counts: Counter[str]) -> dict[str, float]:
    total = sum(counts.values())
    return {a: n / total for a, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))}


class PriorModel(_CountingPrior):
    """Most common canonical training answer, whatever the question or image."""

    name = "prior"
    description = "Most common training answer (Goyal 2017 'prior'; 'yes' on VQA)"

    def fit(self, train: Sequence[Example], *, seed: int) -> None:
        """Count canonical answers in `train` (`seed` is unused: counting is exact)."""
        self._count(train)


class QTypePriorModel(_CountingPrior):
    """Most common training answer per question type, falling back to the global prior."""

    name = "qtype-prior"
    description = "Most common training answer per question type (falls back to the prior)"

    def fit(self, train: Sequence[Example], *, seed: int) -> None:
        """Count canonical answers per `question_type` in `train`."""
        self._count(train)
        per_type: dict[str, Counter[str]] = defaultdict(Counter)
        for ex, label in zip(train, self._labels):
            if label and ex.question_type:
                per_type[ex.question_type][label] += 1
        self._per_type = {qt: _distribution(c) for qt, c in per_type.items()}

    def _dist(self, ex: Example) -> dict[str, float]:
        if self._prior is None:
            raise not_fitted(self.name)
        return self._per_type.get(ex.question_type, self._prior)

    def input_key(self, example: Example, capability: str, extra: str = "") -> str:
        # This model reads `question_type`, which the default key does not cover.
        return super().input_key(example, capability, f"{extra}\x00qtype={example.question_type}")


