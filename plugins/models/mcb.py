"""`mcb`: multimodal compact bilinear pooling with attention (Fukui et al. 2016), as in
Goyal et al. 2017's tables.

MCB(x, y) approximates the outer product of x and y in d dimensions: count-sketch
projections psi(x) = sum_i s_i x_i e_{h_i} (a fixed random hash h_i in [0, d) and sign s_i
per input dimension, drawn once from `sketch_seed` and stored with the weights), then the
circular convolution of the two sketches, computed as a product in the FFT domain
(irfft(rfft(psi(x)) * rfft(psi(y)))), then a signed square root and l2 normalization.

- Question: word embedding -> LSTM (`lstm_layers`); q = the final states of all layers.
- Image: the grid regions, each l2-normalized (plus the sentinel region, grid_base.py).
- Attention: for every region MCB(q, v_r) -> 1x1 "conv" (linear, `attention_hidden`, ReLU)
  -> one logit per glimpse -> softmax over regions; each glimpse's attended vector is
  sum_r a_r v_r; the glimpses are concatenated.
- Answer: MCB(q, glimpses) -> linear over the answers (TorchAnswerModel training).
Paper sizes (`sizes=paper`): 300-d word embeddings, d = 16,000, a 2-layer LSTM of 1,024
units, attention 512, 2 glimpses, over ResNet-152 res5c grids (14 x 14 x 2,048).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from harness.api import Option

from .grid_base import GRID_OPTIONS, GridAnswerModel, layers, trainer_option
from .runtime import exact_sqrt
from .sizes import SizedModel, Sizes

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["MCBModel", "count_sketch", "compact_bilinear", "circular_convolution"]


class MCBModel(SizedModel, GridAnswerModel):
    """MCB attention over the grid, MCB fusion with the question -> answer vocabulary."""

    name = "mcb"
    description = "MCB (Fukui 2016): compact bilinear pooling (count sketch, FFT) with attention on grid features"
    size_presets = Sizes(
        toy={"embed": 64, "hidden": 128, "lstm_layers": 1, "mcb_dim": 1024, "attention_hidden": 128, "glimpses": 2},
        paper={"embed": 300, "hidden": 1024, "lstm_layers": 2, "mcb_dim": 16_000, "attention_hidden": 512,
               "glimpses": 2},
        source="Fukui et al. 2016 and their released training code")
    options = size_presets.options({
        **GRID_OPTIONS,
        "hidden": trainer_option("hidden", 128, "LSTM units per layer"),
        "lstm_layers": Option(1, "LSTM layers", min=1, max=8),
        "mcb_dim": Option(1024, "compact bilinear dimension d", min=2, max=65_536),
        "attention_hidden": Option(128, "hidden size of the attention layers", min=1, max=65_536),
        "glimpses": Option(2, "attention glimpses", min=1, max=64),
        "sketch_seed": Option(0, "seed of the count-sketch hashes and signs", min=0, max=2**63 - 1),
        "epochs": trainer_option("epochs", 15, "passes over the train split"),
        "batch_size": trainer_option("batch_size", 64, "training batch size in questions (inference does not depend on it)"),
        "dropout": trainer_option("dropout", 0.1, "dropout before the answer layer"),
    })

    #: Revision 2: the CPU convolution's complex products from real ones; revision 3: the
    #: signed square root correctly rounded (numpy's, not MKL's) (issue 27). It keys every
    #: device alike (a CUDA run's key changes too): one model, one revision.
    NUMERICS_MARKS = {"numerics": 3}

    def _new_net(self) -> "torch.nn.Module":
        v, cfg = self.vocab, self.config
        return _net_class()(n_words=len(v["words"]), grid_dim=v["grid_dim"], n_answers=len(self.answers),
                            embed=int(cfg["embed"]), hidden=int(cfg["hidden"]), layers_=int(cfg["lstm_layers"]),
                            mcb_dim=int(cfg["mcb_dim"]), attention_hidden=int(cfg["attention_hidden"]),
                            glimpses=int(cfg["glimpses"]), sketch_seed=int(cfg["sketch_seed"]),
                            sentinel=bool(cfg["sentinel"]), dropout=float(cfg["dropout"]))


def count_sketch(x: "torch.Tensor", hashes: "torch.Tensor", signs: "torch.Tensor", dim: int) -> "torch.Tensor":
    """psi(x) [..., dim]: x [..., n] with input i added, times signs[i], into bucket hashes[i]."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    flat = (x * signs).reshape(-1, x.shape[-1])
    out = torch.zeros(flat.shape[0], dim, dtype=flat.dtype, device=flat.device).index_add_(1, hashes, flat)
    return out.reshape(*x.shape[:-1], dim)


def compact_bilinear(sx: "torch.Tensor", sy: "torch.Tensor") -> "torch.Tensor":
    """Circular convolution of two count sketches (a product in the FFT domain), then the
    signed square root and l2 normalization.

    Computed in float64 and returned in the inputs' dtype: the square root's slope near 0
    turns float32 rounding (which differs with the batch shape) into differences of 5e-5
    in the answer log-probabilities; in float64 they stay under 1e-6. On the CPU the FFTs are
    numpy's (`circular_convolution`), whose bits do not depend on the CPU model."""
    import torch.nn.functional as F  # heavy: torch takes seconds to import; imported on use

    z = circular_convolution(sx.double(), sy.double())
    return F.normalize(z.sign() * exact_sqrt(z.abs() + 1e-12), dim=-1).to(sx.dtype)


