"""Paired significance between two models on the same questions (pure functions, seeded).

- `paired_bootstrap`: the mean difference of per-question scores, its percentile-bootstrap
  95% interval and the two-sided p-value that inverts that interval. Questions are resampled
  with replacement (both models' scores move together). With F = the share of resampled
  differences <= 0 and G = the share >= 0, p = min(1, 2 min(F, G)), floored at 1 / (B + 1)
  (the resolution of B resamples): the (1 - alpha) percentile interval excludes 0 exactly
  when p < alpha, so the interval and the p-value never disagree (the interval's ends are
  the empirical alpha/2 quantiles from each side: the lower end is the smallest resampled
  difference with F >= alpha/2, the upper end the largest with G >= alpha/2). Two identical
  runs give d = 0, the interval [0, 0] and p = 1.
- `mcnemar_exact`: the exact McNemar test for binary per-question correctness: among the
  questions exactly one model gets right (b for A, c for B), b ~ Binomial(b + c, 1/2) under
  the null; p = min(1, 2 * P(X <= min(b, c))); b + c = 0 gives p = 1. The tail is summed in
  log space and kept as log10(p), so a p below the smallest float (thousands of discordant
  questions) is printed "< 1e-300" (`p_text`), never 0.

Resamples depend only on (seed, n, n_boot), so every comparison over the same number of
questions uses the same resamples; they are drawn as count matrices, and the resampled
means of many comparisons come from one matrix product (`paired_bootstrap_many`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from harness.stats import resample_blocks

__all__ = ["PairedTest", "McNemar", "paired_bootstrap", "paired_bootstrap_many", "resampled_means",
           "mcnemar_exact", "is_binary", "p_text", "p_cell", "p_short", "P_FLOOR"]

#: Resamples per comparison unless the caller says otherwise.
N_BOOT = 10_000
#: Smallest p-value printed as a number; below it (or when it underflowed to 0) "< 1e-300".
P_FLOOR = 1e-300


def p_text(p: float, n_boot: int | None = None) -> str:
    """A p-value as printed after "p": '= 0.0312', '= 1', or '< 1e-300' (never '= 0'); at the
    bootstrap's floor 1 / (B + 1) what B resamples can say, '< 0.0005' for B = 2000 (as
    `p_short`), never '= 0.0005'."""
    if n_boot is not None and p <= (1.0 / (n_boot + 1)) * (1 + 1e-9):
        return f"< {1.0 / n_boot:.1g}"
    return f"< {P_FLOOR:g}" if p < P_FLOOR else f"= {p:.3g}"


def p_cell(p: float) -> str:
    """A p-value for a table cell: '0.03125', or '< 1e-300' (never '0')."""
    return f"< {P_FLOOR:g}" if p < P_FLOOR else f"{p:.4g}"


def p_short(p: float, n_boot: int | None = None) -> str:
    """A p-value as a cell shows it: '0.41', '0.031', '2.0e-06'; at the bootstrap's floor
    1 / (B + 1) it says what B resamples can say, '< 0.0005' for B = 2000 (never '9.999e-05');
    below the smallest float '< 1e-300'."""
    if n_boot is not None and p <= (1.0 / (n_boot + 1)) * (1 + 1e-9):
        return f"< {1.0 / n_boot:.1g}"
    if p < P_FLOOR:
        return f"< {P_FLOOR:g}"
    return f"{p:.2g}" if p >= 0.001 else f"{p:.1e}"


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
    """Discordant counts (b: only A right, c: only B right), the exact two-sided p and its
    log10 (finite where p itself underflows to 0)."""

    b: int
    c: int
    p: float
    log10_p: float = 0.0


#: Resamples per seeded stream (a block of the counts matrix).
BLOCK_ROWS = 1000


def _weight_blocks(seed: int, n: int, n_boot: int):
    """Resamples as count matrices, block by block: row b holds how often each item is drawn
    in resample b, so the resampled means of many difference vectors D (n x m) are W @ D / n
    in one matrix product. Each block of BLOCK_ROWS resamples has its own seeded stream
    (seed, n, n_boot, block), drawn in bounded pieces (harness.stats.resample_blocks)."""

    for block, start in enumerate(range(0, n_boot, BLOCK_ROWS)):
        rng = np.random.default_rng([seed, n, n_boot, block])
        for _, idx in resample_blocks(n, min(BLOCK_ROWS, n_boot - start), rng):
            weights = np.empty(idx.shape)
            for r in range(idx.shape[0]):
                weights[r] = np.bincount(idx[r], minlength=n)
            yield weights


def resampled_means(diffs: np.ndarray, *, seed: int, n_boot: int) -> np.ndarray:
    """Bootstrap means (n_boot x m) of the columns of `diffs` (n x m), all resampled with the
    same draws (they depend only on seed, n and n_boot)."""
    n = diffs.shape[0]
    return np.vstack([w @ diffs for w in _weight_blocks(seed, n, n_boot)]) / n


def _test(a: np.ndarray, b: np.ndarray, means: np.ndarray, alpha: float) -> PairedTest:
    d = a - b
    diff = float(d.mean())
    if np.all(d == d[0]):  # every resample gives the same difference (float noise aside)
        means = np.full(means.shape, diff)
    # Resampled means within float noise of 0 are 0 (a tie counts on both sides).
    means = np.where(np.abs(means) <= 1e-12 * max(1.0, float(np.abs(d).max())), 0.0, means)
    # Empirical quantiles taken from each side (inverted CDF of d* and of -d*), so that the
    # interval excludes 0 exactly when p < alpha.
    low = float(np.quantile(means, alpha / 2, method="inverted_cdf"))
    high = -float(np.quantile(-means, alpha / 2, method="inverted_cdf"))
    below = np.count_nonzero(means <= 0.0) / means.size
    above = np.count_nonzero(means >= 0.0) / means.size
    p = float(max(min(1.0, 2.0 * min(below, above)), 1.0 / (means.size + 1)))
    return PairedTest(int(d.size), float(a.mean()), float(b.mean()), diff, low, high, p)


def _checked(a, b, alpha: float, n_boot: int) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"paired_bootstrap: need two aligned non-empty lists, got {a.shape} and {b.shape}")
    if not 0.0 < alpha < 1.0 or n_boot < 1:
        raise ValueError("paired_bootstrap: alpha must be in (0, 1) and n_boot >= 1")
    return a, b


def paired_bootstrap(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, *, seed: int = 0,
                     n_boot: int = N_BOOT, alpha: float = 0.05) -> PairedTest:
    """Paired bootstrap of mean(a - b) (see the module docstring); a and b aligned by item."""
    return paired_bootstrap_many([(a, b)], seed=seed, n_boot=n_boot, alpha=alpha)[0]


def paired_bootstrap_many(pairs: Sequence[tuple], *, seed: int = 0, n_boot: int = N_BOOT,
                          alpha: float = 0.05) -> list[PairedTest]:
    """`paired_bootstrap` of many (a, b) pairs at once: pairs with the same number of items
    share their resamples and are computed in one matrix product per block."""
    checked = [_checked(a, b, alpha, n_boot) for a, b in pairs]
    by_n: dict[int, list[int]] = {}
    for k, (a, _) in enumerate(checked):
        by_n.setdefault(a.size, []).append(k)
    out: list[PairedTest | None] = [None] * len(checked)
    for members in by_n.values():
        diffs = np.column_stack([checked[k][0] - checked[k][1] for k in members])
        means = resampled_means(diffs, seed=seed, n_boot=n_boot)
        for col, k in enumerate(members):
            out[k] = _test(*checked[k], means[:, col], alpha)
    return [t for t in out if t is not None]


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
        return McNemar(0, 0, 1.0, 0.0)
    k = min(only_a, only_b)
    # Exact binomial tail, summed in log space (m may be large: the tail underflows a float).
    logs = [math.lgamma(m + 1) - math.lgamma(i + 1) - math.lgamma(m - i + 1) - m * math.log(2.0)
            for i in range(k + 1)]
    top = max(logs)
    log_p = min(0.0, math.log(2.0) + top + math.log(sum(math.exp(x - top) for x in logs)))
    return McNemar(only_a, only_b, math.exp(log_p), log_p / math.log(10.0))
