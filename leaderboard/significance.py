"""Paired significance between two models on the same questions (pure functions, seeded).

- `paired_bootstrap`: the mean difference of per-question scores, its percentile-bootstrap
  95% interval and a two-sided bootstrap p-value. Questions are resampled with replacement
  (both models' scores move together); the p-value is the share of resampled differences at
  least as far from the observed difference as the observed difference is from 0, i.e. the
  bootstrap distribution shifted to the null (Efron & Tibshirani 1993, §16.4), with the
  usual +1 correction: p = (1 + #{|d*_b - d| >= |d|}) / (B + 1). Two identical runs give
  d = 0 and p = 1.
- `mcnemar_exact`: the exact McNemar test for binary per-question correctness: among the
  questions exactly one model gets right (b for A, c for B), b ~ Binomial(b + c, 1/2) under
  the null; p = min(1, 2 * P(X <= min(b, c))); b + c = 0 gives p = 1.

Resampling indices depend only on (seed, n, n_boot), so every comparison over the same
number of questions uses the same resamples (and they are computed once).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

__all__ = ["PairedTest", "McNemar", "paired_bootstrap", "mcnemar_exact", "is_binary"]

#: Resamples per comparison unless the caller says otherwise.
N_BOOT = 10_000


@dataclass(frozen=True)
class PairedTest:
    """mean(a) - mean(b) over n paired items, its (1 - alpha) interval and the p-value."""

    n: int
    mean_a: float
    mean_b: float
    diff: float
    low: float
    high: float
    p: float


@dataclass(frozen=True)
class McNemar:
    """Discordant counts (b: only A right, c: only B right) and the exact two-sided p."""

    b: int
    c: int
    p: float


@lru_cache(maxsize=8)
def _indices(seed: int, n: int, n_boot: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dtype = np.int32 if n < 2**31 else np.int64
    return rng.integers(0, n, size=(n_boot, n), dtype=dtype)


def _resampled_means(d: np.ndarray, seed: int, n_boot: int) -> np.ndarray:
    # Blocks keep memory bounded for large n (the index matrix itself is cached).
    n = d.size
    if n * n_boot <= 20_000_000:
        return d[_indices(seed, n, n_boot)].mean(axis=1)
    rng = np.random.default_rng(seed)
    out = np.empty(n_boot)
    block = max(1, 4_000_000 // n)
    for start in range(0, n_boot, block):
        stop = min(n_boot, start + block)
        out[start:stop] = d[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    return out


def paired_bootstrap(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, *, seed: int = 0,
                     n_boot: int = N_BOOT, alpha: float = 0.05) -> PairedTest:
    """Paired bootstrap of mean(a - b) (see the module docstring); a and b aligned by item."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"paired_bootstrap: need two aligned non-empty lists, got {a.shape} and {b.shape}")
    if not 0.0 < alpha < 1.0 or n_boot < 1:
        raise ValueError("paired_bootstrap: alpha must be in (0, 1) and n_boot >= 1")
    d = a - b
    diff = float(d.mean())
    if np.all(d == d[0]):  # every resample gives the same difference
        means = np.full(n_boot, diff)
    else:
        means = _resampled_means(d, seed, n_boot)
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    # A tolerance absorbs float noise in resampled means equal to the observed one.
    extreme = int(np.count_nonzero(np.abs(means - diff) >= abs(diff) - 1e-12))
    p = (1 + extreme) / (n_boot + 1)
    return PairedTest(int(d.size), float(a.mean()), float(b.mean()), diff, float(low), float(high), min(1.0, p))


def is_binary(values: Sequence[float] | np.ndarray) -> bool:
    """Whether every value is 0 or 1 (per-question correctness)."""
    arr = np.asarray(values, dtype=np.float64)
    return bool(arr.size) and bool(np.all((arr == 0.0) | (arr == 1.0)))


def mcnemar_exact(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> McNemar:
    """Exact McNemar test on aligned binary correctness vectors (ValueError otherwise)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or not (is_binary(a) and is_binary(b)):
        raise ValueError("mcnemar_exact: needs two aligned lists of 0/1 values")
    only_a = int(np.count_nonzero((a == 1.0) & (b == 0.0)))
    only_b = int(np.count_nonzero((a == 0.0) & (b == 1.0)))
    m = only_a + only_b
    if m == 0:
        return McNemar(0, 0, 1.0)
    k = min(only_a, only_b)
    # Exact binomial tail in log space (m may be large).
    logs = [math.lgamma(m + 1) - math.lgamma(i + 1) - math.lgamma(m - i + 1) - m * math.log(2.0)
            for i in range(k + 1)]
    top = max(logs)
    tail = math.exp(top) * sum(math.exp(x - top) for x in logs)
    return McNemar(only_a, only_b, min(1.0, 2.0 * tail))
