"""The attention models' softmax (plugins/models/softmax.py): its CPU backward is torch 2.13.0's
AVX2 kernel, bit for bit, written with operations whose bits do not depend on torch's kernels."""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import torch

from harness import NUMERICS_ENV
from vqa_harness_plugins.models.softmax import fma32, softmax_lastdim

LOCKED_TORCH = "2.13.0"  # constraints.txt: the version whose kernel the backward follows

# Rows of every length class: n < 8 (sequential), multiples of 8, a tail of 1..7; masked rows.
_AGAINST_TORCH = r"""
import torch
from vqa_harness_plugins.models.softmax import softmax_backward_lastdim
torch.set_num_threads(1)
assert torch.backends.cpu.get_cpu_capability() == "AVX2", torch.backends.cpu.get_cpu_capability()
gen = torch.Generator().manual_seed(1)
differ = []
for trial in range(6):
    for n in (1, 2, 3, 7, 8, 9, 10, 11, 15, 16, 17, 20, 24, 26, 33, 49, 50, 100, 197):
        x = torch.randn(64, n, generator=gen) * (0.1, 1.0, 3.0, 10.0)[trial % 4]
        if trial % 3 == 0 and n > 2:
            x[:, n // 2:] = float("-inf")
        x.requires_grad_(True)
        grad = torch.randn(64, n, generator=gen) * (1.0, 1e-3, 1e3)[trial % 3]
        y = torch.softmax(x, dim=-1)
        y.backward(grad)
        if not torch.equal(softmax_backward_lastdim(grad, y.detach()), x.grad):
            differ.append((trial, n))
print(differ)
"""


@pytest.mark.skipif(not torch.__version__.startswith(LOCKED_TORCH),
                    reason=f"the backward follows torch {LOCKED_TORCH}'s kernel; this is torch {torch.__version__}")
def test_the_backward_is_torch_2_13_s_avx2_kernel_bit_for_bit() -> None:
    env = {**os.environ, **NUMERICS_ENV}  # the AVX2 kernels a run pins, before torch loads
    out = subprocess.run([sys.executable, "-c", _AGAINST_TORCH], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]", out.stdout


def _exact_fma(a: float, b: float, c: float) -> np.float32:
    """float32(a * b + c) with one rounding, in exact rational arithmetic (ties to even)."""
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    lo = np.float32(float(exact))  # a neighbour of the answer; walk to the two floats around it
    while Fraction(float(lo)) > exact:
        lo = np.nextafter(lo, np.float32(-np.inf))
    while Fraction(float(np.nextafter(lo, np.float32(np.inf)))) <= exact:
        lo = np.nextafter(lo, np.float32(np.inf))
    hi = np.nextafter(lo, np.float32(np.inf))
    d_lo, d_hi = exact - Fraction(float(lo)), Fraction(float(hi)) - exact
    if d_lo != d_hi:
        return lo if d_lo < d_hi else hi
    return lo if int(lo.view(np.uint32)) % 2 == 0 else hi


def test_fma32_rounds_once_like_a_fused_multiply_add() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(3000).astype(np.float32)
    b = rng.standard_normal(3000).astype(np.float32)
    c = (rng.standard_normal(3000) * 10.0 ** rng.integers(-6, 3, 3000)).astype(np.float32)
    # Cases where rounding to float64 first lands exactly halfway between two floats: a * b is a
    # float32 halfway point plus a tiny part that float64 drops.
    half = np.float32(1.0) + np.float32(2.0 ** -23)
    a = np.concatenate([a, np.float32([1.0 + 2.0 ** -12, 1.0, half])])
    b = np.concatenate([b, np.float32([1.0 + 2.0 ** -12, 1.0 + 2.0 ** -23, -1.0])])
    c = np.concatenate([c, np.float32([2.0 ** -60, 2.0 ** -24 + 2.0 ** -60, 1.0])])
    got = fma32(torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c)).numpy()
    want = np.array([_exact_fma(x, y, z) for x, y, z in zip(a, b, c)], dtype=np.float32)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    naive = (a.astype(np.float64) * b + c).astype(np.float32)
    assert not np.array_equal(naive.view(np.uint32), want.view(np.uint32))  # the cases above need the fix


def test_the_function_is_a_softmax_with_its_gradient() -> None:
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(5, 13, generator=gen, dtype=torch.float64)
    x32 = x.float().requires_grad_(True)
    grad = torch.randn(5, 13, generator=gen)
    y = softmax_lastdim(x32)
    assert torch.equal(y, torch.softmax(x32, dim=-1))  # the forward is torch's
    y.backward(grad)
    reference = x32.detach().clone().requires_grad_(True)
    torch.softmax(reference, dim=-1).backward(grad)
    assert torch.allclose(x32.grad, reference.grad, rtol=1e-5, atol=1e-7)
    # float64 (and any device but the CPU) is torch's own softmax
    assert softmax_lastdim(x.requires_grad_(True)).grad_fn.name() == "SoftmaxBackward0"
    assert y.grad_fn.name() != "SoftmaxBackward0"
