"""Which run's rows the leaderboard shows when a model ran a suite more than once: per
quantity (model, suite, probe, data, split, training data) the newest complete run's rows
(runchoice.py), a note naming the runs whenever one model's rows come from several runs or a
newer run is passed over, and `--all-runs` unchanged."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers_samples import write_sample_runs

from harness.fileio import atomic_write_json, write_jsonl
from vqa_harness_leaderboard import build_leaderboard, collect

OLD = "20250101-000000-cnn-lstm-image-ablation"
NEW = "20250102-000000-cnn-lstm-image-ablation"


def _newer_run(runs: Path, status: str, keep, change: dict | None = None) -> Path:
    """A newer cnn-lstm run of the same suite: the rows `keep` picks from the older run (and
    a row of a probe the older run lacks), with `change` applied to them, ended `status`."""
    rows = [json.loads(line) for line in (runs / OLD / "results.jsonl").read_text().splitlines()]
    new_rows = [{**r, **(change or {}), "run_id": NEW} for r in rows if keep(r)]
    new_rows.append({**rows[0], "run_id": NEW, "probe": "accuracy", "variant": "", "metric": "vqa_accuracy",
                     "value": 0.5, "ci_low": 0.45, "ci_high": 0.55, "higher_is_better": True})
    folder = runs / NEW
    write_jsonl(folder / "results.jsonl", new_rows)
    shutil.copy(runs / OLD / "tables.json", folder / "tables.json")
    manifest = json.loads((runs / OLD / "manifest.json").read_text())
    atomic_write_json(folder / "manifest.json", {**manifest, "run_id": NEW, "status": status})
    return folder


def _cnn_rows(found) -> dict[tuple[str, str, str], tuple[str, float]]:
    return {(r.probe, r.variant, r.metric): (r.run_id, r.value) for r in found.rows if r.model == "cnn-lstm"}


def test_a_newer_partial_run_does_not_hide_the_complete_runs_evidence(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    _newer_run(runs, "interrupted", keep=lambda r: False)  # only the accuracy probe's row
    found = collect([runs])
    rows = _cnn_rows(found)
    assert rows[("image-ablation", "blank", "vqa_accuracy_drop")][0] == OLD
    assert rows[("accuracy", "", "vqa_accuracy")] == (NEW, 0.5)  # the one quantity only the newer run has
    assert found.notes == [f"model cnn-lstm, suite image-ablation: rows shown from {NEW} (interrupted): accuracy; "
                           f"{OLD} (complete): image-ablation (per probe, data, split and training data, the newest "
                           "complete run's rows; docs/leaderboard.md)"]
    out = tmp_path / "site"
    build_leaderboard([runs], out)
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "No image-reliance evidence yet for cnn-lstm" not in index
    reliance = index.split("\n## ", 2)[1]
    cnn = next(line for line in reliance.splitlines() if line.startswith("| cnn-lstm "))
    drop = rows[("image-ablation", "blank", "vqa_accuracy_drop")][1]
    assert cnn.split("|")[2].strip() == "uses the image" and cnn.split("|")[3].strip().startswith(f"{100 * drop:.1f} [")
    assert f"- model cnn-lstm, suite image-ablation: rows shown from {NEW} (interrupted)" in index
    assert f"{NEW} (interrupted)" in (out / "index.html").read_text(encoding="utf-8")
    # --all-runs keeps every row of every run, as documented, and says nothing more.
    every = collect([runs], latest_only=False)
    assert {r.run_id for r in every.rows if r.model == "cnn-lstm"} == {OLD, NEW} and every.notes == []
    assert len(every.rows) == sum(len(r.read_text().splitlines()) for r in runs.glob("*/results.jsonl"))


def test_an_unfinished_run_never_replaces_a_complete_runs_rows(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    _newer_run(runs, "terminated", keep=lambda r: r["variant"] == "blank", change={"value": 0.9})
    found = collect([runs])
    rows = _cnn_rows(found)
    assert {run for run, _ in (v for k, v in rows.items() if k[0] == "image-ablation")} == {OLD}
    assert rows[("image-ablation", "blank", "vqa_accuracy_drop")][1] != 0.9
    assert found.notes[0].endswith(f"Not shown, as a complete run has the same probe, data and training data: "
                                   f"{NEW} (terminated): image-ablation (per probe, data, split and training data, "
                                   "the newest complete run's rows; docs/leaderboard.md)")


def test_a_newer_complete_run_replaces_the_older_one_quantity_by_quantity(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    _newer_run(runs, "complete", keep=lambda r: True, change={"value": 0.9})
    found = collect([runs])
    assert {run for run, _ in _cnn_rows(found).values()} == {NEW}  # every quantity of the older run replaced
    assert found.notes == []
    # A newer complete run that lacks a probe of the older one: that probe's rows stay, said.
    (runs / NEW / "results.jsonl").write_text("".join(
        line + "\n" for line in (runs / NEW / "results.jsonl").read_text().splitlines()
        if json.loads(line)["probe"] != "image-ablation"))
    found = collect([runs])
    assert {k[0]: run for k, (run, _) in _cnn_rows(found).items()} == {"image-ablation": OLD, "accuracy": NEW}
    assert found.notes and f"{NEW} (complete): accuracy; {OLD} (complete): image-ablation" in found.notes[0]


def test_a_newer_run_that_wrote_no_row_is_said_not_passed_over_in_silence(tmp_path: Path) -> None:
    """A newer run that failed (or was stopped) before its first row was not named anywhere:
    the older complete run's rows were shown as if nothing newer had been tried."""
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    folder = _newer_run(runs, "failed", keep=lambda r: False)
    (folder / "results.jsonl").write_text("")
    found = collect([runs])
    assert {run for run, _ in _cnn_rows(found).values()} == {OLD}
    note = f"model cnn-lstm, suite image-ablation: rows shown from {OLD} (complete): image-ablation. " \
           f"Newer, with no result rows: {NEW} (failed)"
    assert [n for n in found.notes if n.startswith("model cnn-lstm,")] == [
        note + " (per probe, data, split and training data, the newest complete run's rows; docs/leaderboard.md)"]
    # A model none of whose runs wrote a row is named too, rather than missing from every page.
    manifest = json.loads((folder / "manifest.json").read_text())
    atomic_write_json(folder / "manifest.json", {**manifest, "model": "mcb"})
    assert any(n.startswith(f"model mcb, suite image-ablation: no rows shown. Runs with no result rows: {NEW} "
                            "(failed)") for n in collect([runs]).notes)
    out = tmp_path / "site"
    build_leaderboard([runs], out)
    assert f"no rows shown. Runs with no result rows: {NEW} (failed)" in (out / "index.md").read_text("utf-8")


def test_runs_that_all_wrote_no_row_are_named_on_the_pages(tmp_path: Path) -> None:
    """A leaderboard of runs that all failed before their first row said 'No runs found yet'
    (index.md) and 'No results yet' (index.html), naming none of them (stderr only)."""
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    only = tmp_path / "only"
    folder = _newer_run(runs, "failed", keep=lambda r: False)
    (folder / "results.jsonl").write_text("")
    shutil.move(folder, only / NEW)
    out = tmp_path / "site"
    build_leaderboard([only], out)
    said = f"no rows shown. Runs with no result rows: {NEW} (failed)"
    index = (out / "index.md").read_text("utf-8")
    assert said in index and "No runs found yet" not in index
    assert said in (out / "index.html").read_text("utf-8")
