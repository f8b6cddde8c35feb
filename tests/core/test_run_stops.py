"""The engine's half of stopping a run (harness.run.stops), without any signal handler: a
stop request raises `Stopped` only in the process that claimed the run, waits inside
`deferred()`, and is raised by `raise_pending` afterwards; later requests are ignored."""

from __future__ import annotations

import json
import signal

import pytest
from helpers_core import core_plugins
from helpers_signals import LateSignalModel

from harness.api import Model
from harness.errors import Stopped
from harness.hookspecs import hookimpl
from harness.run import stops
from harness.rundir import RunDir
from harness.testing import make_host, run_in_process
from vqa_harness_cli.launch.signals import stop_on_signals


@pytest.fixture(autouse=True)
def fresh():
    stops.release_run(reset=True)
    yield
    stops.release_run(reset=True)


def test_a_request_is_only_remembered_where_no_run_is_claimed():
    stops.request_stop(signal.SIGTERM)  # no run claimed: nothing raised
    assert stops.pending() == signal.SIGTERM and not stops.runs_here()


def test_the_first_request_stops_the_claimed_run_and_later_ones_are_ignored():
    stops.claim_run(reset=True)
    with pytest.raises(Stopped) as stopped:
        stops.request_stop(signal.SIGTERM)
    assert stopped.value.status == "terminated"
    stops.request_stop(signal.SIGINT)  # the manifest's last write must not be cut
    stops.raise_pending()
    assert stops.pending() == signal.SIGTERM


def test_a_request_inside_deferred_waits_for_raise_pending():
    stops.claim_run(reset=True)
    with stops.deferred():
        stops.request_stop(signal.SIGINT)
    with pytest.raises(Stopped) as stopped:
        stops.raise_pending()
    assert stopped.value.status == "interrupted"


def test_a_worker_claims_after_a_reset_and_raises_what_came_before():
    stops.request_stop(signal.SIGINT)
    stops.release_run(reset=True)  # a freshly forked worker forgets its parent's state
    assert stops.pending() is None
    stops.request_stop(signal.SIGTERM)  # arrives while the worker is idle
    stops.claim_run()
    with pytest.raises(Stopped):
        stops.raise_pending()


# ------------------------------------------------------------------ a signal during the last write


class LatePlugin:
    @hookimpl
    def register_models(self, register):
        register(LateSignalModel)


def test_a_signal_during_the_last_write_does_not_leave_the_manifest_running(tmp_path):
    # Before, Stopped was raised inside the final write: results.jsonl and report.md were not
    # rewritten and the manifest kept the `running` of the last task's write, which reads as a
    # killed run. Now the last write finishes (every task ran: `complete`), then the command stops.
    plugins, names = core_plugins()
    host = make_host(*plugins, LatePlugin(), names=[*names, "late-model"])
    with stop_on_signals(), pytest.raises(Stopped) as stopped:
        run_in_process(host, model="late-signal", suite="tiny-suite", tmp_path=tmp_path)
    assert stopped.value.status == "interrupted"
    (run,) = (tmp_path / "runs").iterdir()
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "complete" and "finished" in manifest
    assert "vqa_accuracy" in (run / "results.jsonl").read_text()
    assert RunDir(run).writer() is None


# ------------------------------------------------------------------ a stop a library swallows


class SwallowingModel(Model):
    """SIGTERM arrives during its first batch, inside library code that turns the `Stopped`
    into another error (as a bare `except:` in a module being imported did in torch's first
    import: the next import then failed with a RuntimeError)."""

    name = "swallowing"
    calls = 0

    def answer(self, batch):
        SwallowingModel.calls += len(batch)
        try:
            signal.raise_signal(signal.SIGTERM)
        except BaseException:  # the library's bare except
            pass
        raise RuntimeError("partially initialized module 'torch' has no attribute 'distributed'")


class SwallowPlugin:
    @hookimpl
    def register_models(self, register):
        register(SwallowingModel)


def test_a_stop_turned_into_another_error_still_stops_the_run(tmp_path):
    # Before, the example failed (and was retried one by one), every later probe ran on, and
    # the run ended `complete`; SIGTERM during `import torch` in a real run gave 26 of 100
    # rows, probe failures and exit 0.
    plugins, names = core_plugins()
    host = make_host(*plugins, SwallowPlugin(), names=[*names, "swallow-model"])
    SwallowingModel.calls = 0
    with stop_on_signals(), pytest.raises(Stopped) as stopped:
        run_in_process(host, model="swallowing", suite="tiny-suite", tmp_path=tmp_path, batch_size=8)
    assert stopped.value.status == "terminated"
    assert SwallowingModel.calls == 8  # one batch: not retried example by example
    (run,) = (tmp_path / "runs").iterdir()
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "terminated" and manifest["stats"]["example_errors"] == 0
    assert RunDir(run).writer() is None
