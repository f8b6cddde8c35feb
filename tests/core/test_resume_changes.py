"""`harness run --resume` after something changed between the attempts: the resumed run
recomputes every row (from the caches), so its folder must hold nothing of the earlier
attempt that this one did not write again."""

from __future__ import annotations

import json

import pytest
from helpers_core import EchoModel, core_plugins

from harness.api import Probe, Suite, Task
from harness.hookspecs import hookimpl
from harness.testing import make_host, run_in_process


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
