"""Degenerate values: numbers that would look like the best of a column but say nothing.

A probe declares when its rows say nothing for a model (`Display.degenerate`,
harness.display): e.g. the counterfactual probe says that a model whose answer change is
exactly 0 under every perturbation kind of a task does not read the words the perturbations
replace, so its answer change 0, its accuracy reduction 0 and its global rules (every
concept 100% unchanged) are not robustness. For display and comparison such rows get no
better direction (`higher_is_better` None: not bolded, no ≈ mark, no "better" in
`harness compare`, never among the most / least robust rows of a shortened table), and the
table says why in its note. The rows as recorded (results.csv, results.json) are unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from harness.display import Degenerate, Display, matches_metric
from harness.types import ResultRow

from .tabletypes import Table

__all__ = ["Task", "degenerate_tasks", "neutralize", "note_degenerate", "task_of"]

Task = tuple[str, str, str, str, str]


def task_of(row: ResultRow) -> Task:
    """(run, probe, dataset, split, training data): the task a row belongs to."""
    return (row.run_id, row.probe, row.dataset, row.split, row.train)


def degenerate_tasks(rows: Sequence[ResultRow], displays: Mapping[str, Display]
                     ) -> dict[Task, tuple[Degenerate, str]]:
    """Tasks whose rows a probe's rule calls degenerate: task -> (the rule, the reason)."""
    rules = {probe: d.degenerate for probe, d in displays.items() if d.degenerate}
    out: dict[Task, tuple[Degenerate, str]] = {}
    for probe, found in rules.items():
        for rule in found:
            by_task: dict[Task, list[ResultRow]] = {}
            for r in rows:
                if r.probe == probe and r.metric == rule.metric:
                    by_task.setdefault(task_of(r), []).append(r)
            for key, mine in by_task.items():
                kinds = {r.variant for r in mine}
                if key not in out and len(kinds) >= rule.min_variants and all(r.value == rule.value for r in mine):
                    reason = rule.reason.replace("{model}", mine[0].model).replace("{n}", str(len(kinds)))
                    out[key] = (rule, reason)
    return out


def neutralize(rows: Sequence[ResultRow], tasks: Mapping[Task, tuple[Degenerate, str]]) -> list[ResultRow]:
    """`rows` with no better direction on the degenerate metrics of `tasks`."""
    if not tasks:
        return list(rows)
    out = []
    for r in rows:
        found = tasks.get(task_of(r))
        hit = found is not None and any(matches_metric(m, r.metric) for m in found[0].affects)
        out.append(replace(r, higher_is_better=None) if hit else r)
    return out


def note_degenerate(table: Table, degenerate: Mapping[Task, tuple[Degenerate, str]]) -> Table:
    """The table with the reasons of its degenerate cells (no direction) added to its note."""
    if not degenerate:
        return table
    said = dict.fromkeys(degenerate[task_of(c)][1] for cells in table.cells for c in cells
                         if c is not None and c.higher_is_better is None and task_of(c) in degenerate)
    if not said:
        return table
    return replace(table, note=" ".join([table.note] + [f"Not marked best: {reason}." for reason in said]).strip())
