"""Per-question scores of runs, matched between two result rows (for paired tests).

Reads each run's per-example score files (harness.perexample: artifacts/<probe>/per_example/
*.json, written by the probes) and finds, for a result row, the per-question scores it is the
mean of. Two rows are comparable when both have scores; they are paired on their common ids.
A comparison is tested only on enough common questions (`pairing_problem`: at least
MIN_PAIRED, and at least MIN_SHARE of either row's), and a group's best is chosen only among
rows over comparable numbers of questions (`rankable`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from harness.perexample import ExampleScores, read_scores
from harness.types import ResultRow

from .runs import RunInfo
from .significance import McNemar, PairedTest, is_binary, mcnemar_exact, paired_bootstrap_many

__all__ = ["ScoreIndex", "Comparison", "compare_rows", "compare_many", "pair_scores", "row_key", "MIN_PAIRED",
           "MIN_SHARE", "enough_items", "pairing_problem", "rankable"]

Key = tuple[str, str, str, str, str, str]

#: Fewest paired questions a leaderboard comparison is tested on. Below 6 no test can reach
#: p < 0.05: the exact two-sided sign test's smallest p over n paired questions is 2 / 2^n
#: (0.0625 for 5, 0.031 for 6), while the bootstrap resamples the same few values and reaches
#: its floor 1 / (B + 1) with a single question (every resample is that question).
MIN_PAIRED = 6
#: A comparison whose common questions are fewer than this share of either row's questions is
#: not tested: the two means the reader sees are then mostly over different questions.
MIN_SHARE = 0.5


def enough_items(n: int) -> bool:
    """Whether `n` questions can carry a test at all (at least MIN_PAIRED): the rule of every
    paired test, of `harness compare` and of a card's verdict from one row's interval."""
    return n >= MIN_PAIRED


def pairing_problem(paired: int, n_a: int, n_b: int) -> str:
    """Why a comparison on `paired` common questions of rows over `n_a` and `n_b` questions is
    not tested, or '' when it is."""
    if not enough_items(paired):
        return (f"too few paired items ({paired}; fewer than {MIN_PAIRED}, where no test can reach "
                "p < 0.05)")
    if paired < MIN_SHARE * max(n_a, n_b):
        return f"only {paired} paired items of {n_a} and {n_b} (the means are over different questions)"
    return ""


def rankable(rows: Sequence[ResultRow]) -> list[bool]:
    """Which rows of one group may be its best (bold, ▲): at least MIN_PAIRED items and at
    least MIN_SHARE of the group's largest n (a mean over far fewer questions is no rival)."""
    most = max((r.n for r in rows), default=0)
    return [enough_items(r.n) and r.n >= MIN_SHARE * most for r in rows]


def row_key(row: ResultRow) -> Key:
    """(probe, dataset, split, train, variant, metric): what per-example scores are keyed by."""
    return (row.probe, row.dataset, row.split, row.train, row.variant, row.metric)


class ScoreIndex:
    """run id -> key -> (ids, scores); files are read lazily, once per run."""

    def __init__(self, runs: Iterable[RunInfo]) -> None:
        self._runs = {info.run_id: info for info in runs}
        self._scores: dict[str, dict[Key, tuple[tuple[str, ...], np.ndarray]]] = {}
        self._paths: dict[tuple[str, Key], str] = {}
        #: (run id, key) of score series left out: they do not average to their row's value
        self.rejected: set[tuple[str, Key]] = set()
        self.problems: list[str] = []

    def of_run(self, run_id: str) -> dict[Key, tuple[tuple[str, ...], np.ndarray]]:
        """Every per-example score series of one run."""
        if run_id not in self._scores:
            found: list[ExampleScores] = []
            info = self._runs.get(run_id)
            if info is not None:
                found, problems = read_scores(info.path)
                self.problems += problems
            table: dict[Key, tuple[tuple[str, ...], np.ndarray]] = {}
            for s in found:
                for metric, values in s.scores.items():
                    table[s.key(metric)] = (s.ids, np.asarray(values, dtype=np.float64))
                    self._paths[(run_id, s.key(metric))] = s.path
            self._scores[run_id] = table
        return self._scores[run_id]

    def get(self, row: ResultRow) -> tuple[tuple[str, ...], np.ndarray] | None:
        """The per-question scores behind `row`, or None when its run has none, or when they
        do not average to the row's value (harness.perexample: the row is their mean), so an
        edited or stale score file (a score of 7 for a fraction) is a problem, never a test."""
        found = self.of_run(row.run_id).get(row_key(row))
        if found is None or math.isclose(float(found[1].mean()), row.value, rel_tol=1e-9, abs_tol=1e-12):
            return found
        key = (row.run_id, row_key(row))
        if key not in self.rejected:
            self.rejected.add(key)
            self.problems.append(f"{self._paths.get(key) or row.run_id}: the per-question scores of {row.metric!r} "
                                 f"average to {float(found[1].mean()):.6g}, not {row.value:.6g} as its result row "
                                 "says (file edited, or from another run?); that metric is not compared")
        return None

    def rejects(self, row: ResultRow) -> bool:
        """Whether `row`'s scores were left out by `get` (their mean is not the row's value)."""
        return (row.run_id, row_key(row)) in self.rejected


