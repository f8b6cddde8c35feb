"""The line Ctrl-C ends a command with says what to do next, and only what applies: `--resume`
after `harness run` stopped its models; after `harness run` whose runs were all complete when
the leaderboard was being written, how to write the leaderboard; after any other command,
nothing (`harness leaderboard build` has no --resume)."""

from __future__ import annotations

import json
import signal

import pytest
from helpers_core import core_plugins
from helpers_signals import LateSignalModel

from harness.api import Publisher
from harness.hookspecs import hookimpl
from harness.testing import make_host, use_host
from vqa_harness_cli import main


class CtrlCPublisher(Publisher):
    """Ctrl-C arrives while it writes."""

    name = "ctrl-c"

    def publish(self, inputs, out, *, latest_only=True, progress=None):
        signal.raise_signal(signal.SIGINT)  # delivered before this returns
        return []


class Plugin:
    @hookimpl
    def register_publishers(self, register):
        register(CtrlCPublisher)

    @hookimpl
    def register_models(self, register):
        register(LateSignalModel)


def _host():
    plugins, names = core_plugins()
    return make_host(*plugins, Plugin(), names=[*names, "ctrl-c-publisher"])


def test_ctrl_c_during_a_complete_runs_last_write_names_the_models_left(tmp_path, capsys):
    """The run's last write finishes (`complete`), then the stop ends the command; before, the
    line said 're-run with --resume to continue', which has nothing of that run to continue."""
    runs = tmp_path / "runs"
    for models, left in ((["late-signal"], ": nothing of it to resume"),
                         (["late-signal", "echo"], "; models not started: echo")):
        with use_host(_host()):
            code = main(["run", *[a for m in models for a in ("--model", m)], "--suite", "tiny-suite", "--jobs", "1",
                         "--out", str(runs), "--cache", str(tmp_path / "cache.sqlite"), "--device", "cpu"])
        err = capsys.readouterr().err.strip().splitlines()
        run = max(runs.iterdir())
        assert code == 130 and json.loads((run / "manifest.json").read_text())["status"] == "complete"
        assert err[-1] == f"interrupted: the run of late-signal was complete before the stop ({run}){left}"


def test_ctrl_c_while_the_leaderboard_is_written_does_not_send_to_resume(tmp_path, capsys):
    # Before: "re-run with --resume to continue", which found no run to continue (all were
    # complete) and started new ones.
    runs, board = tmp_path / "runs", tmp_path / "board"
    with use_host(_host()):
        code = main(["run", "--model", "echo", "--suite", "tiny-suite", "--out", str(runs), "--leaderboard",
                     str(board), "--cache", str(tmp_path / "cache.sqlite"), "--device", "cpu"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 130
    assert err[-1] == (f"interrupted: every run is complete; the leaderboard in {board} may be partly written: "
                       f"`harness leaderboard build {runs} --out {board}` writes it")
    (run,) = runs.iterdir()
    assert json.loads((run / "manifest.json").read_text())["status"] == "complete"


@pytest.fixture
def python_ctrl_c():
    """Python's own Ctrl-C handler, which commands other than `run` rely on: a shell starting
    the tests in the background (`cmd &`) hands them SIGINT ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_in_another_command_is_one_line_without_resume(tmp_path, capsys, python_ctrl_c):
    (tmp_path / "runs" / "r1").mkdir(parents=True)
    (tmp_path / "runs" / "r1" / "results.jsonl").write_text("")
    with use_host(_host()):
        code = main(["leaderboard", "build", str(tmp_path / "runs"), "--out", str(tmp_path / "board")])
    assert code == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "interrupted"
