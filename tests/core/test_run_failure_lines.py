"""A failure that ends a several-model `harness run`: the models never started are named (they
have no run folder, and only the first failure was printed), and in processes side by side
(`--jobs`) another model's failure is a line of its own, not lost behind the first one's."""

from __future__ import annotations

from concurrent.futures import ALL_COMPLETED, wait

import pytest
from helpers_core import core_plugins
from test_run_pool import BrokenModel, BrokenPlugin, _run

from harness.errors import DataError
from harness.hookspecs import hookimpl
from harness.testing import make_host


class OtherBrokenModel(BrokenModel):
    name = "broken2"


class OtherPlugin:
    @hookimpl
    def register_models(self, register):
        register(OtherBrokenModel)


def _host():
    plugins, names = core_plugins()
    return make_host(*plugins, BrokenPlugin(), OtherPlugin(), names=[*names, "broken-model", "other-broken"])


def test_one_after_the_other_names_the_models_not_started(tmp_path):
    lines: list[str] = []
    with pytest.raises(DataError, match="broken on purpose"):
        _run(_host(), ["echo", "broken", "red"], tmp_path, jobs=1, lines=lines)
    assert "models not started after the failure of broken (below): red (re-run to run them)" in lines


def test_side_by_side_says_every_failure_and_the_models_not_started(tmp_path, monkeypatch):
    import vqa_harness_cli.launch.parallel as parallel

    # both failures reach the parent at once (see test_run_pool: a failure starts no other model)
    monkeypatch.setattr(parallel, "wait", lambda running, return_when: wait(running, return_when=ALL_COMPLETED))
    lines: list[str] = []
    with pytest.raises(DataError, match="broken on purpose"):
        _run(_host(), ["broken", "broken2", "echo"], tmp_path, jobs=2, lines=lines)
    assert "error: broken2: broken on purpose: /data/missing.json" in lines
    assert "models not started after the failure of broken (below): echo (re-run to run them)" in lines
