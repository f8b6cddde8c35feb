"""`harness compare RUN_A RUN_B`: do two models differ on the same questions? (docs/compare.md)

For every metric both runs have per-question scores for (harness.perexample), on the
questions both runs scored: the two means, the difference A - B with its paired-bootstrap
95% interval and p-value, and the exact McNemar p-value where the scores are per-question
correctness (0/1). Rows are matched on (probe, dataset, split, variant, metric) and the
training data; when the two models were trained on different data (a pretrained model
against a fitted one), a metric whose task appears once in each run is still matched and the
two training sets are printed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from harness.types import ResultRow

from .degenerate import degenerate_tasks, neutralize
from .paired import Comparison, ScoreIndex, compare_many, row_key
from .runs import RunInfo
from .significance import p_cell

__all__ = ["compare_runs", "render_comparisons", "comparisons_json", "match_rows", "Matched"]


@dataclass(frozen=True)
class Matched:
    """A result row of run A and its counterpart in run B."""

    a: ResultRow
    b: ResultRow


def _loose(row: ResultRow) -> tuple[str, ...]:
    return (row.probe, row.dataset, row.split, row.variant, row.metric)


def match_rows(rows_a: Sequence[ResultRow], rows_b: Sequence[ResultRow]) -> list[Matched]:
    """Rows of A and B for the same metric of the same task (training data included when
    both runs have it; else a task that occurs once in each run)."""
    by_key = {row_key(r): r for r in rows_b}
    loose_b: dict[tuple[str, ...], list[ResultRow]] = {}
    for r in rows_b:
        loose_b.setdefault(_loose(r), []).append(r)
    loose_a: dict[tuple[str, ...], int] = {}
    for r in rows_a:
        loose_a[_loose(r)] = loose_a.get(_loose(r), 0) + 1
    out = []
    for r in rows_a:
        twin = by_key.get(row_key(r))
        if twin is None and loose_a[_loose(r)] == 1 and len(loose_b.get(_loose(r), ())) == 1:
            twin = loose_b[_loose(r)][0]
        if twin is not None:
            out.append(Matched(r, twin))
    return out


def compare_runs(a: RunInfo, b: RunInfo, *, seed: int = 0, n_boot: int = 10_000,
                 probes: Sequence[str] = ()) -> tuple[list[Comparison], list[str]]:
    """Paired comparisons of every metric with per-question scores in both runs, and notes
    (problems reading score files, metrics without per-question scores)."""
    index_a, index_b = ScoreIndex([a]), ScoreIndex([b])
    # Degenerate values (a model that changed no answer under any perturbation) have no direction.
    odd_a, odd_b = degenerate_tasks(a.rows), degenerate_tasks(b.rows)
    rows_a, rows_b = neutralize(a.rows, odd_a), neutralize(b.rows, odd_b)
    matched = [m for m in match_rows(rows_a, rows_b) if not probes or m.a.probe in probes]
    results = compare_many(index_a, [(m.a, m.b) for m in matched], seed=seed, n_boot=n_boot, other=index_b)
    found = [c for c in results if c is not None]
    without = {m.a.probe for m, c in zip(matched, results) if c is None}
    notes = index_a.problems + index_b.problems
    compared = {c.a.probe for c in found}
    for which, odd in (("A", odd_a), ("B", odd_b)):
        notes += list(dict.fromkeys(f"run {which}: {reason} (no 'better' on its answer changes)"
                                    for task, reason in odd.items() if task[1] in compared))
    with_scores = {c.a.probe for c in found}
    for which, index, side in (("A", index_a, 0), ("B", index_b, 1)):
        # A metric whose probe has per-question scores in this run, but not this metric: its
        # file is gone (deleted, or the run was copied without it), so it is left out.
        for m, c in zip(matched, results):
            row = (m.a, m.b)[side]
            if c is None and row.probe in with_scores and index.get(row) is None:
                notes.append(f"run {which}: the per-question scores of {row.probe} {row.metric}"
                             f"{f' ({row.variant})' if row.variant else ''} on {row.dataset}/{row.split} are "
                             "missing (artifacts/<probe>/per_example/ file deleted?); that metric is not compared")
    lacking = sorted(without - with_scores)
    if lacking:
        notes.append("no per-question scores in both runs for probe(s) " + ", ".join(lacking)
                     + " (runs written before per-example scores, or probes that do not write them)")
    return found, notes


def _pct(row: ResultRow) -> bool:
    return row.unit == "fraction"


def _fmt(value: float, pct: bool) -> str:
    return f"{100 * value:.2f}" if pct else f"{value:.4f}"


def render_comparisons(a: RunInfo, b: RunInfo, found: Sequence[Comparison], alpha: float = 0.05) -> str:
    """The comparisons as a plain-text table (fractions in %)."""
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    body = []
    for c in found:
        pct = _pct(c.a)
        t = c.test
        train = c.a.train if c.a.train == c.b.train else f"{c.a.train or '-'} vs {c.b.train or '-'}"
        better = ""
        hib = c.a.higher_is_better if c.a.higher_is_better == c.b.higher_is_better else None
        if hib is None:
            better = "-"  # no better direction (model-free, count, chance, ablated input, degenerate)
        elif t.p < alpha and t.diff != 0:
            better = "A" if (t.diff > 0) == hib else "B"
        body.append([f"{c.a.dataset}/{c.a.split}", train or "-", c.a.probe, c.a.variant or "-", c.a.metric,
                     f"{t.n}" + ("" if t.n == c.n_a == c.n_b else f" of {c.n_a}/{c.n_b}"),
                     _fmt(t.mean_a, pct), _fmt(t.mean_b, pct),
                     f"{_fmt(t.diff, pct)} [{_fmt(t.low, pct)}, {_fmt(t.high, pct)}]", p_cell(t.p),
                     "-" if c.mcnemar is None else f"{p_cell(c.mcnemar.p)} ({c.mcnemar.b}/{c.mcnemar.c})", better])
    head = (f"A: {a.run_id} ({a.manifest.get('model', '-')})\nB: {b.run_id} ({b.manifest.get('model', '-')})\n"
            f"Fractions in %; difference A - B with its paired-bootstrap 95% interval; p: two-sided; "
            f"McNemar: exact, (only A right / only B right); better: significant at {alpha:g} "
            f"('-': the metric has no better direction, e.g. accuracy with an ablated input).\n\n")
    return head + tabulate(body, headers=["data", "trained on", "probe", "variant", "metric", "n", "A", "B",
                                          "A - B [95% CI]", "p (bootstrap)", "p (McNemar)", "better"],
                           tablefmt="github", disable_numparse=True) + "\n"


def _as_json(c: Comparison) -> dict:
    t = c.test
    return {"probe": c.a.probe, "dataset": c.a.dataset, "split": c.a.split, "variant": c.a.variant,
            "metric": c.a.metric, "train_a": c.a.train, "train_b": c.b.train, "unit": c.a.unit,
            "higher_is_better": c.a.higher_is_better, "n": t.n, "n_a": c.n_a, "n_b": c.n_b,
            "mean_a": t.mean_a, "mean_b": t.mean_b, "diff": t.diff, "ci_low": t.low, "ci_high": t.high,
            "p_bootstrap": t.p, "mcnemar": None if c.mcnemar is None else
            {"only_a": c.mcnemar.b, "only_b": c.mcnemar.c, "p": c.mcnemar.p, "log10_p": c.mcnemar.log10_p}}


def comparisons_json(a: RunInfo, b: RunInfo, found: Sequence[Comparison], *, seed: int, n_boot: int) -> str:
    """The comparisons as a JSON document."""
    return json.dumps({"a": a.run_id, "b": b.run_id, "seed": seed, "n_boot": n_boot,
                       "comparisons": [_as_json(c) for c in found]}, indent=1) + "\n"
