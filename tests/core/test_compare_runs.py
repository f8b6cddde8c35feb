"""scripts/compare_runs.py: the check that a change leaves the main job's result rows unchanged."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "compare_runs.py"


def _script():
    spec = importlib.util.spec_from_file_location("compare_runs", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(model: str, metric: str, value: float, run_id: str, suite: str = "toy") -> dict:
    return {"model": model, "suite": suite, "dataset": "toyvqa", "split": "val", "probe": "accuracy",
            "variant": "", "metric": metric, "train": "toyvqa/train", "value": value, "n": 100,
            "ci_low": value - 0.05, "ci_high": value + 0.05, "unit": "fraction",
            "higher_is_better": True, "run_id": run_id, "schema_version": 1}


def _run(root: Path, run_id: str, rows: list[tuple[str, str, float]]) -> Path:
    """A run folder `root/run_id` whose results.jsonl holds (model, metric, value) rows."""
    folder = root / run_id
    folder.mkdir(parents=True)
    lines = [json.dumps(_row(m, metric, v, run_id)) for m, metric, v in rows]
    (folder / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


ROWS = [("qonly", "vqa_accuracy", 0.5), ("qonly", "vqa_accuracy/answer_type=yes/no", 0.7)]


def test_identical_rows_exit_0(tmp_path, capsys):
    _run(tmp_path / "before", "20260101-000000-qonly-toy", ROWS)
    _run(tmp_path / "after", "20260102-000000-qonly-toy", list(reversed(ROWS)))
    assert _script().main([str(tmp_path / "before"), str(tmp_path / "after")]) == 0
    assert capsys.readouterr().out.strip().endswith("2 rows before, 2 after: identical")


def test_a_changed_value_exits_1(tmp_path, capsys):
    _run(tmp_path / "before", "20260101-000000-qonly-toy", ROWS)
    _run(tmp_path / "after", "20260102-000000-qonly-toy", [ROWS[0], ("qonly", ROWS[1][1], 0.71)])
    assert _script().main([str(tmp_path / "before"), str(tmp_path / "after")]) == 1
    out = capsys.readouterr().out
    assert "changed:" in out and "'value': (0.7, 0.71)" in out and "1 changed" in out


def test_rows_in_one_side_only_exit_1(tmp_path, capsys):
    _run(tmp_path / "before", "20260101-000000-qonly-toy", ROWS)
    _run(tmp_path / "after", "20260102-000000-qonly-toy", ROWS[:1] + [("qonly", "new_metric", 0.1)])
    assert _script().main([str(tmp_path / "before"), str(tmp_path / "after")]) == 1
    out = capsys.readouterr().out
    assert "only before:" in out and "only after: " in out
    assert "1 only before, 1 only after, 0 changed" in out
    # both sides ran qonly on toy: the differing row sets are explained from the manifests
    assert "why qonly on toy may differ" in out


def test_the_latest_run_per_model_and_suite_is_compared(tmp_path, capsys):
    # An older run of the same model with other numbers is left out, on either side.
    _run(tmp_path / "before", "20260101-000000-qonly-toy", [("qonly", "vqa_accuracy", 0.1)])
    _run(tmp_path / "before", "20260101-120000-qonly-toy", ROWS)
    _run(tmp_path / "after", "20260102-000000-qonly-toy", ROWS)
    _run(tmp_path / "after", "20260101-060000-qonly-toy", [("qonly", "vqa_accuracy", 0.9)])
    # Another model's run, older than the latest qonly run, still counts.
    _run(tmp_path / "before", "20251231-000000-prior-toy", [("prior", "vqa_accuracy", 0.3)])
    _run(tmp_path / "after", "20251231-000000-prior-toy", [("prior", "vqa_accuracy", 0.3)])
    assert _script().main([str(tmp_path / "before"), str(tmp_path / "after")]) == 0
    assert "3 rows before, 3 after: identical" in capsys.readouterr().out


def test_a_row_repeated_within_one_run_is_refused(tmp_path):
    _run(tmp_path / "before", "20260101-000000-qonly-toy", ROWS + ROWS[:1])
    _run(tmp_path / "after", "20260102-000000-qonly-toy", ROWS)
    with pytest.raises(SystemExit, match="duplicate row"):
        _script().main([str(tmp_path / "before"), str(tmp_path / "after")])


def test_the_command_line_exit_codes(tmp_path):
    before = _run(tmp_path / "before", "20260101-000000-qonly-toy", ROWS)
    after = _run(tmp_path / "after", "20260102-000000-qonly-toy", ROWS[:1])
    same = subprocess.run([sys.executable, str(SCRIPT), str(before), str(before)], capture_output=True, text=True)
    differ = subprocess.run([sys.executable, str(SCRIPT), str(before), str(after)], capture_output=True, text=True)
    assert (same.returncode, differ.returncode) == (0, 1)
    assert "identical" in same.stdout and "1 only before" in differ.stdout


def _manifest(folder: Path, **fields) -> None:
    base = {"seed": 0, "device": "cpu", "numerics": {"MKL_CBWR": "COMPATIBLE"},
            "environment": {"python": "3.11.7", "cpu": {"model": "AMD EPYC", "vendor": "AuthenticAMD"},
                            "packages": {"torch": "2.13.0+cpu", "pillow": "13.0.0"}},
            "data": {"toyvqa:variant=balanced/train": "abc"}}
    for key, value in fields.items():
        base[key] = value
    (folder / "manifest.json").write_text(json.dumps(base), encoding="utf-8")


def test_rows_that_differ_are_explained_by_what_the_manifests_record(tmp_path, capsys):
    before = _run(tmp_path / "before", "20260101-000000-qonly-toy", ROWS)
    after = _run(tmp_path / "after", "20260102-000000-qonly-toy", [ROWS[0], ("qonly", ROWS[1][1], 0.71)])
    _manifest(before)
    _manifest(after, device="cuda", data={"toyvqa:variant=balanced/train": "abd"},
              environment={"python": "3.11.7", "cpu": {"model": "Intel Xeon", "vendor": "GenuineIntel"},
                           "packages": {"torch": "2.13.0+cpu", "pillow": "12.3.0"}})
    assert _script().main([str(tmp_path / "before"), str(tmp_path / "after")]) == 1
    out = capsys.readouterr().out
    assert "why qonly on toy may differ" in out
    for line in ("device: 'cpu' -> 'cuda'", "environment.packages.pillow: '13.0.0' -> '12.3.0'",
                 "environment.cpu.vendor: 'AuthenticAMD' -> 'GenuineIntel'",
                 "data.toyvqa:variant=balanced/train: 'abc' -> 'abd'"):
        assert line in out
    assert "modification times" in out  # what a data digest is made of, where one differs
    assert "environment.packages.torch" not in out and "seed" not in out  # only what differs


def test_identical_manifests_are_said_to_explain_nothing(tmp_path, capsys):
    before = _run(tmp_path / "before", "20260101-000000-qonly-toy", ROWS)
    after = _run(tmp_path / "after", "20260102-000000-qonly-toy", [ROWS[0], ("qonly", ROWS[1][1], 0.71)])
    _manifest(before)
    _manifest(after)
    assert _script().main([str(tmp_path / "before"), str(tmp_path / "after")]) == 1
    out = capsys.readouterr().out
    assert "the manifests record nothing different" in out and "modification times" not in out


@pytest.mark.parametrize("case", ["missing", "empty", "bad line"])
def test_a_side_with_nothing_to_compare_is_one_line(tmp_path, case):
    good = _run(tmp_path / "good", "20260101-000000-qonly-toy", ROWS)
    other = tmp_path / "other"
    if case == "empty":
        other.mkdir()
    elif case == "bad line":
        folder = other / "20260102-000000-qonly-toy"
        folder.mkdir(parents=True)
        (folder / "results.jsonl").write_text('{"model": "qonly"\n', encoding="utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), str(good), str(other)], capture_output=True, text=True)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip().startswith("error: ") and len(done.stderr.strip().splitlines()) == 1
