"""Degenerate values: numbers that would look like the best of a column but say nothing.

A model that changed no answer under any perturbation kind of the counterfactual probe on
one task (answer change exactly 0 for every kind, Color Maximal included when it ran) does
not read the words the perturbations replace: its answer change 0 and accuracy reduction 0
are not robustness, nor are its global rules (every concept 100% unchanged). For display and
comparison such rows get no better direction (`higher_is_better` None: not bolded, no ≈ mark,
no "better" in `harness compare`, never among the "most / least robust" rows of a shortened
table), and the table says why in its note. The rows as recorded (results.csv, results.json) are unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from harness.types import ResultRow

from .tabletypes import Table

__all__ = ["DEGENERATE_METRICS", "Task", "degenerate_tasks", "neutralize", "note_degenerate", "task_of"]

#: probe -> the metrics (or metric prefixes, ending in "/") that are degenerate for a model that
#: never changes its answer: its change and reduction, and its global rules (100% unchanged).
DEGENERATE_METRICS = {"counterfactual": ("answer_change_rate", "acc_reduction", "unchanged/")}

Task = tuple[str, str, str, str, str]


def task_of(row: ResultRow) -> Task:
    """(run, probe, dataset, split, training data): the task a row belongs to."""
    return (row.run_id, row.probe, row.dataset, row.split, row.train)


def degenerate_tasks(rows: Sequence[ResultRow]) -> dict[Task, str]:
    """Counterfactual tasks whose model changed no answer under any perturbation kind (at
    least two kinds ran): task -> the reason (one sentence naming the model)."""
    by_task: dict[Task, list[ResultRow]] = {}
    for r in rows:
        if r.probe in DEGENERATE_METRICS and r.metric == "answer_change_rate":
            by_task.setdefault(task_of(r), []).append(r)
    out: dict[Task, str] = {}
    for key, found in by_task.items():
        kinds = {r.variant for r in found}
        if len(kinds) >= 2 and all(r.value == 0 for r in found):
            color = ", Color Maximal included" if any(k.startswith("color_max") for k in kinds) else ""
            out[key] = (f"{found[0].model} changed no answer under any of the {len(kinds)} perturbation kinds "
                        f"(answer change 0 everywhere{color}): it ignores the words they replace, so its 0 "
                        "is not robustness")
    return out


def neutralize(rows: Sequence[ResultRow], tasks: Mapping[Task, str]) -> list[ResultRow]:
    """`rows` with no better direction on the degenerate metrics of `tasks`."""
    if not tasks:
        return list(rows)
    return [replace(r, higher_is_better=None) if task_of(r) in tasks and _degenerate_metric(r) else r for r in rows]


def _degenerate_metric(row: ResultRow) -> bool:
    names = DEGENERATE_METRICS.get(row.probe, ())
    return row.metric in names or any(n.endswith("/") and row.metric.startswith(n) for n in names)


def note_degenerate(table: Table, degenerate: Mapping[Task, str]) -> Table:
    """The table with the reasons of its degenerate cells (no direction) added to its note."""
    if not degenerate:
        return table
    said = dict.fromkeys(degenerate[task_of(c)] for cells in table.cells for c in cells
                         if c is not None and c.higher_is_better is None and task_of(c) in degenerate)
    if not said:
        return table
    return replace(table, note=" ".join([table.note] + [f"Not marked best: {reason}." for reason in said]).strip())
