"""Bootstrap and Wilson intervals, mean_ci, accuracy_breakdown."""

from __future__ import annotations

import numpy as np
import pytest

from harness.errors import DataError
from harness.stats import accuracy_breakdown, bootstrap_ci, mean_ci, wilson_interval


def test_bootstrap_is_deterministic_for_a_seed() -> None:
    values = np.random.default_rng(1).random(500)
    assert bootstrap_ci(values, seed=7) == bootstrap_ci(list(values), seed=7)
    assert bootstrap_ci(values, seed=7) != bootstrap_ci(values, seed=8)


def test_bootstrap_matches_a_plain_loop() -> None:
    values = np.arange(20, dtype=float)
    rng = np.random.default_rng(3)
    stats = [values[rng.integers(0, 20, size=(1, 20))].mean() for _ in range(200)]
    expected = tuple(np.quantile(stats, [0.05, 0.95]))
    assert bootstrap_ci(values, seed=3, n_boot=200, alpha=0.1) == pytest.approx(expected)


def test_bootstrap_width_for_a_known_proportion() -> None:
    values = np.array([1.0] * 500 + [0.0] * 500)
    low, high = bootstrap_ci(values, seed=0)
    assert low < 0.5 < high
    # normal approximation: 2 * 1.96 * sqrt(0.25 / 1000) = 0.062
    assert 0.05 < high - low < 0.075


def test_bootstrap_in_blocks_and_other_statistics() -> None:
    values = np.random.default_rng(2).normal(size=10_000)  # resampled in several blocks
    low, high = bootstrap_ci(values, seed=1, n_boot=300)
    assert low < values.mean() < high
    assert bootstrap_ci(values, seed=1, n_boot=300) == (low, high)
    med_low, med_high = bootstrap_ci(values, seed=1, n_boot=300, statistic=np.median)
    assert med_low < np.median(values) < med_high


def test_bootstrap_degenerate_and_bad_input() -> None:
    assert bootstrap_ci([0.25] * 10, seed=0) == (0.25, 0.25)
    assert bootstrap_ci([1.0], seed=0) == (1.0, 1.0)
    for bad in ([], [1.0, float("nan")], [[1.0, 2.0]]):
        with pytest.raises(DataError):
            bootstrap_ci(bad, seed=0)
    with pytest.raises(DataError):
        bootstrap_ci([1.0], seed=0, alpha=1.5)


def test_wilson_interval_known_values() -> None:
    # z = 1.959964; 0/10 -> upper z^2 / (n + z^2)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(3.841459 / 13.841459, abs=1e-6)
    assert wilson_interval(5, 10) == pytest.approx((0.236593, 0.763407), abs=1e-6)
    low, high = wilson_interval(10, 10)
    assert low == pytest.approx(10 / 13.841459, abs=1e-6) and high == 1.0
    narrower = wilson_interval(50, 100, alpha=0.2)
    wider = wilson_interval(50, 100, alpha=0.01)
    assert wider[0] < narrower[0] and narrower[1] < wider[1]
    for args in ((1, 0), (11, 10), (-1, 10)):
        with pytest.raises(DataError):
            wilson_interval(*args)


def test_mean_ci() -> None:
    values = [0.0, 1.0, 1.0, 1 / 3, 2 / 3] * 40
    mean, low, high = mean_ci(values, seed=5)
    assert mean == pytest.approx(0.6)
    assert low < mean < high
    assert (low, high) == bootstrap_ci(values, seed=5)


def test_accuracy_breakdown_rows() -> None:
    values = np.array([1.0, 0.0, 0.6, 1.0, 0.3, 0.9])
    atypes = ["yes/no", "yes/no", "other", "number", "other", ""]
    qtypes = ["is the", "is the", "what", "how many", "what", "what"]
    rows = accuracy_breakdown(values, atypes, qtypes, seed=0, n_boot=200)
    names = [r["metric"] for r in rows]
    assert names == [
        "vqa_accuracy",
        "vqa_accuracy/answer_type=yes/no",
        "vqa_accuracy/answer_type=number",
        "vqa_accuracy/answer_type=other",
        "vqa_accuracy/question_type=how many",
        "vqa_accuracy/question_type=is the",
        "vqa_accuracy/question_type=what",
    ]
    by_name = {r["metric"]: r for r in rows}
    assert by_name["vqa_accuracy"]["n"] == 6
    assert by_name["vqa_accuracy"]["value"] == pytest.approx(3.8 / 6)
    assert by_name["vqa_accuracy/answer_type=other"]["value"] == pytest.approx(0.45)
    assert by_name["vqa_accuracy/answer_type=other"]["n"] == 2  # "" is in no group
    assert by_name["vqa_accuracy/question_type=what"]["n"] == 3
    assert by_name["vqa_accuracy/answer_type=number"]["ci_low"] == 1.0
    for row in rows:
        assert set(row) == {"metric", "value", "n", "ci_low", "ci_high"}
        assert row["ci_low"] <= row["value"] <= row["ci_high"]
    assert rows == accuracy_breakdown(values, atypes, qtypes, seed=0, n_boot=200)
    only = accuracy_breakdown(values, None, None, seed=0, metric="vqa_accuracy_lenient")
    assert [r["metric"] for r in only] == ["vqa_accuracy_lenient"]
    with pytest.raises(DataError):
        accuracy_breakdown(values, atypes[:-1], None, seed=0)
