"""`cnn-lstm`: image + question baseline in the spirit of "deeper LSTM Q + norm I".

A small CNN turns the image into a grid of region features (conv-BN-ReLU-pool blocks; each
region vector l2-normalized, projected, tanh), an LSTM encodes the question (last hidden
state -> linear -> tanh), the question vector is multiplied point-wise with every region
vector, and an MLP over the pooled product scores the answer vocabulary (Antol et al. 2015
as used by Goyal et al. 2017, scaled down to train on 2 CPU cores in about a minute).

One deliberate change from the original: the product is taken per image region, with a
linear+ReLU applied before the regions are summed, instead of on one global image vector.
With a from-scratch CNN and a few thousand questions, a global vector did not beat the
question-only model on the balanced toy data (see docs/models.md); the per-region product
lets the question pick out "the small red box" and lets sums count.
Training, the weight cache and inference come from `baselines.TorchAnswerModel`.
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from typing import TYPE_CHECKING, Any, Sequence

from harness.api import Option
from harness.digest import digest_bytes
from harness.errors import DataError, UsageError
from harness.images import image_array
from harness.types import BLANK_IMAGE, Example

from .sizes import SizedModel, Sizes
from .text import PAD, UNK, Vocab, tokenize
from .training import TRAINER_OPTIONS, Take, TorchAnswerModel

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["CNNLSTMModel", "image_digest", "decode_images"]


class CNNLSTMModel(SizedModel, TorchAnswerModel):
    """Small CNN over the image x LSTM over the question -> MLP over answers."""

    name = "cnn-lstm"
    uses_images = True
    description = "Small CNN (image) x LSTM (question), point-wise product -> MLP over answers"
    # d-LSTM+nI's code (VQA_LSTM_CNN): 200-d word encodings, a 1,024-d common embedding
    # (its LSTM: 2 x 512; here one LSTM of `hidden` units feeds the common space).
    size_presets = Sizes(toy={"hidden": 128, "embed": 64}, paper={"hidden": 1024, "embed": 200},
                         source="d-LSTM+nI, the VQA_LSTM_CNN code Goyal et al. 2017 use")
    options = size_presets.options({
        **TRAINER_OPTIONS,
        "epochs": Option(15, "passes over the train split (25 gains ~4 points on balanced toy data)",
                         min=1, max=1000),
        "hidden": Option(128, "size of the question vector and of the joint region-question space",
                         min=1, max=65_536),
        "lr": Option(3e-3, "peak Adam learning rate (warm-up, then cosine decay)", min=0.0, max=10.0),
        "batch_size": Option(
            48, "training batch size in questions (inference does not depend on it)", min=1, max=65_536
        ),
        "dropout": Option(0.1, "dropout in the answer MLP", min=0.0, max=0.99),
        "image_size": Option(32, "images are resized to image_size x image_size (a multiple of 8)",
                             min=8, max=1024),
        "channels": Option(16, "channels of the first conv block (doubled per block, 3 blocks)",
                           min=1, max=1024),
        "embed": Option(64, "word-embedding size", min=1, max=65_536),
    })

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        size = self.config["image_size"]
        if size < 8 or size % 8:
            raise UsageError(
                f"model 'cnn-lstm': option image_size={size} must be a multiple of 8 (>= 8)"
            )

    # ---- vocabulary and inputs
    def _build_vocab(self, train: Sequence[Example]) -> dict[str, Any]:
        counts = Counter(tok for ex in train for tok in tokenize(ex.question))
        return {"words": list(Vocab.from_counts(counts, specials=(PAD, UNK)).items)}

    def _set_vocab(self, vocab: dict[str, Any]) -> None:
        super()._set_vocab(vocab)
        self._words = Vocab(tuple(vocab["words"]))

    def _train_groups(self, rows: Sequence[Example]) -> list[Any]:
        return [ex.image for ex in rows]

    def _example_extra(self, ex: Example) -> Any:
        # The pixels, not just the path, are training data (regenerated images keep paths).
        return image_digest(ex.image)

    def _encode(self, examples: Sequence[Example]) -> Take:
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        size = self.config["image_size"]
        paths = list(dict.fromkeys(ex.image for ex in examples))
        bank = decode_images(paths, size)  # each distinct image decoded once, uint8
        where = {p: i for i, p in enumerate(paths)}
        image_idx = torch.tensor([where[ex.image] for ex in examples], dtype=torch.long)
        unk = self._words.get(UNK)
        # Unknown words map to <unk>. Every training word is in the vocabulary, so <unk>
        # is (almost) never trained; its embedding starts at zero rather than random
        # noise. An empty question is one <unk>.
        rows = [
            [self._words.get(t, unk) for t in tokenize(ex.question)] or [unk] for ex in examples
        ]
        lengths = torch.tensor([len(r) for r in rows], dtype=torch.long)
        tokens = torch.zeros(len(rows), int(lengths.max()), dtype=torch.long)
        for r, row in enumerate(rows):
            tokens[r, : len(row)] = torch.tensor(row, dtype=torch.long)

        def take(idx: torch.Tensor) -> tuple[torch.Tensor, ...]:
            # Each distinct image goes through the CNN once per batch; `inverse` maps
            # rows back to their image (per-row results do not depend on the batch).
            distinct, inverse = torch.unique(image_idx[idx], return_inverse=True)
            length = lengths[idx]
            return bank[distinct], inverse, tokens[idx, : int(length.max())], length

        return take

    def _new_net(self) -> "torch.nn.Module":
        cfg = self.config
        return _net_class()(
            n_words=len(self._words),
            n_answers=len(self.answers),
            hidden=cfg["hidden"],
            embed=cfg["embed"],
            channels=cfg["channels"],
            dropout=cfg["dropout"],
        )


# ------------------------------------------------------------------------ images

_DIGESTS: dict[tuple[str, int, int], str] = {}


def image_digest(path: str) -> str:
    """sha256 of an image file's bytes (memoized by path, size and mtime); sentinels as is."""
    if path == BLANK_IMAGE or not path:
        return path
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise DataError(f"image file not found: {path}") from None
    key = (path, st.st_size, st.st_mtime_ns)
    if key not in _DIGESTS:
        with open(path, "rb") as fh:
            _DIGESTS[key] = digest_bytes(fh.read())
    return _DIGESTS[key]


