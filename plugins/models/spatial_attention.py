"""`attention-mc`: Chao et al. 2018's Attention* (supplementary A.2), a spatial-memory
style attention model for multiple choice.

After the spatial memory network (SMem, Xu and Saenko 2016) with one hop, as Chao et al.
adapt it: "instead of computing the visual attention for each word in the question, we
directly compute the visual attention for the entire question using its average word2vec
embedding". Here:

- question q: the text features of the question (`text_features`, hashed-bow by default,
  standing in for averaged word2vec), projected to the attention space (linear, tanh);
- each grid region r (l2-normalized, plus the sentinel region) gets an attention embedding
  A_r = tanh(W_A v_r) and an evidence embedding E_r = W_E v_r (SMem's two embeddings);
- attention a = softmax_r(A_r . q); attended visual feature v = sum_r a_r E_r;
- [l2(v), l2(q features), l2(candidate features)] -> the A.1 MLP head (one hidden layer,
  BN before ReLU, dropout 0.5) -> one logit per candidate, trained with A.4's binary
  logistic loss over the target and 3 decoys (choice_training.py).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from .choice_training import CHOICE_OPTIONS, GridChoiceModel
from .grid_base import layers, trainer_option
from .sizes import SizedModel, Sizes
from .softmax import SOFTMAX_MARK, softmax_lastdim

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["SpatialAttentionMC"]


class SpatialAttentionMC(SizedModel, GridChoiceModel):
    """Chao et al. 2018 Attention*: question-guided attention over grid regions -> MLP."""

    name = "attention-mc"
    NUMERICS_MARKS = SOFTMAX_MARK
    description = ("Chao 2018 Attention* (spatial memory style): question-guided grid attention, MLP over "
                   "[attended image, question, candidate] (multiple choice)")
    # The attention size is not given in the paper: `hidden` keeps its value under both presets.
    size_presets = Sizes(toy={"mc_hidden": 1024}, paper={"mc_hidden": 8192}, source="Chao et al. 2018 A.1")
    # No word embeddings (the question enters as text features) and A.1's fixed dropout.
    options = size_presets.options({
        **{k: v for k, v in CHOICE_OPTIONS.items() if k not in ("embed", "dropout")},
        "hidden": trainer_option("hidden", 256, "attention / evidence embedding size (not given in the paper)"),
        "epochs": trainer_option("epochs", 15, "passes over the training triplets"),
    })

    def _new_net(self) -> "torch.nn.Module":
        v = self.vocab
        return _net_class()(grid_dim=v["grid_dim"], text_dim=v["text_dim"], hidden=int(self.config["hidden"]),
                            mc_hidden=int(self.config["mc_hidden"]), sentinel=bool(self.config["sentinel"]))


@functools.cache
def _net_class() -> type:
    import torch  # heavy: torch takes seconds to import; only code that computes needs it
    import torch.nn as nn  # heavy: torch takes seconds to import; only code that computes needs it
    import torch.nn.functional as F  # heavy: imported on use

    L = layers()

    class SpatialAttentionNet(nn.Module):
        def __init__(self, *, grid_dim: int, text_dim: int, hidden: int, mc_hidden: int, sentinel: bool) -> None:
            super().__init__()
            self.sentinel = nn.Parameter(F.normalize(torch.randn(1, 1, grid_dim), dim=-1)) if sentinel else None
            self.attend = nn.Linear(grid_dim, hidden)
            self.evidence = nn.Linear(grid_dim, hidden)
            self.query = nn.Linear(text_dim, hidden)
            self.head = L.ChoiceHead(hidden + 2 * text_dim, mc_hidden)

        def attention(self, bank: torch.Tensor, inverse: torch.Tensor, qtext: torch.Tensor) -> tuple[Any, Any]:
            """(attention weights [B, R(+1)], attended evidence [B, H])."""
            regions = L.rows_of(bank, inverse, self.sentinel)
            query = torch.tanh(self.query(qtext))
            weights = softmax_lastdim((torch.tanh(self.attend(regions)) * query[:, None, :]).sum(-1))
            return weights, (weights[:, :, None] * self.evidence(regions)).sum(1)

        def forward(self, bank: torch.Tensor, inverse: torch.Tensor, tokens: torch.Tensor, lengths: torch.Tensor,
                    qtext: torch.Tensor, cands: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            _, attended = self.attention(bank, inverse, qtext)
            context = torch.cat([F.normalize(attended, dim=-1), F.normalize(qtext, dim=-1)], dim=1)
            return self.head(context, cands, mask)

    return SpatialAttentionNet
