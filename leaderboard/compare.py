"""`harness compare RUN_A RUN_B`: do two models differ on the same questions? (docs/compare.md)

For every metric both runs have per-question scores for (harness.perexample), on the
questions both runs scored: the two means, the difference A - B with its paired-bootstrap
95% interval and p-value, and the exact McNemar p-value where the scores are per-question
correctness (0/1). Rows are matched on (probe, dataset, split, variant, metric) and the
training data; when the two models were trained on different data (a pretrained model
against a fitted one), a metric whose task appears once in each run is still matched and the
two training sets are printed. A metric paired on fewer than MIN_PAIRED questions (paired.py:
below it no test can reach p < 0.05) is listed as not tested, with why and no p-value.

The text starts with one line ("A better on N metrics, worse on M, no difference on K"),
then one table per data and training set with readable metric names (the probes' own,
`Display.metric_names`), wrapped to the terminal's width; the same numbers measured by two
probes (accuracy and balanced-accuracy share predictions) are shown once. `--wide` prints
one flat table with every column and the metric ids, for scripts.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from harness.errors import UsageError
from harness.registry import did_you_mean
from harness.types import ResultRow

from .degenerate import degenerate_tasks, neutralize
from .labels import Names, readable_spec
from .paired import MIN_PAIRED, Comparison, ScoreIndex, compare_many, enough_items, row_key
from .runs import RunInfo
from .significance import p_short
from .texttable import render_text_table

__all__ = ["compare_runs", "render_comparisons", "comparisons_json", "match_rows", "Matched", "check_probes",
           "summary_line", "unique_comparisons", "not_tested"]


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


def check_probes(a: RunInfo, b: RunInfo, probes: Sequence[str]) -> None:
    """UsageError naming a `--probe` that neither run has, with the near matches."""
    known = sorted({r.probe for r in (*a.rows, *b.rows)})
    for probe in probes:
        if probe not in known:
            raise UsageError(f"--probe {probe!r}: no row of the two runs comes from it{did_you_mean(probe, known)}")


def _names(a: RunInfo, b: RunInfo) -> Names:
    return Names({**b.displays, **a.displays}, {**b.layouts, **a.layouts})


def compare_runs(a: RunInfo, b: RunInfo, *, seed: int = 0, n_boot: int = 10_000,
                 probes: Sequence[str] = ()) -> tuple[list[Comparison], list[str]]:
    """Paired comparisons of every metric with per-question scores in both runs, and notes
    (problems reading score files, probes without per-question scores)."""
    index_a, index_b = ScoreIndex([a]), ScoreIndex([b])
    # Degenerate values (the probes' `Display.degenerate`) have no better direction.
    displays = {**b.displays, **a.displays}
    odd_a, odd_b = degenerate_tasks(a.rows, displays), degenerate_tasks(b.rows, displays)
    rows_a, rows_b = neutralize(a.rows, odd_a), neutralize(b.rows, odd_b)
    matched = [m for m in match_rows(rows_a, rows_b) if not probes or m.a.probe in probes]
    results = compare_many(index_a, [(m.a, m.b) for m in matched], seed=seed, n_boot=n_boot, other=index_b)
    found = [c for c in results if c is not None]
    without = {m.a.probe for m, c in zip(matched, results) if c is None}
    notes = index_a.problems + index_b.problems
    compared = {c.a.probe for c in found}
    for which, odd in (("A", odd_a), ("B", odd_b)):
        notes += list(dict.fromkeys(f"run {which}: {reason} (no 'better' on those rows)"
                                    for task, (_, reason) in odd.items() if task[1] in compared))
    with_scores = {c.a.probe for c in found}
    for m, c in zip(matched, results):
        # Per-question scores in one run only: the other's file is gone (deleted, or the run
        # copied without it), so the metric is left out. A metric without scores in either
        # run (a breakdown row, a model-free count) is simply not paired: no note.
        has = (index_a.get(m.a) is not None, index_b.get(m.b) is not None)
        if c is None and has[0] != has[1] and not (index_a.rejects(m.a) or index_b.rejects(m.b)):
            which, row = ("B", m.b) if has[0] else ("A", m.a)
            notes.append(f"run {which}: the per-question scores of {row.probe} {row.metric}"
                         f"{f' ({row.variant})' if row.variant else ''} on {row.dataset}/{row.split} are "
                         "missing (artifacts/<probe>/.../per_example/ file deleted?); that metric is not compared")
    lacking = sorted(without - with_scores)
    if lacking:
        names = _names(a, b)
        notes.append("not compared, no per-question scores in both runs: " + ", ".join(names.probe(p) for p in lacking)
                     + " (a probe that writes none, such as a model-free audit, or a run older than them)")
    return found, notes


def _fmt(value: float, pct: bool) -> str:
    return f"{100 * value:.2f}" if pct else f"{value:.4f}"


def not_tested(c: Comparison) -> str:
    """Why `c` is not a test ('too few paired questions: 3'), or '' when it is one. Only the
    leaderboard's minimum applies (paired.enough_items), not its share of each row's questions:
    here both means are over the paired questions, and `n` says "n of nA/nB"."""
    return "" if enough_items(c.test.n) else f"too few paired questions: {c.test.n}"


def _better(c: Comparison, alpha: float) -> str:
    """'A', 'B', '' (no significant difference), '-' (the metric has no better direction) or
    '?' (not tested: too few paired questions)."""
    if not_tested(c):
        return "?"
    hib = c.a.higher_is_better if c.a.higher_is_better == c.b.higher_is_better else None
    if hib is None:
        return "-"
    if c.test.p < alpha and c.test.diff != 0:
        return "A" if (c.test.diff > 0) == hib else "B"
    return ""


def unique_comparisons(found: Sequence[Comparison]) -> list[tuple[Comparison, list[str]]]:
    """Each comparison once: the same numbers of one metric from several probes (accuracy,
    balanced-accuracy and the ablation's real image share predictions) become one, with the
    probes that measured it."""
    out: list[tuple[Comparison, list[str]]] = []
    seen: dict[tuple, int] = {}
    for c in found:
        t = c.test
        key = (c.a.dataset, c.a.split, c.a.train, c.b.train, c.a.metric, c.a.higher_is_better, t.n, t.mean_a,
               t.mean_b, t.low, t.high)
        k = seen.get(key)
        # Only another probe's same numbers of the same condition merge (accuracy and the
        # ablation's real image; not an image-blind model's equal numbers under a swapped
        # image): one probe's variants, and two different variants, stay apart even when equal.
        if k is not None and c.a.probe not in out[k][1] and (
                c.a.variant == out[k][0].a.variant or "" in (c.a.variant, out[k][0].a.variant)):
            out[k][1].append(c.a.probe)
        else:
            seen[key] = len(out)
            out.append((c, [c.a.probe]))
    return out


def summary_line(a: RunInfo, b: RunInfo, found: Sequence[Comparison], alpha: float = 0.05) -> str:
    """'A (cnn-lstm) better on 12 metrics, worse on 3, no difference on 20 (4 without a better direction)'."""
    verdicts = [_better(c, alpha) for c, _ in unique_comparisons(found)]
    model = a.manifest.get("model") or (a.rows[0].model if a.rows else "A")
    line = (f"A ({model}) better on {verdicts.count('A')} metrics, worse on {verdicts.count('B')}, no difference on "
            f"{verdicts.count('')}")
    kinds = {"-": "without a better direction", "?": f"not tested: fewer than {MIN_PAIRED} paired questions"}
    rest = [f"{verdicts.count(mark)} {said}" for mark, said in kinds.items() if mark in verdicts]
    return line + (f" ({'; '.join(rest)})" if rest else "") + f": paired tests on the same questions, p < {alpha:g}."


def _head(a: RunInfo, b: RunInfo, alpha: float) -> str:
    return (f"A: {a.run_id} ({a.manifest.get('model', '-')})\nB: {b.run_id} ({b.manifest.get('model', '-')})\n"
            f"Fractions in %; A - B with its paired-bootstrap 95% interval; p: two-sided (bootstrap; McNemar exact, "
            f"with (only A right / only B right)); better: significant at {alpha:g} ('-': the metric has no "
            f"better direction, e.g. accuracy with an ablated input).\n")


def render_comparisons(a: RunInfo, b: RunInfo, found: Sequence[Comparison], alpha: float = 0.05, *,
                       width: int = 100, wide: bool = False, n_boot: int | None = None) -> str:
    """The comparisons as text: the summary line, then a table per data and training set that
    fits `width` columns (or, `wide`, one flat table with every column and the metric ids)."""
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    names = _names(a, b)
    variants = {p: {v: label for lay in found_l for v, label in (lay.labels.get("variant") or {}).items()}
                for p, found_l in {**b.layouts, **a.layouts}.items()}
    head = _head(a, b, alpha) if wide else "\n".join(textwrap.fill(p, width) for p in _head(a, b, alpha).splitlines())
    line = summary_line(a, b, found, alpha)
    text = (line if wide else textwrap.fill(line, width)) + "\n\n" + head.rstrip("\n") + "\n\n"
    groups: dict[tuple[str, str], list[list[str]]] = {}
    flat = []
    for c, probes in unique_comparisons(found):
        pct = c.a.unit == "fraction"
        t = c.test
        train = c.a.train if c.a.train == c.b.train else f"{c.a.train or '-'} vs {c.b.train or '-'}"
        n = f"{t.n}" + ("" if t.n == c.n_a == c.n_b else f" of {c.n_a}/{c.n_b}")
        why = not_tested(c)
        if why:  # no interval and no p: over so few questions they would look like a finding
            diff, p, better = _fmt(t.diff, pct), "not tested", f"({why})"
            mcn = "-" if c.mcnemar is None else "not tested"
        else:
            diff = f"{_fmt(t.diff, pct)} [{_fmt(t.low, pct)}, {_fmt(t.high, pct)}]"
            p, better = p_short(t.p, n_boot), _better(c, alpha)
            mcn = "-" if c.mcnemar is None else f"{p_short(c.mcnemar.p)} ({c.mcnemar.b}/{c.mcnemar.c})"
        name = names.metric(c.a.metric, c.a.probe)
        cond = (variants.get(c.a.probe) or {}).get(c.a.variant, c.a.variant)
        nums = [n, _fmt(t.mean_a, pct), _fmt(t.mean_b, pct), diff, p, mcn, better]
        flat.append([f"{c.a.dataset}/{c.a.split}", train or "-", " = ".join(probes), c.a.variant or "-", c.a.metric,
                     name, *nums])
        label = "\n".join(textwrap.wrap(name + (f" · {cond}" if cond else ""), 34))
        probe = "\n".join(textwrap.wrap(" = ".join(probes), 24))  # the ids `--probe` takes
        groups.setdefault((readable_spec(f"{c.a.dataset}/{c.a.split}"), readable_spec(train) if train else "-"),
                          []).append([label, probe, *nums])
    if wide:
        return text + tabulate(flat, headers=["data", "trained on", "probe", "variant", "metric", "name", "n", "A",
                                              "B", "A - B [95% CI]", "p (bootstrap)", "p (McNemar)", "better"],
                               tablefmt="github", disable_numparse=True) + "\n"
    heads = ["metric", "probe", "n", "A", "B", "A - B [95% CI]", "p", "p McNemar (A/B)", "better"]
    right = [False, False, True, True, True, False, True, False, False]
    parts = []
    for (data, train), body in groups.items():
        parts.append(f"== {data} · trained on {train} ==\n"
                     + render_text_table(heads, body, width=width, keep=1, header_width=28, right=right))
    return text + "\n".join(parts)


def _as_json(c: Comparison) -> dict:
    t = c.test
    why = not_tested(c)
    found = {"probe": c.a.probe, "dataset": c.a.dataset, "split": c.a.split, "variant": c.a.variant,
             "metric": c.a.metric, "train_a": c.a.train, "train_b": c.b.train, "unit": c.a.unit,
             "higher_is_better": c.a.higher_is_better, "n": t.n, "n_a": c.n_a, "n_b": c.n_b,
             "mean_a": t.mean_a, "mean_b": t.mean_b, "diff": t.diff, "not_tested": why or None}
    if why:  # no interval, no p-value (null, as a metric without McNemar has)
        return {**found, "ci_low": None, "ci_high": None, "p_bootstrap": None, "mcnemar": None}
    return {**found, "ci_low": t.low, "ci_high": t.high, "p_bootstrap": t.p, "mcnemar": None if c.mcnemar is None else
            {"only_a": c.mcnemar.b, "only_b": c.mcnemar.c, "p": c.mcnemar.p, "log10_p": c.mcnemar.log10_p}}


def comparisons_json(a: RunInfo, b: RunInfo, found: Sequence[Comparison], *, seed: int, n_boot: int) -> str:
    """The comparisons as a JSON document (every one, probe by probe)."""
    return json.dumps({"a": a.run_id, "b": b.run_id, "seed": seed, "n_boot": n_boot,
                       "summary": summary_line(a, b, found),
                       "comparisons": [_as_json(c) for c in found]}, indent=1) + "\n"