def decode_images(paths: Sequence[str], size: int) -> "torch.Tensor":
    """Decode `paths` once into a uint8 tensor [N, 3, size, size] (blank sentinel: gray)."""
    import numpy as np  # heavy: numpy is loaded only where arrays are computed
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    out = np.empty((len(paths), size, size, 3), dtype=np.uint8)
    for i, path in enumerate(paths):
        out[i] = image_array(path, (size, size))  # decoded once per process (bounded cache)
    return torch.from_numpy(out).permute(0, 3, 1, 2).contiguous()


# ----------------------------------------------------------------------- network


@functools.cache
def _net_class() -> type:
    # Defined lazily so that importing the plugin does not import torch.
    import torch
    import torch.nn as nn  # heavy: torch takes seconds to import; only code that computes needs it
    import torch.nn.functional as F  # heavy: imported on use

    class CNNLSTMNet(nn.Module):
        """Regions x question, point-wise, then pooled (see the module docstring).

        Image: 3 x (conv3x3-BN-ReLU-maxpool2) -> a grid of region features, each
        l2-normalized ("norm I") -> 1x1 linear -> tanh. Question: embedding -> LSTM -> last
        hidden state -> linear -> tanh. Each region vector is multiplied point-wise by the
        question vector, passed through linear+ReLU, and the regions are summed (sums can
        count); an MLP maps the result to answer logits.
        """

        def __init__(
            self,
            *,
            n_words: int,
            n_answers: int,
            hidden: int,
            embed: int,
            channels: int,
            dropout: float,
        ) -> None:
            super().__init__()
            blocks: list[nn.Module] = []
            c_in = 3
            for c_out in (channels, channels * 2, channels * 4):
                blocks += [
                    nn.Conv2d(c_in, c_out, 3, padding=1, bias=False),
                    nn.BatchNorm2d(c_out),
                    nn.ReLU(inplace=True),
                    # Average pooling: as accurate here as max pooling and, in
                    # channels-last layout, twice as fast on CPU.
                    nn.AvgPool2d(2),
                ]
                c_in = c_out
            self.cnn = nn.Sequential(*blocks).to(memory_format=torch.channels_last)
            self.region_proj = nn.Conv2d(c_in, hidden, 1)
            self.embed = nn.Embedding(n_words, embed, padding_idx=0)
            with torch.no_grad():
                self.embed.weight[1].zero_()  # <unk>: see CNNLSTMModel._encode
            self.lstm = nn.LSTM(embed, hidden, batch_first=True)
            self.q_proj = nn.Linear(hidden, hidden)
            self.joint = nn.Linear(hidden, hidden)
            self.head = nn.Sequential(
                nn.Dropout(dropout),
                nn.Linear(hidden, hidden),
                nn.ReLU(inplace=True),
                nn.Dropout(dropout),
                nn.Linear(hidden, n_answers),
            )

        def forward(
            self,
            images: torch.Tensor,
            image_of_row: torch.Tensor,
            tokens: torch.Tensor,
            lengths: torch.Tensor,
        ) -> torch.Tensor:
            x = images.float().div_(127.5).sub_(1.0).contiguous(memory_format=torch.channels_last)
            regions = F.normalize(self.cnn(x), dim=1)  # [images, C, h, w], unit vector per region
            regions = torch.tanh(self.region_proj(regions)).flatten(2)  # [images, H, h*w]
            # index_select, not regions[image_of_row]: the backward of advanced indexing
            # accumulates in a thread-dependent order on CPU (not bit-reproducible).
            regions = regions.index_select(0, image_of_row)  # [rows, H, h*w]
            packed = nn.utils.rnn.pack_padded_sequence(
                self.embed(tokens), lengths.cpu(), batch_first=True, enforce_sorted=False
            )
            _, (h, _) = self.lstm(packed)
            q = torch.tanh(self.q_proj(h[-1]))  # [rows, H]
            joint = torch.relu(self.joint((regions * q[:, :, None]).transpose(1, 2))).sum(1)
            return self.head(joint)

    return CNNLSTMNet


