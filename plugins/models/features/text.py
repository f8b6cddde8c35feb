"""Text feature extractors: `hashed-bow` (default of the MLP probes) and `sentence`."""

from __future__ import annotations

import zlib
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from harness.api import FeatureExtractor, Option
from harness.errors import ResourceError
from vqa_harness_plugins.generators.decoys.similarity import question_embeddings, question_tokens

from .toy import l2

__all__ = ["HashedBagOfWords", "SentenceFeatures", "hashed_bow"]


def hashed_bow(text: str, dim: int) -> np.ndarray:
    """Hashed bag of unigrams and bigrams (CRC32 buckets), l2-normalized (zeros for empty text).

    Tokens as the decoy generator's (lower case, integers 0-10 spelled out, as in Chao et
    al. supplementary A.1)."""

    toks = question_tokens(text)
    grams = toks + [f"{a} {b}" for a, b in zip(toks, toks[1:])]
    vec = np.zeros(dim, dtype=np.float32)
    for g in grams:
        vec[zlib.crc32(g.encode()) % dim] += 1.0
    return l2(vec)


class HashedBagOfWords(FeatureExtractor):
    name = "hashed-bow"
    description = "hashed bag of unigrams + bigrams, l2-normalized (stands in for averaged word2vec)"
    modality: ClassVar[str] = "text"
    options: ClassVar[Mapping[str, Option]] = {"dim": Option(512, "number of hash buckets", min=1, max=1 << 22)}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._memo: dict[str, np.ndarray] = {}

    def encode(self, items: Sequence[str]) -> np.ndarray:
        dim = int(self.config["dim"])
        out = []
        for text in items:
            vec = self._memo.get(text)
            if vec is None:
                vec = self._memo[text] = hashed_bow(text, dim)
            out.append(vec)
        return np.stack(out) if out else np.zeros((0, dim), np.float32)


class SentenceFeatures(FeatureExtractor):
    name = "sentence"
    description = "mean-pooled all-MiniLM-L6-v2 (the local model of `harness resources`), l2-normalized"
    modality: ClassVar[str] = "text"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._memo: dict[str, np.ndarray] = {}

    def encode(self, items: Sequence[str]) -> np.ndarray:
        todo = sorted({t for t in items if t not in self._memo})
        if todo:
            try:
                embedded = question_embeddings(todo, embedding="sentence")
            except ResourceError as exc:
                raise ResourceError(f"feature extractor 'sentence': {exc}") from None
            for text, vec in zip(todo, embedded):
                self._memo[text] = l2(np.asarray(vec, np.float32)) if text.strip() else np.zeros_like(vec)
        return np.stack([self._memo[t] for t in items]) if items else np.zeros((0, 0), np.float32)