def circular_convolution(x: "torch.Tensor", y: "torch.Tensor") -> "torch.Tensor":
    """z[..., k] = sum_j x[..., j] * y[..., (k - j) mod d], differentiable in x and y.

    On CUDA through torch.fft. On the CPU through numpy's FFT (pocketfft, compiled without
    run-time CPU dispatch): torch's CPU FFT is MKL's, whose last bits differ between Intel
    and AMD CPUs even under MKL_CBWR=COMPATIBLE (measured: MCB trained to other weights on
    the two machines; docs/models.md, "Machine-independent numerics"). The spectra are
    multiplied with real products and sums: numpy's complex multiply picks a SIMD kernel at
    run time (measured: other bits with its AVX2/AVX-512 kernels turned off)."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    if x.device.type != "cpu":
        d = x.shape[-1]
        return torch.fft.irfft(torch.fft.rfft(x, dim=-1) * torch.fft.rfft(y, dim=-1), n=d, dim=-1)
    return _numpy_convolution().apply(x, y)


@functools.cache
def _numpy_convolution() -> type:
    import numpy as np  # imported with torch, on use
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    def product(u: np.ndarray, v: np.ndarray, conjugate: bool = False) -> np.ndarray:
        # u * v (or u * conj(v)) from real products and sums, each rounded once: numpy's complex
        # multiply picks a SIMD kernel at run time (with fused multiply-adds on AVX2 and AVX-512
        # CPUs, without them elsewhere), so its last bits depend on the CPU
        sign = -1.0 if conjugate else 1.0
        out = np.empty(np.broadcast_shapes(u.shape, v.shape), np.result_type(u, v))  # as u * v broadcasts
        out.real = u.real * v.real - sign * (u.imag * v.imag)
        out.imag = u.imag * v.real + sign * (u.real * v.imag)
        return out

    def convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.fft.irfft(product(np.fft.rfft(a, axis=-1), np.fft.rfft(b, axis=-1)), n=a.shape[-1], axis=-1)

    def correlate(g: np.ndarray, b: np.ndarray) -> np.ndarray:
        # d/dx of sum_k g[k] z[k] with z = x (*) b: sum_k g[k] b[(k - j) mod d], a correlation.
        return np.fft.irfft(product(np.fft.rfft(g, axis=-1), np.fft.rfft(b, axis=-1), conjugate=True),
                            n=g.shape[-1], axis=-1)

    class NumpyCircularConvolution(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):  # type: ignore[override]
            ctx.save_for_backward(x, y)
            return torch.from_numpy(convolve(x.detach().numpy(), y.detach().numpy()))

        @staticmethod
        def backward(ctx, grad):  # type: ignore[override]
            x, y = ctx.saved_tensors
            g = grad.detach().contiguous().numpy()
            gx = torch.from_numpy(correlate(g, y.detach().numpy())) if ctx.needs_input_grad[0] else None
            gy = torch.from_numpy(correlate(g, x.detach().numpy())) if ctx.needs_input_grad[1] else None
            return gx, gy

    return NumpyCircularConvolution


@functools.cache
def _net_class() -> type:
    import torch  # heavy: torch takes seconds to import; only code that computes needs it
    import torch.nn as nn  # heavy: torch takes seconds to import; only code that computes needs it
    import torch.nn.functional as F  # heavy: imported on use

    L = layers()

    class Sketch(nn.Module):
        """A fixed count sketch from `n` to `d` dimensions (buffers: saved, never trained)."""

        def __init__(self, n: int, d: int, gen: torch.Generator) -> None:
            super().__init__()
            self.d = d
            self.register_buffer("hashes", torch.randint(0, d, (n,), generator=gen))
            self.register_buffer("signs", torch.randint(0, 2, (n,), generator=gen).float() * 2 - 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return count_sketch(x, self.hashes, self.signs, self.d)

    class MCBNet(nn.Module):
        def __init__(self, *, n_words: int, grid_dim: int, n_answers: int, embed: int, hidden: int, layers_: int,
                     mcb_dim: int, attention_hidden: int, glimpses: int, sketch_seed: int, sentinel: bool,
                     dropout: float) -> None:
            super().__init__()
            gen = torch.Generator().manual_seed(sketch_seed)
            q_dim = hidden * layers_
            self.question = L.QuestionLSTM(n_words, embed, hidden, layers_)
            self.sentinel = nn.Parameter(F.normalize(torch.randn(1, 1, grid_dim), dim=-1)) if sentinel else None
            self.sketch_q_att, self.sketch_v_att = Sketch(q_dim, mcb_dim, gen), Sketch(grid_dim, mcb_dim, gen)
            self.sketch_q, self.sketch_v = Sketch(q_dim, mcb_dim, gen), Sketch(grid_dim * glimpses, mcb_dim, gen)
            self.attention = nn.Sequential(nn.Linear(mcb_dim, attention_hidden), nn.ReLU(),
                                           nn.Linear(attention_hidden, glimpses))
            self.drop = nn.Dropout(dropout)
            self.out = nn.Linear(mcb_dim, n_answers)

        def glimpse_weights(self, q: torch.Tensor, regions: torch.Tensor) -> torch.Tensor:
            """Attention [B, R, G] from MCB(q, v_r) per region."""
            fused = compact_bilinear(self.sketch_q_att(q)[:, None, :].expand(-1, regions.shape[1], -1),
                                     self.sketch_v_att(regions))
            return torch.softmax(self.attention(fused), dim=1)

        def forward(self, bank: torch.Tensor, inverse: torch.Tensor, tokens: torch.Tensor,
                    lengths: torch.Tensor) -> torch.Tensor:
            _, q = self.question(tokens, lengths)
            regions = L.rows_of(bank, inverse, self.sentinel)  # [B, R, D]
            weights = self.glimpse_weights(q, regions)
            attended = (weights.transpose(1, 2) @ regions).flatten(1)  # [B, G*D]
            fused = compact_bilinear(self.sketch_q(q), self.sketch_v(attended))
            return self.out(self.drop(fused))

    return MCBNet
