"""Softmax over the last dimension whose CPU backward does not depend on torch's kernel: the
attention of `hiecoatt`, `hiecoatt-mc` and `attention-mc`.

Why. torch's CPU backward of `torch.softmax` computes, per row, s = sum_i g_i y_i and then
(g - s) * y. Under the AVX2 kernels we pin (`harness.NUMERICS_ENV`) and the one thread every
training runs on (`runtime.TRAINING_THREADS`), torch 2.13.0 adds the products in another order
than torch 2.11 (at two threads 2.13.0 sums as 2.11 does), so the three attention models
trained to other weights under the two versions (docs/benchmarks.md, "The same torch on both
CPUs"); every other op they use gives the same bits under both
(`scripts/numerics_fingerprint.py --ops-only`).

What. The forward is `torch.softmax` (the same bits under both versions). On the CPU, in
float32, the backward is written out with elementwise operations and slices, in the order of
torch 2.13.0's AVX2 kernel at one thread (`vec::map2_reduce_all` over 8-float lanes):

- a row of n < 8 values: s = ((g_0 y_0 + g_1 y_1) + g_2 y_2) + ...;
- otherwise: an 8-lane accumulator starts at the first 8 products, adds each next full block
  of 8 products, then the last n mod 8 products into its first lanes with a fused
  multiply-add (one rounding: the source has a multiply and an add, which the compiler of
  the `+cpu` wheel contracts; found by the bit-for-bit test, not read from the source); the
  8 lanes are then summed as ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7)).

So the locked install (torch 2.13.0) computes the bits it computed before, and torch 2.11,
whose kernel sums in another order, computes them too (docs/benchmarks.md has the runs). The
written-out backward does not depend on the thread count, the kernels' ISA or the layout. The
fused multiply-add is computed exactly from float64 operations (`fma32`).
tests/models/test_softmax.py compares this backward with torch 2.13.0's, bit for bit, and
checks a digest of it that any torch version must reproduce.

Elsewhere (a GPU, another dtype, a 0-d tensor) this is `torch.softmax` itself: no claim of
bit-identity is made there. Eager mode is assumed: under `torch.compile` the backward's
operations could be fused differently.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["softmax_lastdim", "fma32", "softmax_backward_lastdim", "SOFTMAX_MARK"]

LANES = 8  # floats in one AVX2 register: the width torch 2.13.0's kernel sums with


#: The `NUMERICS_MARKS` entry of the models that use `softmax_lastdim`: weights and predictions
#: cached before it (under torch 2.11, with that torch's order) are not served as this code's.
SOFTMAX_MARK = {"softmax": "2.13.0-order"}


def fma32(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """float32 a * b + c rounded once (a fused multiply-add), from float64 operations.

    The float64 product of two floats is exact; p + c is rounded to float64 (s) and its error
    kept exactly (TwoSum). When the error is not zero, s is rounded to odd (moved one float64
    step toward the exact sum when its last bit is even); rounding a float64 rounded to odd
    to float32 rounds the exact sum once, as float64 has at least two more bits than float32
    needs (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved
    algorithms using rounding to odd", 2008). Products and sums of floats never reach
    float64's subnormal or overflow range, so this holds for every finite input.
    """
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    p = a.double() * b.double()
    c64 = c.double()
    s = p + c64
    back = s - p
    err = (p - (s - back)) + (c64 - back)
    even = (s.view(torch.int64) & 1) == 0
    toward = torch.copysign(torch.full_like(s, float("inf")), err)
    return torch.where((err != 0) & even & torch.isfinite(s), torch.nextafter(s, toward), s).float()


def _row_dot(g: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """sum(g * y) over the last dimension, kept as a size-1 dimension, in the kernel's order."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    n = g.shape[-1]
    if n < LANES:
        total = g[..., 0:1] * y[..., 0:1]
        for i in range(1, n):
            total = total + g[..., i:i + 1] * y[..., i:i + 1]
        return total
    acc = g[..., :LANES] * y[..., :LANES]
    full = n - n % LANES
    for start in range(LANES, full, LANES):
        acc = acc + g[..., start:start + LANES] * y[..., start:start + LANES]
    if full < n:
        tail = n - full
        acc = torch.cat([fma32(g[..., full:], y[..., full:], acc[..., :tail]), acc[..., tail:]], dim=-1)
    half = acc[..., :4] + acc[..., 4:]
    pair = half[..., :2] + half[..., 2:]
    return pair[..., :1] + pair[..., 1:]


def softmax_backward_lastdim(grad: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """The input's gradient of y = softmax(x) over the last dimension, given dL/dy and y."""
    return (grad - _row_dot(grad, out)) * out


@functools.cache
def _function() -> Any:
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    class SoftmaxLastDim(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, logits: torch.Tensor) -> torch.Tensor:
            out = torch.softmax(logits, dim=-1)
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
            (out,) = ctx.saved_tensors
            return softmax_backward_lastdim(grad, out)

    return SoftmaxLastDim


def softmax_lastdim(logits: torch.Tensor) -> torch.Tensor:
    """softmax(logits) over the last dimension; on the CPU in float32, the backward above."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    if logits.device.type != "cpu" or logits.dtype != torch.float32 or logits.dim() == 0 or logits.shape[-1] == 0:
        return torch.softmax(logits, dim=-1)
    return _function().apply(logits)
