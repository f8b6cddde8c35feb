"""`harness run --resume` with several models after a stop: a model whose newest run with
these settings is complete is not run again (before, each got a second, identical run folder
after a "no unfinished run" warning); one whose run had failed examples or a failed probe
runs anew (a new run retries them)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from helpers_core import core_plugins
from test_run_pool import _host

from harness.api import Probe, Suite, Task
from harness.hookspecs import hookimpl
from harness.run import RunConfig
from harness.testing import make_host
from vqa_harness_cli.launch import run_models


def _runs(out: Path) -> list[tuple[str, str]]:
    found = []
    for run in sorted(out.iterdir()):
        manifest = json.loads((run / "manifest.json").read_text())
        found.append((manifest["model"], manifest["status"]))
    return found


def test_resume_does_not_run_a_complete_model_again(tmp_path):
    host = _host()
    base = RunConfig(model="", suite="tiny-suite", out=tmp_path / "runs", cache_path=tmp_path / "cache.sqlite",
                     device="cpu", progress=False)
    lines: list[str] = []
    run_models(["echo", "red"], base, host, leaderboard=None, echo=lines.append, warn=lines.append, jobs=1)
    assert _runs(tmp_path / "runs") == [("echo", "complete"), ("red", "complete")]  # red: 1 failed example
    echo_run = sorted((tmp_path / "runs").iterdir())[0]
    lines.clear()
    code = run_models(["echo", "red"], replace(base, resume=True), host, leaderboard=None, echo=lines.append,
                      warn=lines.append, jobs=1)
    assert code == 1  # red's failed example, retried and failing again
    assert sorted(_runs(tmp_path / "runs")) == [("echo", "complete"), ("red", "complete"), ("red", "complete")]
    assert f"echo on tiny-suite: complete in {echo_run}, not run again (--resume continues unfinished runs; " \
           "leave it out for a new run)" in lines
    assert not [line for line in lines if "no unfinished run" in line and "echo" in line]


class _Boom(Probe):
    name = "boom"
    requires = ("answer",)

    def run(self, ctx):
        raise RuntimeError("boom on purpose")


class _BoomPlugin:
    @hookimpl
    def register_probes(self, register):
        register(_Boom)

    @hookimpl
    def register_suites(self, register):
        register(Suite("boom-suite", "accuracy and a probe that fails", (Task("tiny", "val", ("accuracy", "boom")),)))


def test_resume_runs_a_complete_model_whose_probe_failed_again(tmp_path):
    """A run whose probe failed is `complete` too (exit 1); a new run retries the probe, so
    `--resume` must not take it as done (the manifest counts its failed probes)."""
    plugins, names = core_plugins()
    host = make_host(*plugins, _BoomPlugin(), names=[*names, "boom"])
    base = RunConfig(model="", suite="boom-suite", out=tmp_path / "runs", cache_path=tmp_path / "cache.sqlite",
                     device="cpu", progress=False)
    lines: list[str] = []
    assert run_models(["echo"], base, host, leaderboard=None, echo=lines.append, warn=lines.append, jobs=1) == 1
    [run] = list((tmp_path / "runs").iterdir())
    assert json.loads((run / "manifest.json").read_text())["stats"]["probe_failures"] == 1
    run_models(["echo"], replace(base, resume=True), host, leaderboard=None, echo=lines.append,
               warn=lines.append, jobs=1)
    assert _runs(tmp_path / "runs") == [("echo", "complete"), ("echo", "complete")]
