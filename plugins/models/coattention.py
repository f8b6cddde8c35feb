"""`hiecoatt` and `hiecoatt-mc`: hierarchical question-image co-attention (Lu et al. 2016),
open-ended as in Goyal et al. 2017's tables and adapted to multiple choice as in Chao et
al. 2018 (HieCoAtt*, supplementary A.3).

- Question hierarchy: word level Q_w (word embeddings); phrase level Q_p (1-D convolutions
  of width 1, 2 and 3 over Q_w, tanh, max over the three widths at each word); question
  level Q_s (an LSTM of `lstm_layers` layers over Q_p; the authors' code: 2).
- Image: the grid regions (l2-normalized; plus the sentinel region, see grid_base.py)
  embedded as V = tanh(W v_r).
- Parallel co-attention at each level: affinity C = tanh(Q W_b V^T); H_v = tanh(W_v V +
  C^T (W_q Q)); H_q = tanh(W_q Q + C (W_v V)); a_v = softmax(w_hv H_v) over regions,
  a_q = softmax(w_hq H_q) over words; attended v^ = sum a_v V, q^ = sum a_q Q.
- Answer (recursive): h_w = tanh(W_w(q^_w + v^_w)); h_p = tanh(W_p[q^_p + v^_p, h_w]);
  h_s = tanh(W_s[q^_s + v^_s, h_p]); `hiecoatt`: logits = W_h h_s over the answers
  (TorchAnswerModel training); `hiecoatt-mc`: h_s is the image-question feature of the A.1
  MLP head with the question and candidate features (choice_training.py).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from harness.api import Option

from .choice_training import CHOICE_OPTIONS, GridChoiceModel
from .grid_base import GRID_OPTIONS, GridAnswerModel, layers, trainer_option
from .sizes import SizedModel, Sizes
from .softmax import SOFTMAX_MARK, softmax_lastdim

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["HieCoAttModel", "HieCoAttMC"]

_SIZE_OPTIONS = {
    "hidden": trainer_option("hidden", 128, "embedding, co-attention, LSTM and answer-layer size"),
    "embed": Option(128, "word-embedding size (projected to `hidden` for the co-attention)", min=1, max=65_536),
    "lstm_layers": Option(1, "layers of the question-level LSTM", min=1, max=8),
}
#: Lu et al.'s train.lua: hidden_size 512 (also the word embedding), rnn_size 512, rnn_layers 2.
_TOY = {"hidden": 128, "embed": 128, "lstm_layers": 1}
_LU = {"hidden": 512, "embed": 512, "lstm_layers": 2}


class _LSTMLayers:
    """Leaves `lstm_layers` out of the fingerprint at 1: the one-layer network is the one
    cached before the option existed, so its weight-cache keys stay valid."""

    def fingerprint_config(self) -> dict[str, Any]:
        config = super().fingerprint_config()  # type: ignore[misc]
        if config.get("lstm_layers") == 1:
            del config["lstm_layers"]
        return config


class HieCoAttModel(SizedModel, _LSTMLayers, GridAnswerModel):
    """Hierarchical co-attention over (question, grid) -> answer vocabulary."""

    name = "hiecoatt"
    NUMERICS_MARKS = SOFTMAX_MARK
    description = "HieCoAtt (Lu 2016): word/phrase/question-level parallel co-attention on grid features -> answers"
    size_presets = Sizes(toy=_TOY, paper=_LU, source="Lu et al. 2016, the authors' train.lua")
    options = size_presets.options({
        **GRID_OPTIONS,
        **_SIZE_OPTIONS,
        "epochs": trainer_option("epochs", 15, "passes over the train split"),
        "batch_size": trainer_option("batch_size", 64, "training batch size in questions (inference does not depend on it)"),
        "dropout": trainer_option("dropout", 0.2, "dropout before each answer layer (Lu et al.: 0.5)"),
    })

    def _new_net(self) -> "torch.nn.Module":
        v, cfg = self.vocab, self.config
        return _net_classes()[0](n_words=len(v["words"]), grid_dim=v["grid_dim"], hidden=int(cfg["hidden"]),
                                 embed=int(cfg["embed"]), lstm_layers=int(cfg["lstm_layers"]),
                                 sentinel=bool(cfg["sentinel"]), dropout=float(cfg["dropout"]),
                                 n_answers=len(self.answers))


class HieCoAttMC(SizedModel, _LSTMLayers, GridChoiceModel):
    """Chao et al. 2018 HieCoAtt*: the co-attention feature h_s, question and candidate -> MLP."""

    name = "hiecoatt-mc"
    NUMERICS_MARKS = SOFTMAX_MARK
    description = ("Chao 2018 HieCoAtt*: HieCoAtt's joint feature + question + candidate -> MLP "
                   "(multiple choice)")
    size_presets = Sizes(toy={**_TOY, "mc_hidden": 1024}, paper={**_LU, "mc_hidden": 8192},
                         source="Lu et al. 2016's train.lua for the co-attention, Chao et al. 2018 A.1 for the MLP head")
    options = size_presets.options({
        **CHOICE_OPTIONS, **_SIZE_OPTIONS, "epochs": trainer_option("epochs", 15, "passes over the training triplets"),
        "dropout": trainer_option("dropout", 0.2, "dropout before each answer layer")})

    def _new_net(self) -> "torch.nn.Module":
        v, cfg = self.vocab, self.config
        return _net_classes()[1](n_words=len(v["words"]), grid_dim=v["grid_dim"], hidden=int(cfg["hidden"]),
                                 embed=int(cfg["embed"]), lstm_layers=int(cfg["lstm_layers"]),
                                 sentinel=bool(cfg["sentinel"]), dropout=float(cfg["dropout"]),
                                 text_dim=v["text_dim"], mc_hidden=int(cfg["mc_hidden"]))


@functools.cache
def _net_classes() -> tuple[type, type]:
    import torch  # heavy: torch takes seconds to import; only code that computes needs it
    import torch.nn as nn  # heavy: torch takes seconds to import; only code that computes needs it
    import torch.nn.functional as F  # heavy: imported on use

    L = layers()

    class CoAttention(nn.Module):
        """Parallel co-attention of one level (see the module docstring)."""

        def __init__(self, d: int) -> None:
            super().__init__()
            self.w_b = nn.Linear(d, d, bias=False)
            self.w_v = nn.Linear(d, d, bias=False)
            self.w_q = nn.Linear(d, d, bias=False)
            self.h_v = nn.Linear(d, 1)
            self.h_q = nn.Linear(d, 1)

        def forward(self, q: torch.Tensor, qmask: torch.Tensor, v: torch.Tensor) -> tuple[Any, Any]:
            affinity = torch.tanh(self.w_b(q) @ v.transpose(1, 2)) * qmask[:, :, None]  # [B, T, R]
            wv, wq = self.w_v(v), self.w_q(q)
            h_v = torch.tanh(wv + affinity.transpose(1, 2) @ wq)  # [B, R, d]
            h_q = torch.tanh(wq + affinity @ wv)  # [B, T, d]
            a_v = softmax_lastdim(self.h_v(h_v).squeeze(-1))
            a_q = L.masked_softmax(self.h_q(h_q).squeeze(-1), qmask)
            return (a_q[:, :, None] * q).sum(1), (a_v[:, :, None] * v).sum(1)

    class HieCoAttBody(nn.Module):
        """Question hierarchy x grid -> h_s [B, hidden]."""

        def __init__(self, *, n_words: int, grid_dim: int, hidden: int, embed: int, lstm_layers: int,
                     sentinel: bool, dropout: float) -> None:
            super().__init__()
            self.sentinel = nn.Parameter(F.normalize(torch.randn(1, 1, grid_dim), dim=-1)) if sentinel else None
            self.image = nn.Linear(grid_dim, hidden)
            self.words = nn.Embedding(n_words, embed, padding_idx=0)
            with torch.no_grad():
                self.words.weight[1].zero_()  # <unk>
            self.word_proj = nn.Linear(embed, hidden)
            self.grams = nn.ModuleList(nn.Conv1d(hidden, hidden, n) for n in (1, 2, 3))
            self.lstm = nn.LSTM(hidden, hidden, num_layers=lstm_layers, batch_first=True)
            self.levels = nn.ModuleList(CoAttention(hidden) for _ in range(3))
            self.drop = nn.Dropout(dropout)
            self.w_w = nn.Linear(hidden, hidden)
            self.w_p = nn.Linear(2 * hidden, hidden)
            self.w_s = nn.Linear(2 * hidden, hidden)

        def forward(self, bank: torch.Tensor, inverse: torch.Tensor, tokens: torch.Tensor,
                    lengths: torch.Tensor) -> torch.Tensor:
            qmask = L.token_mask(tokens, lengths)
            v = torch.tanh(self.image(L.rows_of(bank, inverse, self.sentinel)))  # [B, R, d]
            q_w = torch.tanh(self.word_proj(self.words(tokens))) * qmask[:, :, None]  # [B, T, d]
            x = q_w.transpose(1, 2)
            # Width n: pad n-1 zeros on the right, so position t sees words t .. t+n-1.
            grams = [torch.tanh(conv(F.pad(x, (0, n - 1)))) for n, conv in zip((1, 2, 3), self.grams)]
            q_p = torch.stack(grams, 0).amax(0).transpose(1, 2) * qmask[:, :, None]
            packed = nn.utils.rnn.pack_padded_sequence(q_p, lengths.cpu(), batch_first=True, enforce_sorted=False)
            out, _ = self.lstm(packed)
            q_s, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=tokens.shape[1])
            (qw, vw), (qp, vp), (qs, vs) = (att(q, qmask, v) for att, q in zip(self.levels, (q_w, q_p, q_s)))
            h_w = torch.tanh(self.w_w(self.drop(qw + vw)))
            h_p = torch.tanh(self.w_p(self.drop(torch.cat([qp + vp, h_w], 1))))
            return torch.tanh(self.w_s(self.drop(torch.cat([qs + vs, h_p], 1))))

    class HieCoAttNet(nn.Module):
        def __init__(self, *, n_answers: int, dropout: float, **body: Any) -> None:
            super().__init__()
            self.body = HieCoAttBody(dropout=dropout, **body)
            self.drop = nn.Dropout(dropout)
            self.out = nn.Linear(body["hidden"], n_answers)

        def forward(self, bank: torch.Tensor, inverse: torch.Tensor, tokens: torch.Tensor,
                    lengths: torch.Tensor) -> torch.Tensor:
            return self.out(self.drop(self.body(bank, inverse, tokens, lengths)))

    class HieCoAttMCNet(nn.Module):
        def __init__(self, *, text_dim: int, mc_hidden: int, **body: Any) -> None:
            super().__init__()
            self.body = HieCoAttBody(**body)
            self.head = L.ChoiceHead(body["hidden"] + 2 * text_dim, mc_hidden)

        def forward(self, bank: torch.Tensor, inverse: torch.Tensor, tokens: torch.Tensor, lengths: torch.Tensor,
                    qtext: torch.Tensor, cands: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            h_s = self.body(bank, inverse, tokens, lengths)
            context = torch.cat([F.normalize(h_s, dim=-1), F.normalize(qtext, dim=-1)], dim=1)
            return self.head(context, cands, mask)

    return HieCoAttNet, HieCoAttMCNet
