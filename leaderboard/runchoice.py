"""Which run's rows the leaderboard shows when a model ran a suite more than once.

A quantity is what one probe measured for one model on one task: (model, suite, probe,
dataset, split, training data). For each quantity the rows of one run are shown: the newest
run that ended `complete` (or whose manifest says nothing, as hand-made or old runs) among
those that have rows of it, else the newest run that has them. So a newer run that was
interrupted, stopped or failed after its first task does not hide what a complete run
measured, and never replaces a complete run's numbers until it completes (`harness run
--resume`); a newer complete run replaces an older one quantity by quantity, so a suite that
lost a probe still shows the older run's rows of it.

Rows of one (model, suite) that come from more than one run, a newer run passed over for a
complete one, or a newer run that wrote no row at all (failed or stopped in its first task) are
said in a note naming the runs (index.md and the site, under "Runs").
`--all-runs` keeps every row of every run instead (docs/leaderboard.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.types import ResultRow

__all__ = ["Quantity", "quantity", "run_status", "newest_per_quantity"]

Quantity = tuple[str, str, str, str, str, str]


def quantity(row: ResultRow) -> Quantity:
    """(model, suite, probe, dataset, split, train): the rows one probe wrote for one task."""
    return (row.model, row.suite, row.probe, row.dataset, row.split, row.train)


def run_status(manifest: Mapping[str, Any]) -> str:
    """How the run ended (`status`); a manifest without one counts as complete."""
    return str(manifest.get("status") or "complete")


def _runs_text(by_run: Mapping[str, list[str]], status: Mapping[str, str]) -> str:
    return "; ".join(f"{run} ({status[run]}): {', '.join(sorted(set(probes)))}"
                     for run, probes in sorted(by_run.items(), reverse=True))


def newest_per_quantity(runs: Sequence[tuple[str, Sequence[ResultRow]]],
                        empty: Sequence[tuple[str, str, str, str]] = ()) -> tuple[list[ResultRow], list[str]]:
    """The rows shown of runs given as (status, rows) (per quantity, one run's: see the
    module docstring) and a note per (model, suite) whose rows come from several runs or
    pass over a newer run; `empty` names the runs without rows, (run id, model, suite,
    status): one newer than every run shown of its (model, suite), or of a (model, suite)
    with no row shown, is said too, never passed over without a word."""
    status: dict[str, str] = {}
    found: dict[Quantity, dict[str, list[ResultRow]]] = {}
    for ended, rows in runs:
        for r in rows:
            status.setdefault(r.run_id, ended)
            found.setdefault(quantity(r), {}).setdefault(r.run_id, []).append(r)
    chosen = {q: max(by_run, key=lambda run: (status[run] == "complete", run)) for q, by_run in found.items()}
    shown: dict[tuple[str, str], dict[str, list[str]]] = {}
    passed: dict[tuple[str, str], dict[str, list[str]]] = {}
    for q, by_run in found.items():
        pick = chosen[q]
        shown.setdefault(q[:2], {}).setdefault(pick, []).append(q[2])
        for run in by_run:
            if run > pick:  # newer, but not complete: a complete run's rows are shown instead
                passed.setdefault(q[:2], {}).setdefault(run, []).append(q[2])
    rows = [r for _, mine in runs for r in mine if chosen[quantity(r)] == r.run_id]  # in the runs' order
    rowless: dict[tuple[str, str], list[str]] = {}
    for run, model, suite, ended in empty:
        if run > max(shown.get((model, suite), {""})):
            rowless.setdefault((model, suite), []).append(f"{run} ({ended})")
    notes = []
    for key in sorted(set(shown) | set(rowless)):
        if len(shown.get(key, ())) < 2 and key not in passed and key not in rowless:
            continue
        text = f"model {key[0]}, suite {key[1]}: " + (
            f"rows shown from {_runs_text(shown[key], status)}" if key in shown else "no rows shown")
        if key in passed:
            text += (". Not shown, as a complete run has the same probe, data and training data: "
                     f"{_runs_text(passed[key], status)}")
        if key in rowless:
            label = "Newer, with no result rows" if key in shown else "Runs with no result rows"
            text += f". {label}: {'; '.join(sorted(rowless[key], reverse=True))}"
        notes.append(text + " (per probe, data, split and training data, the newest complete run's rows; "
                            "docs/leaderboard.md)")
    return rows, notes
