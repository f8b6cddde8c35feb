"""A resumed attempt that ends before it has come as far as the attempt it continues leaves
that attempt's results.jsonl, tables.json and report.md as they were: before, an attempt
whose model failed to set up rewrote results.jsonl with 0 rows, and the rows computed before
the stop were gone from the run folder until another `--resume`."""

from __future__ import annotations

import json

import pytest
from helpers_core import EchoModel, core_plugins, run_rows, tiny_examples

from harness.api import Suite, Task
from harness.errors import PluginError
from harness.hookspecs import hookimpl
from harness.testing import dataset_plugin, make_host, run_in_process


class _Shy(EchoModel):
    """The echo model whose setup fails while `fail` is set (a GPU taken, a server away)."""

    name = "shy"
    fail = False

    def setup(self, device):
        if _Shy.fail:
            raise RuntimeError("no device today")
        super().setup(device)


class _Plugin:
    @hookimpl
    def register_models(self, register):
        register(_Shy)

    @hookimpl
    def register_suites(self, register):
        register(Suite("two-tasks", "accuracy on val, then on train",
                       (Task("tiny2", "val", ("accuracy",)), Task("tiny2", "train", ("accuracy",)))))


@pytest.fixture(autouse=True)
def _reset():
    EchoModel.calls.clear()
    yield
    EchoModel.stop_after, _Shy.fail = 0, False


def _files(run):
    return {name: (run / name).read_bytes() for name in ("results.jsonl", "tables.json", "report.md")}


def test_an_attempt_that_fails_early_keeps_the_rows_of_the_one_before(tmp_path):
    plugins, names = core_plugins()
    data = dataset_plugin("tiny2", {"val": tiny_examples(40), "train": tiny_examples(50)[40:]})  # no question twice
    host = make_host(*plugins, data, _Plugin(), names=[*names, "tiny2", "shy"])
    reference = run_in_process(host, model="shy", suite="two-tasks", tmp_path=tmp_path / "ref", batch_size=5)
    EchoModel.calls.clear()
    EchoModel.stop_after = 45  # the val task (40 questions) done, stopped in the train task
    with pytest.raises(KeyboardInterrupt):
        run_in_process(host, model="shy", suite="two-tasks", tmp_path=tmp_path, batch_size=5)
    [run] = list((tmp_path / "runs").iterdir())
    before = _files(run)
    assert json.loads((run / "manifest.json").read_text())["probes_done"] == 1
    assert len(before["results.jsonl"].splitlines()) > 0
    EchoModel.stop_after, _Shy.fail = 0, True
    with pytest.raises(PluginError, match="no device today"):
        run_in_process(host, model="shy", suite="two-tasks", tmp_path=tmp_path, batch_size=5, resume=True)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "no device today" in manifest["error"]
    assert _files(run) == before  # before: results.jsonl was rewritten with 0 rows
    assert manifest["probes_done"] == 1  # what results.jsonl holds, for the next resume
    _Shy.fail = False
    resumed = run_in_process(host, model="shy", suite="two-tasks", tmp_path=tmp_path, batch_size=5, resume=True)
    assert resumed.rundir.path == run and run_rows(resumed) == run_rows(reference)
    assert json.loads((run / "manifest.json").read_text())["probes_done"] == 2
