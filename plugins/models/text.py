"""Text utilities of the built-in trainable models: tokens, vocabularies, soft targets.

Tokenization, question vocabularies, the answer vocabulary with VQA soft targets, and the
train-data digest that keys the weight cache. Pure Python (no torch) so it is cheap to
import and easy to test.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from harness.digest import digest_stream
from harness.metrics import normalize_answer
from harness.metrics.rule import canonical_answer
from harness.types import Example

__all__ = [
    "tokenize",
    "ngrams",
    "normalizer",
    "normalize",
    "canonical_answer",
    "Vocab",
    "build_answer_vocab",
    "answer_counts",
    "train_digest",
    "PAD",
    "UNK",
]

PAD = "<pad>"
UNK = "<unk>"

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens (letters/digits, keeping contractions like `what's`)."""
    return _TOKEN.findall(text.lower())


def ngrams(tokens: Sequence[str], n_max: int = 2) -> list[str]:
    """Unigrams and, up to `n_max`, higher n-grams joined by spaces."""
    out = list(tokens)
    for n in range(2, n_max + 1):
        out += [" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    return out


def _lower_collapse(text: str) -> str:
    return " ".join(text.replace("\n", " ").replace("\t", " ").lower().split())


def _official_lower(text: str) -> str:
    # The official processing does not lower-case on its own in every path; a classifier's
    # vocabulary should not distinguish "Yes" from "yes".
    return _lower_collapse(normalize_answer(text))


def normalizer() -> tuple[str, Callable[[str], str]]:
    """The answer normalizer and its name (the name goes into the weight-cache key): the
    official VQA normalization (`harness.metrics.normalize_answer`), lower-cased."""
    return "vqa-official+lower", _official_lower


def normalize(text: str) -> str:
    """Normalize one answer string with `normalizer()`."""
    return normalizer()[1](text)




@dataclass(frozen=True)
class Vocab:
    """An ordered list of strings with a lookup table (index = position)."""

    items: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {s: i for i, s in enumerate(self.items)})

    def __len__(self) -> int:
        return len(self.items)

    def get(self, item: str, default: int | None = None) -> int | None:
        """Index of `item`, or `default` when absent."""
        return self._index.get(item, default)  # type: ignore[attr-defined]

    def __contains__(self, item: object) -> bool:
        return item in self._index  # type: ignore[attr-defined]

    @classmethod
    def from_counts(
        cls,
        counts: Counter[str],
        *,
        max_size: int | None = None,
        min_count: int = 1,
        specials: Sequence[str] = (),
    ) -> "Vocab":
        """Most frequent first, ties broken alphabetically (deterministic), after `specials`."""
        ranked = sorted(
            (c for c in counts if counts[c] >= min_count), key=lambda s: (-counts[s], s)
        )
        if max_size is not None:
            ranked = ranked[:max_size]
        return cls(tuple(specials) + tuple(ranked))


def build_answer_vocab(
    train: Sequence[Example], max_answers: int, norm: Callable[[str], str]
) -> Vocab:
    """The `max_answers` most frequent canonical answers in `train` (empty ones skipped)."""
    counts = Counter(canonical_answer(ex, norm) for ex in train)
    counts.pop("", None)
    return Vocab.from_counts(counts, max_size=max_answers)


def answer_counts(example: Example, answers: Vocab, norm: Callable[[str], str]) -> dict[int, float]:
    """VQA soft scores min(1, count / 3) of in-vocabulary answers, for one example.

    The human answers are used when present, else the label alone. The result is NOT
    normalized; the trainers normalize it into a target distribution.
    """
    humans = [norm(a) for a in example.answers] or ([norm(example.label)] if example.label else [])
    counts = Counter(humans)
    out: dict[int, float] = {}
    for text, n in counts.items():
        idx = answers.get(text)
        if idx is not None:
            out[idx] = min(1.0, n / 3.0)
    return out


def train_digest(train: Iterable[Example], *, extra: Callable[[Example], Any] | None = None) -> str:
    """sha256 over what training reads from each example, in order.

    Covers id, question, answers, label, question type and image path; `extra` adds more
    per example (e.g. a hash of the image bytes for image models).
    """
    def rows():
        for ex in train:
            row = [ex.id, ex.question, list(ex.answers), ex.label, ex.question_type, ex.image]
            if extra is not None:
                row.append(extra(ex))
            yield row

    return digest_stream(rows())
