"""What the grid-feature models share: `GridAnswerModel` and the torch layers they reuse.

`GridAnswerModel` is a `TorchAnswerModel` (training.py: soft-target training, the weight
cache, batch-size-independent inference, `answer`, `score_choices`) whose inputs are a
question (word tokens) and the image's grid features (`grid_features.GridFeatures`, option
`grid`). Subclasses build the network (`_new_net`) from `self.vocab`: `words`,
`grid_dim`, `regions`, `answers`. The network gets `take(idx)`'s tensors: the grids of the
batch's distinct images `[U, R, D]`, the image row of each example `[B]`, word ids
`[B, T]` and lengths `[B]`.

A learned *sentinel* region (option `sentinel`) is appended to every grid. Softmax
attention averages the regions it picks, so it cannot count; the weight the sentinel
keeps falls as more regions match (1 / (1 + m e^(s - s0)) for m matching regions), which
lets the attended vector carry the count (the "visual sentinel" of Lu et al. 2017). It is
our addition to the papers' models, for the toy counting questions; `sentinel=false`
gives the papers' attention.
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections import Counter
from typing import TYPE_CHECKING, Any, Sequence

from harness.api import Option
from harness.digest import digest
from harness.types import Example

from .grid_features import GRID_HELP, GridFeatures
from .softmax import softmax_lastdim
from .text import PAD, UNK, Vocab, tokenize
from .training import TRAINER_OPTIONS, Take, TorchAnswerModel

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["GridAnswerModel", "GRID_OPTIONS", "layers", "trainer_option"]


def trainer_option(name: str, default: Any, help: str) -> Option:
    """A trainer option (training.py) with another default and help, keeping its bounds."""
    return dataclasses.replace(TRAINER_OPTIONS[name], default=default, help=help)


#: Options of every grid model (subclasses override defaults and add more).
GRID_OPTIONS: dict[str, Option] = {
    **TRAINER_OPTIONS,
    "grid": Option("toy-cells", GRID_HELP),
    "embed": Option(64, "word-embedding size", min=1, max=65_536),
    "sentinel": Option(True, "append a learned sentinel region to every grid (lets softmax attention count)"),
}


class GridAnswerModel(TorchAnswerModel):
    """A TorchAnswerModel over (question tokens, grid features); see the module docstring."""

    options = GRID_OPTIONS
    #: Revisions of a model's numerics, part of its fingerprint: weights and predictions cached
    #: under an earlier revision are not served (MCB's convolution, the attention softmax).
    NUMERICS_MARKS: dict[str, Any] = {}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.grid = GridFeatures(self.config["grid"], owner=f"model {self.name!r}")

    def fingerprint_config(self) -> dict[str, Any]:
        return {**super().fingerprint_config(), **self.NUMERICS_MARKS}

    @property
    def uses_images(self) -> bool:  # type: ignore[override]
        """True for the toy grids (read from image files; the run checks the files first)."""
        return self.grid.reads_image_files

    def check_examples(self, examples: Sequence[Example]) -> None:
        """Every example of an evaluated split, before a probe runs: an image id missing from
        a grid feature file stops the run with one line instead of scoring 0."""
        self.grid.check(examples)

    # ---- vocabulary, cache key, inputs
    def _build_vocab(self, train: Sequence[Example]) -> dict[str, Any]:
        self.grid.check(train[:1])
        regions, width = self.grid.one(train[0]).shape
        counts = Counter(tok for ex in train for tok in tokenize(ex.question))
        words = Vocab.from_counts(counts, specials=(PAD, UNK))
        return {"words": list(words.items), "grid_dim": int(width), "regions": int(regions)}

    def _set_vocab(self, vocab: dict[str, Any]) -> None:
        super()._set_vocab(vocab)
        self._words = Vocab(tuple(vocab["words"]))

    def _train_groups(self, rows: Sequence[Example]) -> list[Any]:
        return [ex.image or ex.image_id for ex in rows]

    def _example_extra(self, ex: Example) -> Any:
        return self.grid.example_digest(ex)

    def weights_key(self, train: Sequence[Example], seed: int) -> str:
        """TorchAnswerModel's key plus the grid source (a feature file's path and stat)."""
        return digest({"base": super().weights_key(train, seed), "grid": self.grid.fingerprint()})

    def _tokens(self, examples: Sequence[Example]) -> tuple["torch.Tensor", "torch.Tensor"]:
        """Padded word ids [N, T] and lengths [N]; unknown words -> <unk>, empty -> one <unk>."""
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        unk = self._words.get(UNK)
        rows = [[self._words.get(t, unk) for t in tokenize(ex.question)] or [unk] for ex in examples]
        lengths = torch.tensor([len(r) for r in rows], dtype=torch.long)
        tokens = torch.zeros(len(rows), int(lengths.max()), dtype=torch.long)
        for r, row in enumerate(rows):
            tokens[r, : len(row)] = torch.tensor(row, dtype=torch.long)
        return tokens, lengths

    def _encode(self, examples: Sequence[Example]) -> Take:
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        self.grid.check(examples)
        bank, where = self.grid.bank(examples)
        bank_t, image_idx = torch.from_numpy(bank), torch.from_numpy(where)
        tokens, lengths = self._tokens(examples)

        def take(idx: torch.Tensor) -> tuple[torch.Tensor, ...]:
            # Each distinct image once per batch; `inverse` maps rows to their image.
            distinct, inverse = torch.unique(image_idx[idx], return_inverse=True)
            length = lengths[idx]
            return bank_t[distinct], inverse, tokens[idx, : int(length.max())], length

        return take

    def _fit_key(self, train_fingerprint: str, seed: int) -> Any:
        """TorchAnswerModel's fit key plus the grid source (a feature file's path and stat)."""
        return {**super()._fit_key(train_fingerprint, seed), "grid": self.grid.fingerprint()}

    def fingerprint_extra(self) -> Any:
        return {**super().fingerprint_extra(), "grid": self.grid.fingerprint()}


@functools.cache
def layers() -> Any:
    """The shared torch layers (built lazily so importing a plugin does not import torch)."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it
    import torch.nn as nn  # heavy: torch takes seconds to import; only code that computes needs it
    import torch.nn.functional as F  # heavy: imported on use

    class QuestionLSTM(nn.Module):
        """Word embedding (<pad> = 0, <unk> = 1 starts at zero) -> LSTM."""

        def __init__(self, n_words: int, embed: int, hidden: int, num_layers: int = 1) -> None:
            super().__init__()
            self.embed = nn.Embedding(n_words, embed, padding_idx=0)
            with torch.no_grad():
                self.embed.weight[1].zero_()
            self.lstm = nn.LSTM(embed, hidden, num_layers=num_layers, batch_first=True)

        def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            """(per-word states [B, T, H] (zero past the length), final state of every layer [B, L*H])."""
            packed = nn.utils.rnn.pack_padded_sequence(self.embed(tokens), lengths.cpu(), batch_first=True,
                                                       enforce_sorted=False)
            out, (h, _) = self.lstm(packed)
            out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=tokens.shape[1])
            return out, h.transpose(0, 1).reshape(tokens.shape[0], -1)

    def rows_of(bank: torch.Tensor, inverse: torch.Tensor, sentinel: torch.Tensor | None = None) -> torch.Tensor:
        """Each example's grid [B, R(+1), D], regions l2-normalized, the sentinel appended.

        index_select, not bank[inverse]: its backward is bit-reproducible on CPU.
        """
        grids = F.normalize(bank.float(), dim=-1).index_select(0, inverse)
        if sentinel is None:
            return grids
        return torch.cat([grids, sentinel.expand(grids.shape[0], 1, -1)], dim=1)

    def masked_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Softmax over the last dimension, masked entries at 0 (softmax.py: the backward in torch 2.13.0's order)."""
        return softmax_lastdim(logits.masked_fill(~mask, float("-inf")))

    def token_mask(tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return torch.arange(tokens.shape[1], device=tokens.device)[None, :] < lengths.to(tokens.device)[:, None]

    class ChoiceHead(nn.Module):
        """Chao et al. 2018 A.1 on [l2(context), l2(question), l2(candidate)]: one hidden
        layer, batch norm before ReLU, dropout 0.5 after it, one logit per candidate."""

        def __init__(self, width: int, hidden: int) -> None:
            super().__init__()
            self.mlp = nn.Sequential(nn.Linear(width, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
                                     nn.Dropout(0.5), nn.Linear(hidden, 1))

        def forward(self, context: torch.Tensor, cands: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            """context [B, Dc] (question features included), cands [B, C, Da], mask [B, C] -> logits [B, C]
            (0 where masked). Only valid rows reach the batch norm."""
            b, c, _ = cands.shape
            rows = torch.cat([context[:, None, :].expand(b, c, -1), F.normalize(cands, dim=-1)], dim=2)
            flat = rows.reshape(b * c, -1)
            idx = mask.reshape(-1).nonzero().squeeze(1)
            scores = self.mlp(flat.index_select(0, idx)).squeeze(1)
            return torch.zeros(b * c, dtype=scores.dtype, device=scores.device).index_copy(0, idx, scores).reshape(b, c)

    return types.SimpleNamespace(QuestionLSTM=QuestionLSTM, rows_of=rows_of, masked_softmax=masked_softmax,
                                 token_mask=token_mask, ChoiceHead=ChoiceHead)
