"""benchmarks/seed_spread.py: seed spreads and which model comparisons survive them
(docs/models.md's toy figures)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "seed_spread.py"


def _script():
    spec = importlib.util.spec_from_file_location("seed_spread", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(root: Path, model: str, seed: int, value: float, run_id: str = "", status: str = "complete") -> None:
    run_id = run_id or f"2026010{seed}-000000-{model}-toy"
    folder = root / run_id
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"model": model, "suite": "toy", "seed": seed,
                                                      "run_id": run_id, "status": status}))
    row = {"suite": "toy", "probe": "accuracy", "dataset": "toyvqa", "variant": "", "metric": "vqa_accuracy",
           "train": "toyvqa/train", "value": value, "unit": "fraction"}
    (folder / "results.jsonl").write_text(json.dumps(row) + "\n")


def test_spread_and_a_comparison_that_survives(tmp_path, capsys):
    for seed, (a, b) in enumerate([(0.80, 0.50), (0.82, 0.52), (0.81, 0.55)]):
        _run(tmp_path, "big", seed, a)
        _run(tmp_path, "small", seed, b)
    _run(tmp_path, "small", 0, 0.99, run_id="20250101-000000-small-toy", status="interrupted")  # ignored
    assert _script().main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "big: 81.00 ± 1.00 (min 80.00, max 82.00; 3 seeds)" in out
    assert "big > small by 28.67 points (mean): survives" in out


def test_overlapping_ranges_do_not_survive_and_two_seeds_are_not_compared(tmp_path, capsys):
    for seed, (a, b) in enumerate([(0.50, 0.49), (0.52, 0.53), (0.51, 0.50)]):
        _run(tmp_path, "a", seed, a)
        _run(tmp_path, "b", seed, b)
    for seed in (0, 1):
        _run(tmp_path, "c", seed, 0.1)
    _script().main([str(tmp_path)])
    out = capsys.readouterr().out
    assert "a > b by 0.33 points (mean): does NOT survive (ranges overlap)" in out
    assert "> c" not in out and "c >" not in out
