"""The attention models' softmax (plugins/models/softmax.py): its CPU backward is torch 2.13.0's
AVX2 kernel at one thread, bit for bit, written with operations whose bits do not depend on
torch's kernels: a digest of it is the same under any torch."""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import torch

from harness import NUMERICS_ENV
from vqa_harness_plugins.models.softmax import fma32, softmax_backward_lastdim, softmax_lastdim

LOCKED_TORCH = "2.13.0"  # constraints.txt: the version whose kernel the backward follows

# Rows of every length class: n < 8 (sequential), multiples of 8, a tail of 1..7; masked rows.
_AGAINST_TORCH = r"""
import torch
from vqa_harness_plugins.models.softmax import softmax_backward_lastdim
torch.set_num_threads(1)  # training's setting; at two threads torch 2.13.0 sums in another order
if torch.backends.cpu.get_cpu_capability() != "AVX2":
    print("NO-AVX2", torch.backends.cpu.get_cpu_capability())
    raise SystemExit(0)
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
    if out.stdout.startswith("NO-AVX2"):
        pytest.skip(f"the kernel compared with is torch's AVX2 one; this CPU runs {out.stdout.split()[-1]}")
    assert out.stdout.strip() == "[]", out.stdout


def _inputs() -> list[tuple[np.ndarray, np.ndarray]]:
    """Fixed (grad, softmax output) pairs from numpy's PCG64: lengths 1-40 and 49-197, rows with
    zeros where a mask would put them."""
    rng = np.random.default_rng(27)
    pairs = []
    for n in [*range(1, 41), 49, 50, 64, 100, 129, 197]:
        logits = rng.standard_normal((16, n)) * 3
        if n > 2:
            logits[::3, n // 2:] = -np.inf
        out = np.exp(logits - logits.max(axis=1, keepdims=True))
        out = (out / out.sum(axis=1, keepdims=True)).astype(np.float32)
        pairs.append(((rng.standard_normal((16, n)) * 10.0 ** rng.integers(-3, 4)).astype(np.float32), out))
    return pairs


#: softmax_backward_lastdim on `_inputs()`, recorded under torch 2.13.0 and checked equal under
#: torch 2.11.0+cu130 (docs/benchmarks.md, "The attention models' softmax, written out").
GOLDEN = "1e2504cbe2e1f8e9c6ef42316351b66f699057150a826f534f38fcc19f0da9f1"


def test_the_backward_gives_the_same_bits_under_any_torch() -> None:
    torch.set_num_threads(1)
    h = hashlib.sha256()
    for grad, out in _inputs():
        h.update(softmax_backward_lastdim(torch.from_numpy(grad), torch.from_numpy(out)).numpy().tobytes())
    assert h.hexdigest() == GOLDEN


_FLT_OVERFLOW = Fraction(2**128 - 2**103)  # halfway between the largest float and 2^128: rounds to inf


def _exact_fma(a: float, b: float, c: float) -> np.float32:
    """float32(a * b + c) with one rounding, in exact rational arithmetic (ties to even)."""
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if exact < 0:
        return -_exact_fma(-a, b, -c)
    if exact >= _FLT_OVERFLOW:
        return np.float32(np.inf)
    lo = np.float32(float(exact))  # a neighbour of the answer; walk to the two floats around it
    if np.isinf(lo):  # below the overflow threshold: the largest float is a neighbour
        lo = np.finfo(np.float32).max
    while Fraction(float(lo)) > exact:
        lo = np.nextafter(lo, np.float32(-np.inf))
    up = np.float32(np.inf)
    while np.isfinite(np.nextafter(lo, up)) and Fraction(float(np.nextafter(lo, up))) <= exact:
        lo = np.nextafter(lo, up)
    hi = np.nextafter(lo, up)
    if np.isinf(hi):  # exact lies between the largest float and the overflow threshold
        return lo
    d_lo, d_hi = exact - Fraction(float(lo)), Fraction(float(hi)) - exact
    if d_lo != d_hi:
        return lo if d_lo < d_hi else hi
    return lo if int(lo.view(np.uint32)) % 2 == 0 else hi


def _near_ties(count: int) -> list[tuple[float, float, float]]:
    """(a, b, c) whose exact a * b + c lies within a float64 rounding of a float32 halfway point:
    a * b = A * B * 2^e with A * B just above 2^47 or just below 2^48 (its low bits fall below
    float64's precision once c is added), c at, just below or between powers of two, results
    from the subnormal range to near the largest float."""
    rnd = random.Random(24)
    cases: list[tuple[float, float, float]] = []
    while len(cases) < count:
        big_a = rnd.randrange(2**23, 2**24)
        below = rnd.random() < 0.5
        if below:
            big_b = (2**48 - 1) // big_a
            gap = 2**48 - big_a * big_b
        else:
            big_b = -(-(2**47) // big_a)
            gap = big_a * big_b - 2**47
        if big_b >= 2**24 or not 0 < gap < 2**19:
            continue
        u = rnd.choice([*range(-149, -120), *range(-120, 100, 7), 103])
        e = u - 48 - (1 if below else 0)
        a, b = big_a * 2.0 ** (e // 2), big_b * 2.0 ** (e - e // 2)
        pick = rnd.random()
        if u == -149:
            c = rnd.randrange(0, 2**23) * 2.0**-149
        elif pick < 0.2:
            c = 2.0 ** (u + 23)
        elif pick < 0.4:
            c = (2**24 - 1) * 2.0**u
        else:
            c = rnd.randrange(2**23, 2**24) * 2.0**u
        a, c = a * rnd.choice((1, -1)), c * rnd.choice((1, -1))
        if all(np.isfinite(np.float32(v)) and float(np.float32(v)) == v for v in (a, b, c)):
            cases.append((a, b, c))
    return cases


def test_fma32_rounds_once_like_a_fused_multiply_add() -> None:
    rng = np.random.default_rng(0)
    plain = [(float(x), float(y), float(z)) for x, y, z in zip(
        rng.standard_normal(500).astype(np.float32), rng.standard_normal(500).astype(np.float32),
        (rng.standard_normal(500) * 10.0 ** rng.integers(-6, 3, 500)).astype(np.float32))]
    by_hand = [
        (1.0 + 2.0**-12, 1.0 + 2.0**-12, 2.0**-60),  # float64 rounds down onto a halfway point; the error is above it
        (3.0, 1.0 + 2.0**-23, -(2.0**-60)),  # the same below: 3 + 2^-22, where float64-then-float32 gives 3 + 2^-21
        (18631 * 2.0**52, 1801 * 2.0**51, -1.0),  # a * b is halfway to overflow; minus 1: the largest float
        (18631 * 2.0**52, 1801 * 2.0**51, 0.0),  # exactly halfway: rounds to inf
    ]
    cases = plain + by_hand + _near_ties(3000)
    a, b, c = (np.array(col, dtype=np.float32) for col in zip(*cases))
    got = fma32(torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c)).numpy()
    with np.errstate(over="ignore"):  # the overflow cases' neighbour is inf
        want = np.array([_exact_fma(x, y, z) for x, y, z in cases], dtype=np.float32)
    wrong = np.nonzero(got.view(np.uint32) != want.view(np.uint32))[0]
    assert not len(wrong), [cases[i] for i in wrong[:5]]
    first = len(plain)
    assert want[first + 1] == np.float32(3.0 + 2.0**-22) and want[first + 2] == np.finfo(np.float32).max
    assert np.isinf(want[first + 3])
    with np.errstate(over="ignore"):
        naive = (a.astype(np.float64) * b + c).astype(np.float32)
    assert (naive.view(np.uint32) != want.view(np.uint32)).sum() > 100  # the cases reach the correction


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
    # float64 and 0-d tensors are torch's own softmax
    assert softmax_lastdim(x.requires_grad_(True)).grad_fn.name() == "SoftmaxBackward0"
    assert y.grad_fn.name() != "SoftmaxBackward0"
    assert softmax_lastdim(torch.tensor(2.0, requires_grad=True)).grad_fn.name() == "SoftmaxBackward0"
