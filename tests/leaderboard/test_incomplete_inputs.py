"""Readers of run folders on what is not there yet or any more: `harness compare` and `harness
report` on a run still being written, on a run that ended early, and with a per-question file deleted; `harness
leaderboard build` on a folder without runs; `--out /`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.api import Model
from harness.errors import UsageError
from harness.rundir import RunDir
from harness.testing import dataset_plugin, hookimpl, make_host, run_in_process, use_host
from harness.types import Example
from vqa_harness_cli import main
from vqa_harness_cli.publish import check_output_folder


class _Yes(Model):
    name = "yes-model"

    def answer(self, batch):
        # the number is in the question (an ablated question has none)
        return ["yes" if any(w.isdigit() and int(w) % 3 for w in ex.question.split()) else "no" for ex in batch]


class _Models:
    @hookimpl
    def register_models(self, register):
        register(_Yes)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("incomplete")
    questions = [Example(id=f"q-{i}", question=f"is thing {i} there?", answers=("yes",) * 10,
                         answer_type="yes/no" if i % 2 else "other") for i in range(60)]
    host = make_host(dataset_plugin("yes-data", {"val": questions}, suite="yes-suite",
                                    probes=("accuracy", "image-ablation")), _Models(), builtins=True)
    with use_host(host):
        outcome = run_in_process(host, model="yes-model", suite="yes-suite", tmp_path=root)
    assert outcome.exit_code == 0
    return outcome.rundir.path


def _copy(run: Path, tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(run, target)
    return target


def test_compare_refuses_a_run_still_being_written(run, tmp_path, capsys):
    other = _copy(run, tmp_path, "busy")
    writing = RunDir(other)
    writing.claim()  # what a run does until it ends
    try:
        code = main(["compare", str(run), str(other), "--n-boot", "200"])
    finally:
        writing.release()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3
    assert err == [f"error: run B ({other}) is still being written (process {__import__('os').getpid()}); compare it "
                   "once that run has ended"]
    assert main(["compare", str(run), str(other), "--n-boot", "200"]) == 0  # released: compared


def test_report_into_a_run_still_being_written_is_refused(run, tmp_path, capsys):
    """`harness report RUN` on a running run wrote report.html and report_full.md ("status:
    running", a few probes) beside the run's own files, and they stayed stale once it ended."""
    other = _copy(run, tmp_path, "writing")
    writing = RunDir(other)
    writing.claim()
    try:
        code = main(["report", str(other)])
        snapshot = main(["report", str(other), "--out", str(tmp_path / "snapshot")])  # elsewhere: fine
    finally:
        writing.release()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3 and snapshot == 0
    assert err == [f"error: run {other} is still being written (process {__import__('os').getpid()}); report it "
                   "once that run has ended, or pass --out DIR for a snapshot outside the run folder"]
    assert not (other / "report_full.md").exists() and not (other / "report.html").exists()
    assert (tmp_path / "snapshot" / "report_full.md").is_file()
    assert main(["report", str(other)]) == 0 and (other / "report_full.md").is_file()  # ended: written


def test_compare_says_when_a_run_did_not_complete(run, tmp_path, capsys):
    other = _copy(run, tmp_path, "stopped")
    manifest = json.loads((other / "manifest.json").read_text())
    (other / "manifest.json").write_text(json.dumps({**manifest, "status": "terminated"}))
    assert main(["compare", str(run), str(other), "--n-boot", "200"]) == 0
    err = capsys.readouterr().err
    assert "note: run B did not complete (status terminated): only the metrics it computed are compared" in err


def test_compare_names_a_metric_whose_per_question_file_was_deleted(run, tmp_path, capsys):
    other = _copy(run, tmp_path, "deleted")
    files = sorted((other / "artifacts" / "accuracy").rglob("per_example/*.json"))
    assert len(files) >= 2  # the probe keeps per-question scores of other metrics
    gone = json.loads(files[0].read_text())
    files[0].unlink()
    assert main(["compare", str(run), str(other), "--n-boot", "200"]) == 0
    captured = capsys.readouterr()
    for metric in gone["scores"]:
        assert (f"note: run B: the per-question scores of accuracy {metric} on yes-data/val are missing "
                "(artifacts/<probe>/.../per_example/ file deleted?); that metric is not compared") in captured.err
        assert f"| {metric} " not in captured.out


def test_an_empty_folder_builds_no_leaderboard(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code = main(["leaderboard", "build", str(tmp_path / "empty"), "--out", str(tmp_path / "lb")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3
    assert err == [f"error: no run folder in {tmp_path / 'empty'} (a run folder holds results.jsonl; `harness run` "
                   "writes them); nothing published"]
    assert not (tmp_path / "lb" / "index.html").exists()


def test_a_folder_whose_runs_are_all_being_written_says_so(tmp_path, capsys):
    """`harness leaderboard build` while the first runs of a folder are still going said "no run
    folder in results/runs", beside two run folders."""
    runs = tmp_path / "runs"
    writing = [RunDir.create(runs, "qonly", "toy"), RunDir.create(runs, "prior", "toy")]
    for rundir in writing:
        rundir.claim()
    try:
        code = main(["leaderboard", "build", str(runs), "--out", str(tmp_path / "lb")])
    finally:
        for rundir in writing:
            rundir.release()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3
    assert err == [f"error: no run folder in {runs} has results yet: its 2 run(s) are still being written; build "
                   "the leaderboard once one has ended (`harness run` builds it when it ends); nothing published"]


def test_the_root_of_the_file_system_is_no_output_folder(tmp_path, capsys):
    with pytest.raises(UsageError, match="is the root of the file system"):
        check_output_folder(Path("/"))
    # (an unknown suite behind it: before the fix nothing would be written either)
    code = main(["run", "--model", "prior", "--suite", "no-such-suite", "--out", "/", "--no-leaderboard"])
    assert code == 2
    assert capsys.readouterr().err.strip() == ("error: output folder / is the root of the file system; choose a "
                                               "folder of its own (default: results/)")
    code = main(["leaderboard", "build", str(tmp_path), "--out", "/"])
    assert code == 2 and "is the root of the file system" in capsys.readouterr().err
