"""Confidence intervals and breakdowns for per-item scores (pure functions, seeded): percentile
bootstrap, vectorized with numpy and deterministic for a seed (the resampling indices depend
only on the seed, the number of values and ``n_boot``), Wilson intervals, accuracy breakdowns
by answer and question type, and a float sum with the same bits on every Python."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from statistics import NormalDist
from typing import Any

import numpy as np

from .errors import DataError

__all__ = ["accuracy_breakdown", "bootstrap_ci", "mean_ci", "ordered_sum", "resample_blocks", "wilson_interval"]

# Resample in blocks of at most this many drawn indices, so memory stays bounded
# (200,000 values x 1,000 resamples would otherwise need 1.6 GB of indices).
_MAX_BLOCK_CELLS = 4_000_000


def ordered_sum(values: Iterable[float]) -> float:
    """The values added left to right, each addition rounded: `sum()` up to Python 3.11, and
    what the official evaluation scripts assume. Python 3.12's `sum()` compensates rounding,
    so its last bits (and a figure's 16th digit) would depend on the Python version."""
    total = 0.0
    for v in values:
        total += v
    return total


def _as_values(values: Sequence[float] | np.ndarray, where: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise DataError(f"{where}: expected a flat list of values, got shape {arr.shape}")
    if arr.size == 0:
        raise DataError(f"{where}: no values, the interval is undefined")
    if not np.all(np.isfinite(arr)):
        raise DataError(f"{where}: values contain NaN or infinity")
    return arr


def _check_alpha(alpha: float, where: str) -> None:
    if not 0.0 < alpha < 1.0:
        raise DataError(f"{where}: alpha must be in (0, 1), got {alpha}")


def bootstrap_ci(
    values: Sequence[float] | np.ndarray, *, seed: int, n_boot: int = 1000, alpha: float = 0.05,
    statistic: Callable[..., Any] = np.mean,
) -> tuple[float, float]:
    """Percentile bootstrap (1 - alpha) interval of ``statistic`` over ``values``. ``statistic``
    must reduce along an ``axis`` keyword like ``np.mean`` or ``np.median``: it is called once
    per block of resamples as ``statistic(samples, axis=1)``."""
    arr = _as_values(values, "bootstrap_ci")
    _check_alpha(alpha, "bootstrap_ci")
    if n_boot < 1:
        raise DataError(f"bootstrap_ci: n_boot must be >= 1, got {n_boot}")
    stats = np.empty(n_boot, dtype=np.float64)
    for start, idx in resample_blocks(arr.size, n_boot, seed):
        stats[start:start + len(idx)] = statistic(arr[idx], axis=1)
    low, high = np.quantile(stats, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def resample_blocks(n: int, n_boot: int, seed: int | np.random.Generator) -> Iterator[tuple[int, np.ndarray]]:
    """(first resample, index block [b, n]) over `n_boot` bootstrap resamples of `n` items,
    drawn from one seeded stream (a seed or a Generator) in blocks of at most
    _MAX_BLOCK_CELLS indices: the same draws as one n_boot x n call, in bounded memory."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    block = max(1, _MAX_BLOCK_CELLS // max(n, 1))
    for start in range(0, n_boot, block):
        yield start, rng.integers(0, n, size=(min(n_boot, start + block) - start, n))


def wilson_interval(successes: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval for ``successes`` out of ``n`` (fractions in [0, 1])."""
    _check_alpha(alpha, "wilson_interval")
    if n <= 0:
        raise DataError(f"wilson_interval: n must be > 0, got {n}")
    if not 0 <= successes <= n:
        raise DataError(f"wilson_interval: successes must be in [0, {n}], got {successes}")
    z = NormalDist().inv_cdf(1 - alpha / 2)
    p = successes / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    # The bounds are exactly 0 at 0 successes and exactly 1 at n; float rounding is not.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def mean_ci(values: Sequence[float] | np.ndarray, seed: int, *, n_boot: int = 1000,
            alpha: float = 0.05) -> tuple[float, float, float]:
    """(mean, low, high): the mean with its percentile-bootstrap interval."""
    arr = _as_values(values, "mean_ci")
    low, high = bootstrap_ci(arr, seed=seed, n_boot=n_boot, alpha=alpha)
    return float(arr.mean()), low, high


def _row(metric: str, values: np.ndarray, seed: int, n_boot: int, alpha: float) -> dict:
    mean, low, high = mean_ci(values, seed, n_boot=n_boot, alpha=alpha)
    return {"metric": metric, "value": mean, "n": int(values.size), "ci_low": low, "ci_high": high}


def accuracy_breakdown(per_question: Sequence[float] | np.ndarray,
                       answer_types: Sequence[str] | None, question_types: Sequence[str] | None, *,
                       seed: int, metric: str = "vqa_accuracy", n_boot: int = 1000,
                       alpha: float = 0.05) -> list[dict]:
    """Rows ``{metric, value, n, ci_low, ci_high}`` named ``"<metric>"``, then
    ``"<metric>/answer_type=<t>"`` in the official order (yes/no, number, other, then any other
    sorted), then ``"<metric>/question_type=<t>"`` sorted. Items whose type is empty are counted
    overall but in no group; pass ``None`` to skip a breakdown."""
    values = _as_values(per_question, f"accuracy_breakdown ({metric})")
    rows = [_row(metric, values, seed, n_boot, alpha)]
    for kind, labels in (("answer_type", answer_types), ("question_type", question_types)):
        if labels is None:
            continue
        if len(labels) != values.size:
            raise DataError(f"accuracy_breakdown ({metric}): {len(labels)} {kind} labels "
                            f"for {values.size} values")
        labels_arr = np.asarray(labels, dtype=object)
        present = {str(t) for t in labels_arr if t}
        official = ([t for t in ("yes/no", "number", "other") if t in present]
                    if kind == "answer_type" else [])
        for label in official + sorted(present - set(official)):
            mask = labels_arr == label
            rows.append(_row(f"{metric}/{kind}={label}", values[mask], seed, n_boot, alpha))
    return rows
