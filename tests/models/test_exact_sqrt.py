"""`exact_sqrt`: the correctly rounded square root on every CPU, with torch's gradient (MCB's
signed square root; torch's CPU `sqrt` is MKL's vector math, whose last bits differ between
Intel and AMD CPUs; docs/models.md, "Machine-independent numerics")."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import torch

from vqa_harness_plugins.models.runtime import exact_sqrt


def _inputs(dtype: np.dtype) -> np.ndarray:
    """Positive values over the whole exponent range, subnormals and the extremes included."""
    rng = np.random.default_rng(0)
    info = np.finfo(dtype)
    exponents = rng.integers(int(np.log2(info.smallest_subnormal)), info.maxexp, 20_000)
    values = (rng.random(20_000) + 0.5) * np.exp2(exponents.astype(np.float64))
    special = [info.smallest_subnormal, info.smallest_normal, info.max, 1.0, 2.0, 0.25, 1e-12]
    return np.concatenate([values, special]).astype(dtype)


def _correctly_rounded(x: float, y: float, dtype: np.dtype) -> bool:
    """y is the float (of dtype) nearest to sqrt(x), in exact rational arithmetic: x lies
    strictly between the squares of the midpoints to y's neighbours (the root of a float is
    never a midpoint)."""
    down = float(np.nextafter(dtype.type(y), dtype.type(0)))
    up = float(np.nextafter(dtype.type(y), dtype.type(np.inf)))
    lo, hi = (Fraction(y) + Fraction(down)) / 2, (Fraction(y) + Fraction(up)) / 2
    return lo * lo < Fraction(x) < hi * hi


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
def test_the_root_is_correctly_rounded(dtype) -> None:
    dtype = np.dtype(dtype)
    x = _inputs(dtype)
    y = exact_sqrt(torch.from_numpy(x)).numpy()
    assert y.dtype == dtype
    wrong = [(float(a), float(b)) for a, b in zip(x, y) if not _correctly_rounded(float(a), float(b), dtype)]
    assert not wrong, f"{len(wrong)} of {len(x)} roots not correctly rounded, e.g. {wrong[:3]}"


def test_the_reference_check_catches_a_root_one_unit_off() -> None:
    """The check above fails for a root one unit in the last place away (so it can fail)."""
    x = 2.0
    y = math.sqrt(x)
    assert _correctly_rounded(x, y, np.dtype(np.float64))
    assert not _correctly_rounded(x, math.nextafter(y, math.inf), np.dtype(np.float64))
    assert not _correctly_rounded(x, math.nextafter(y, 0.0), np.dtype(np.float64))


def test_the_gradient_is_torch_s_sqrt_backward() -> None:
    x = torch.tensor([1e-12, 0.25, 2.0, 9.0, 1e30], dtype=torch.float64, requires_grad=True)
    g = torch.tensor([1.0, -2.0, 0.5, 3.0, 1e-3], dtype=torch.float64)
    y = exact_sqrt(x)
    y.backward(g)
    assert torch.equal(x.grad, g / (2 * y.detach()))
    assert torch.autograd.gradcheck(exact_sqrt, (torch.rand(7, dtype=torch.float64) + 0.1).requires_grad_())
    x32 = torch.tensor([0.25, 2.0], requires_grad=True)
    exact_sqrt(x32).sum().backward()
    assert x32.grad.dtype == torch.float32 and torch.allclose(x32.grad, 0.5 / x32.detach().sqrt())


def test_shapes_strides_and_special_values() -> None:
    base = torch.arange(24, dtype=torch.float64).reshape(4, 6)
    strided = base.t()[1::2]
    assert torch.equal(exact_sqrt(strided), torch.from_numpy(np.sqrt(strided.numpy())))
    assert exact_sqrt(torch.tensor(4.0, dtype=torch.float64)).shape == ()
    assert exact_sqrt(torch.tensor(4.0, dtype=torch.float64)).item() == 2.0
    assert exact_sqrt(torch.zeros(0, 3, dtype=torch.float64)).shape == (0, 3)
    out = exact_sqrt(torch.tensor([-1.0, 0.0, float("inf")], dtype=torch.float64))
    assert math.isnan(out[0].item()) and out[1].item() == 0.0 and out[2].item() == math.inf
