"""`harness run --resume` after something changed between the attempts: the resumed run
recomputes every row (from the caches), so its folder must hold nothing of the earlier
attempt that this one did not write again."""

from __future__ import annotations

import json

import pytest
from helpers_core import EchoModel, core_plugins, tiny_examples

from harness.api import Probe, Suite, Task
from harness.hookspecs import hookimpl
from harness.testing import dataset_plugin, make_host, run_in_process


class _Flaky(Probe):
    """Fails while `fail` is set (a transient failure: out of memory, a server away)."""

    name = "flaky"
    requires = ("answer",)
    fail = True

    def run(self, ctx):
        ctx.predict(ctx.examples, "answer")
        if _Flaky.fail:
            raise RuntimeError("transient")
        return [ctx.row("ok", 1.0, len(ctx.examples), unit="count", higher_is_better=None)]


class _FlakyPlugin:
    @hookimpl
    def register_probes(self, register):
        register(_Flaky)

    @hookimpl
    def register_suites(self, register):
        register(Suite("flaky-suite", "a flaky probe, then accuracy",
                       (Task("tiny", "train", ("flaky",)), Task("tiny", "val", ("accuracy",)))))


@pytest.fixture(autouse=True)
def _reset():
    EchoModel.calls.clear()
    yield
    EchoModel.stop_after, _Flaky.fail = 0, True


def test_a_resumed_run_keeps_no_traceback_of_a_probe_that_succeeded_this_time(tmp_path):
    """Attempt 1: the probe failed (traceback.txt), then the run was stopped; the resumed run
    ran it cleanly and is complete with 0 probe failures. Before, the old traceback.txt stayed
    in the run folder, and the leaderboard's run report listed it under "Failures"."""
    plugins, names = core_plugins()
    host = make_host(*plugins, _FlakyPlugin(), names=[*names, "flaky"])
    EchoModel.stop_after = 10  # stopped in the second task
    with pytest.raises(KeyboardInterrupt):
        run_in_process(host, model="echo", suite="flaky-suite", tmp_path=tmp_path)
    [run] = (tmp_path / "runs").iterdir()
    traceback = run / "artifacts" / "flaky" / "tiny" / "train" / "default" / "traceback.txt"
    assert traceback.is_file()
    EchoModel.stop_after, _Flaky.fail = 0, False
    resumed = run_in_process(host, model="echo", suite="flaky-suite", tmp_path=tmp_path, resume=True)
    assert resumed.rundir.path == run and resumed.exit_code == 0
    assert json.loads((run / "manifest.json").read_text())["stats"]["probe_failures"] == 0
    assert not traceback.exists()
    assert (run / "predictions" / "tiny" / "train" / "default" / "flaky" / "answer.jsonl").is_file()


def test_resume_does_not_continue_a_run_older_than_a_complete_one(tmp_path):
    """A stopped run, then a new complete run of the same settings whose probe failed: the
    leaderboard shows the newer one, so `--resume` (asked to retry the failure) must not
    finish the older one instead. Before, it did: the retried probe's rows went to a run the
    leaderboard passes over without a word (it shows the newest complete run's rows)."""
    plugins, names = core_plugins()
    host = make_host(*plugins, _FlakyPlugin(), names=[*names, "flaky"])
    EchoModel.stop_after = 10
    with pytest.raises(KeyboardInterrupt):
        run_in_process(host, model="echo", suite="flaky-suite", tmp_path=tmp_path)
    [stopped] = (tmp_path / "runs").iterdir()
    EchoModel.stop_after = 0
    failed = run_in_process(host, model="echo", suite="flaky-suite", tmp_path=tmp_path)
    assert failed.exit_code == 1 and failed.rundir.path.name > stopped.name
    _Flaky.fail = False
    again = run_in_process(host, model="echo", suite="flaky-suite", tmp_path=tmp_path, resume=True)
    assert again.exit_code == 0 and again.rundir.path not in (stopped, failed.rundir.path)
    assert again.rundir.path.name > failed.rundir.path.name
    assert again.warnings == [f"--resume: no unfinished run with these settings in {tmp_path / 'runs'}; this is a "
                              f"new run (the newest with these settings, {failed.rundir.path.name}, is complete)"]
    assert json.loads((stopped / "manifest.json").read_text())["status"] == "interrupted"


@pytest.mark.parametrize("change, differs", [
    ({"limit": 20}, "--limit not given there, 20 here"),
    ({"seed": 3, "split": "train"}, "--seed 0 there, 3 here; --split not given there, train here"),
    (None, "the suite's tasks (or where a relative --data-dir leads)"),  # tiny-suite with a probe more
])
def test_resume_under_other_settings_names_the_run_it_did_not_continue_and_why(tmp_path, change, differs):
    """Before, the warning said only "no unfinished run with these settings": which setting was
    mistyped (a --limit of 20 for 30) was left to guess while a new run started from scratch."""
    plugins, names = core_plugins()
    host = make_host(*plugins, _FlakyPlugin(), names=[*names, "flaky"])
    EchoModel.stop_after = 13
    with pytest.raises(KeyboardInterrupt):
        run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path, batch_size=5)
    [stopped] = (tmp_path / "runs").iterdir()
    EchoModel.stop_after = 0
    if change is None:  # the suite changed since (a newer harness or plugin)
        data = dataset_plugin("tiny", {"train": tiny_examples(10), "val": tiny_examples(40)}, suite="tiny-suite",
                              probes=("accuracy", "flaky"))
        host = make_host(plugins[0], data, *plugins[2:], _FlakyPlugin(), names=[*names, "flaky"])
    new = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path, resume=True, **(change or {}))
    assert new.rundir.path != stopped
    assert new.warnings[-1] == (f"--resume: no unfinished run with these settings in {tmp_path / 'runs'}; this is a "
                                f"new run (the newest unfinished run of echo on tiny-suite, {stopped.name}, "
                                f"differs: {differs})")
