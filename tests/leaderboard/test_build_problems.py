"""What `harness leaderboard build` says about inputs it could not use: per-question scores
that do not match their result row (an edited results.jsonl) are named on screen and in
problems.txt, not dropped in silence behind a "no per-question scores" mark."""

from __future__ import annotations

import json
from pathlib import Path

from helpers_samples import write_sample_runs

from vqa_harness_cli import main


def _edit_row(run: Path, variant: str, metric: str, value: float) -> None:
    path = run / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for r in rows:
        if r["variant"] == variant and r["metric"] == metric:
            r["value"], r["ci_low"], r["ci_high"] = value, value - 0.01, value + 0.01
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_scores_that_do_not_match_an_edited_row_are_reported(tmp_path: Path, capsys) -> None:
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    edited = next(p for p in runs.iterdir() if "cnn-lstm" in p.name)
    _edit_row(edited, "blank", "vqa_accuracy_drop", 0.5)
    out = tmp_path / "lb"
    assert main(["leaderboard", "build", str(runs), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    problems = (out / "problems.txt").read_text(encoding="utf-8")
    assert "'vqa_accuracy_drop' average to" in problems and "not 0.5" in problems, problems
    assert edited.name in problems or "per_example" in problems
    assert "skipped" in err and "average to" in err, err
    assert "see problems.txt" in (out / "index.md").read_text(encoding="utf-8")
    assert "average to" in (out / "index.html").read_text(encoding="utf-8")


def test_a_run_folder_whose_results_are_missing_is_named(tmp_path: Path, capsys) -> None:
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    gone = next(p for p in runs.iterdir() if "cnn-lstm" in p.name)
    (gone / "results.jsonl").unlink()  # a complete run whose rows were deleted (or never copied)
    out = tmp_path / "lb"
    assert main(["leaderboard", "build", str(runs), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    problems = (out / "problems.txt").read_text(encoding="utf-8")
    assert f"{gone / 'results.jsonl'}: missing (run skipped" in problems, problems
    assert "results.jsonl: missing" in err, err
    # A run still being written (its lock held) is not a problem: it has no rows yet.
    from harness.rundir import RunDir
    writing = RunDir(gone)
    writing.claim()
    try:
        assert main(["leaderboard", "build", str(runs), "--out", str(out)]) == 0
    finally:
        writing.release()
    assert "missing" not in (out / "problems.txt").read_text(encoding="utf-8")


def test_report_of_a_run_whose_results_are_missing_says_so(tmp_path: Path, capsys) -> None:
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    gone = next(p for p in runs.iterdir() if "cnn-lstm" in p.name)
    (gone / "results.jsonl").unlink()
    assert main(["report", str(gone), "--out", str(tmp_path / "rep"), "--stdout"]) == 0
    text = capsys.readouterr().out
    assert f"{gone / 'results.jsonl'}: missing (no result rows" in text, text
    assert "results.jsonl: missing" in (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    # compare keeps its own one line for it
    assert main(["compare", str(gone), str(next(p for p in runs.iterdir() if "prior" in p.name))]) == 3
    assert capsys.readouterr().err.strip().endswith(f"{gone / 'results.jsonl'} is missing")


def test_report_of_a_run_still_being_written_does_not_call_its_results_deleted(tmp_path: Path, capsys) -> None:
    """A run in its first task has a manifest and no results.jsonl yet (written after each task):
    its report says `status: running`, not that the file was deleted."""
    from harness.rundir import RunDir

    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    going = next(p for p in runs.iterdir() if "cnn-lstm" in p.name)
    (going / "results.jsonl").unlink()
    writing = RunDir(going)
    writing.claim()
    try:
        assert main(["report", str(going), "--out", str(tmp_path / "rep"), "--stdout"]) == 0
    finally:
        writing.release()
    text = capsys.readouterr().out
    assert "results.jsonl: missing" not in text and "deleted" not in text, text


def test_a_run_folder_without_its_manifest_is_named(tmp_path: Path, capsys) -> None:
    """Rows of a folder with results.jsonl and no manifest.json were shown with no word (build)
    and its report said `status: -`: the run's status, settings and versions are unknown."""
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    bare = next(p for p in runs.iterdir() if "cnn-lstm" in p.name)
    (bare / "manifest.json").unlink()
    out = tmp_path / "lb"
    assert main(["leaderboard", "build", str(runs), "--out", str(out)]) == 0
    said = f"{bare / 'manifest.json'}: missing (its result rows are shown; the run's status, settings"
    assert said in (out / "problems.txt").read_text(encoding="utf-8")
    assert "manifest.json: missing" in capsys.readouterr().err
    assert "cnn-lstm" in (out / "results.csv").read_text(encoding="utf-8")
    assert main(["report", str(bare), "--out", str(tmp_path / "rep"), "--stdout"]) == 0
    assert said in capsys.readouterr().out
