"""What the launcher (vqa_harness_cli.launch) is given: the environment a torchrun-like
launcher sets, and every --model spec. Bad values are one line before any model runs."""

from __future__ import annotations

import pytest
from helpers_malformed import expect_one_line, plugin_for, run_cli

from harness.api import Task
from harness.testing import ListDataset
from harness.types import Example

LAUNCHER = ("WORLD_SIZE", "RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "VQA_HARNESS_EXCHANGE_TIMEOUT")
TORCHRUN = {"WORLD_SIZE": "2", "RANK": "0", "MASTER_ADDR": "localhost", "MASTER_PORT": "29500"}


class Tiny(ListDataset):
    name = "tiny"
    splits = ("val",)
    data = {"val": [Example(id=f"v{i}", question=f"Is it {i}?", answers=("yes",) * 10) for i in range(4)]}


def _run(capsys, tmp_path, *models: str, jobs: str = "1"):
    argv = ["run", "--suite", "bad", "--out", str(tmp_path / "runs"), "--no-leaderboard", "--jobs", jobs,
            "--cache", str(tmp_path / "c.sqlite"), "--device", "cpu"]
    for spec in models:
        argv += ["--model", spec]
    return run_cli(capsys, argv, plugin_for([Task("tiny", "val", ("accuracy",))], Tiny))


def _no_group(*args, **kwargs):
    raise AssertionError("a process group was made before the launcher's environment was checked")


@pytest.mark.parametrize("env, needles", [
    ({"WORLD_SIZE": "abc"}, ["WORLD_SIZE='abc'", "whole number"]),
    ({"RANK": "x"}, ["RANK='x'"]),
    ({"LOCAL_RANK": "-1"}, ["LOCAL_RANK='-1'"]),
    ({"WORLD_SIZE": "0"}, ["WORLD_SIZE='0'", "at least 1"]),
    ({"WORLD_SIZE": "2"}, ["WORLD_SIZE=2", "RANK is not set"]),
    ({"WORLD_SIZE": "2", "RANK": "0"}, ["MASTER_ADDR is not set"]),
    ({"WORLD_SIZE": "2", "RANK": "0", "MASTER_ADDR": "localhost", "MASTER_PORT": "http"}, ["MASTER_PORT='http'"]),
    ({"WORLD_SIZE": "2", "RANK": "2", "MASTER_ADDR": "localhost", "MASTER_PORT": "29500"}, ["RANK=2", "WORLD_SIZE=2"]),
    ({**TORCHRUN, "VQA_HARNESS_EXCHANGE_TIMEOUT": "0"}, ["VQA_HARNESS_EXCHANGE_TIMEOUT='0'", "minutes"]),
    ({**TORCHRUN, "VQA_HARNESS_EXCHANGE_TIMEOUT": "1.5"}, ["VQA_HARNESS_EXCHANGE_TIMEOUT='1.5'", "whole number"]),
    ({**TORCHRUN, "VQA_HARNESS_EXCHANGE_TIMEOUT": "99999999999999999999"}, ["from 1 to 525600"]),
], ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()) if isinstance(v, dict) else None)
def test_a_bad_launcher_environment_is_one_line_naming_the_variable(capsys, tmp_path, monkeypatch, env, needles):
    for variable in LAUNCHER:
        monkeypatch.delenv(variable, raising=False)
    for variable, value in env.items():
        monkeypatch.setenv(variable, value)
    # A variable let through would wait for rank 1 at the rendezvous (hours): fail at once instead.
    import torch.distributed as dist  # heavy: only this test makes a process group

    monkeypatch.setattr(dist, "init_process_group", _no_group)
    expect_one_line(_run(capsys, tmp_path, "const"), *needles, code=2)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("spec, needles, code", [
    ("qonly:epochs=abc", ["model 'qonly'", "epochs='abc' is not a valid int"], 2),
    ("predictions:path={tmp}/empty.jsonl", ["empty.jsonl", "empty file"], 3),
    ("no-such-model", ["unknown model 'no-such-model'"], 2),
    ("const:trained_on=x", ["trained_on='x' is neither training data"], 2),
])
def test_a_bad_later_model_is_one_line_before_the_first_model_runs(capsys, tmp_path, spec, needles, code, jobs):
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    result = _run(capsys, tmp_path, "const", spec.format(tmp=tmp_path), jobs=jobs)
    expect_one_line(result, *needles, code=code)
    assert not (tmp_path / "runs").exists()  # the first model did not run
