"""`qonly`: the language-only classifier (Goyal et al. 2017's "Language-only" baseline).

Bag of question unigrams and bigrams -> MLP -> answer vocabulary, trained with torch by
the shared trainer (training.py). See docs/models.md.
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import TYPE_CHECKING, Any, Sequence

from harness.api import Option
from harness.types import Example

from .text import PAD, UNK, Vocab, ngrams, tokenize
from .training import TRAINER_OPTIONS, Take, TorchAnswerModel

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["QOnlyModel"]



class QOnlyModel(TorchAnswerModel):
    """Language-only: mean of learned n-gram embeddings -> ReLU -> dropout -> answers."""

    name = "qonly"
    description = "Question-only classifier: bag of question unigrams+bigrams -> MLP (torch)"
    options = {
        **TRAINER_OPTIONS,
        "epochs": Option(8, "passes over the train split", min=1, max=1000),
        "dropout": Option(0.3, "dropout before the answer layer", min=0.0, max=0.99),
        "ngram": Option(2, "longest n-gram of question tokens used as a feature", min=1, max=10),
        "min_count": Option(1, "n-grams seen fewer times in train are dropped", min=1, max=1_000_000),
    }

    def _build_vocab(self, train: Sequence[Example]) -> dict[str, Any]:
        counts = Counter(
            g for ex in train for g in set(ngrams(tokenize(ex.question), self.config["ngram"]))
        )
        feats = Vocab.from_counts(counts, min_count=self.config["min_count"], specials=(PAD, UNK))
        return {"ngrams": list(feats.items)}

    def _set_vocab(self, vocab: dict[str, Any]) -> None:
        super()._set_vocab(vocab)
        self._feats = Vocab(tuple(vocab["ngrams"]))

    def _new_net(self) -> "torch.nn.Module":
        net_class = _qonly_net_class()
        return net_class(
            len(self._feats), self.config["hidden"], len(self.answers), self.config["dropout"]
        )

    def _encode(self, examples: Sequence[Example]) -> Take:
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        # Unknown n-grams are dropped (an empty bag embeds to zeros).
        rows = [
            sorted(
                {
                    i
                    for g in ngrams(tokenize(ex.question), self.config["ngram"])
                    if (i := self._feats.get(g))
                }
            )
            for ex in examples
        ]
        ids = torch.zeros(len(rows), max([1, *map(len, rows)]), dtype=torch.long)
        for r, row in enumerate(rows):
            ids[r, : len(row)] = torch.tensor(row, dtype=torch.long)
        return lambda idx: (ids[idx],)


@functools.cache
def _qonly_net_class() -> type:
    # Defined lazily so that importing the plugin does not import torch.
    import torch
    import torch.nn as nn  # heavy: torch takes seconds to import; only code that computes needs it

    class QOnlyNet(nn.Module):
        """Mean of n-gram embeddings (+ bias) -> ReLU -> dropout -> linear over answers.

        The mean over present n-grams (padding excluded) equals a linear layer applied to
        the normalized bag-of-n-grams vector; an empty bag embeds to zeros.
        """

        def __init__(self, n_feats: int, hidden: int, n_answers: int, dropout: float) -> None:
            super().__init__()
            self.bag = nn.EmbeddingBag(n_feats, hidden, mode="mean", padding_idx=0)
            self.bias = nn.Parameter(torch.zeros(hidden))
            self.head = nn.Sequential(nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, n_answers))

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            return self.head(self.bag(ids) + self.bias)

    return QOnlyNet