@dataclass(frozen=True)
class Comparison:
    """A paired comparison of two rows on their common questions."""

    a: ResultRow
    b: ResultRow
    test: PairedTest
    mcnemar: McNemar | None
    n_a: int
    n_b: int

    @property
    def problem(self) -> str:
        """Why this comparison is not a test (too few common questions), or ''."""
        return pairing_problem(self.test.n, self.n_a, self.n_b)


def aligned(first: tuple[Sequence[str], np.ndarray], second: tuple[Sequence[str], np.ndarray]) -> \
        tuple[np.ndarray, np.ndarray]:
    """The two score vectors restricted to their common ids, in the first one's order."""
    ids_a, vals_a = first
    where_b = {i: k for k, i in enumerate(second[0])}
    keep = [(k, where_b[i]) for k, i in enumerate(ids_a) if i in where_b]
    if not keep:
        return np.empty(0), np.empty(0)
    ka, kb = map(list, zip(*keep))
    return vals_a[ka], second[1][kb]


def pair_scores(index: ScoreIndex, a: ResultRow, b: ResultRow, other: ScoreIndex | None = None) -> \
        tuple[np.ndarray, np.ndarray, int, int] | None:
    """The per-question scores of `a` and `b` on their common questions (and how many each
    has), or None when one has none or they share no question."""
    first = index.get(a)
    second = (other or index).get(b)
    if first is None or second is None:
        return None
    va, vb = aligned(first, second)
    return None if va.size == 0 else (va, vb, len(first[0]), len(second[0]))


def compare_many(index: ScoreIndex, pairs: Sequence[tuple[ResultRow, ResultRow]], *, seed: int = 0,
                 n_boot: int = 10_000, other: ScoreIndex | None = None) -> list[Comparison | None]:
    """Paired tests of each (a, b) (b's scores from `other` when given); None where a pair has
    no common per-question scores. Pairs over the same number of questions share resamples."""
    found = [pair_scores(index, a, b, other) for a, b in pairs]
    todo = [k for k, f in enumerate(found) if f is not None]
    tests = paired_bootstrap_many([(found[k][0], found[k][1]) for k in todo], seed=seed, n_boot=n_boot)
    out: list[Comparison | None] = [None] * len(pairs)
    for k, test in zip(todo, tests):
        va, vb, n_a, n_b = found[k]  # type: ignore[misc]
        mc = mcnemar_exact(va, vb) if is_binary(va) and is_binary(vb) else None
        out[k] = Comparison(pairs[k][0], pairs[k][1], test, mc, n_a, n_b)
    return out


def compare_rows(index: ScoreIndex, a: ResultRow, b: ResultRow, *, seed: int = 0, n_boot: int = 10_000,
                 other: ScoreIndex | None = None) -> Comparison | None:
    """Paired test of `a` against `b` (scores of `b` from `other` when given), or None when
    one of them has no per-question scores or they share no question."""
    return compare_many(index, [(a, b)], seed=seed, n_boot=n_boot, other=other)[0]
