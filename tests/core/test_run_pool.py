"""Several models at once (`harness run --jobs`): the rows of a sequential run, outcomes in
the given order, an expected failure of one model after the others finished, and cache
entries built once by concurrent processes (harness.cache.locks)."""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import ALL_COMPLETED, wait
from pathlib import Path

import pytest
from helpers_core import core_plugins

from harness.api import Model
from harness.cache.artifacts import ArtifactStore, _write_entry
from harness.cache.locks import build_lock
from harness.errors import DataError
from harness.hookspecs import hookimpl
from harness.run import RunConfig
from harness.testing import make_host
from harness.types import Answer
from vqa_harness_cli.launch import run_models
from vqa_harness_cli.launch.parallel import default_jobs


class BrokenModel(Model):
    """A model whose data check fails when the run starts (an expected, one-line failure)."""

    name = "broken"

    def setup(self, device):
        raise DataError("broken on purpose: /data/missing.json")

    def answer(self, batch):  # pragma: no cover - never reached
        raise AssertionError


class RedModel(Model):
    """Answers "red" to everything; fails on one question."""

    name = "red"

    def answer(self, batch):
        if any(ex.id == "q3" for ex in batch):
            raise RuntimeError("q3 on purpose")
        return [Answer("red") for _ in batch]


class BrokenPlugin:
    @hookimpl
    def register_models(self, register):
        register(BrokenModel)
        register(RedModel)


def _host():
    plugins, names = core_plugins()
    return make_host(*plugins, BrokenPlugin(), names=[*names, "broken-model"])


def _run(host, models, tmp_path: Path, jobs: int, lines: list[str] | None = None):
    lines = [] if lines is None else lines  # the caller's list keeps the lines of a run that raised
    base = RunConfig(model="", suite="tiny-suite", out=tmp_path / "runs", cache_path=tmp_path / "cache.sqlite",
                     device="cpu", progress=False)
    code = run_models(models, base, host, leaderboard=None, echo=lines.append, warn=lines.append, jobs=jobs)
    return code, lines


def _rows(runs: Path) -> dict[str, list[dict]]:
    out = {}
    for run in sorted(runs.iterdir()):
        if not (run / "results.jsonl").is_file():  # a run stopped before its first task
            continue
        manifest = json.loads((run / "manifest.json").read_text())
        rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
        out[manifest["model"]] = [{k: v for k, v in r.items() if k != "run_id"} for r in rows]
    return out


def test_parallel_models_give_the_rows_of_a_sequential_run(tmp_path):
    host = _host()
    models = ["red", "echo"]
    code_seq, _ = _run(host, models, tmp_path / "seq", jobs=1)
    code_par, lines = _run(host, models, tmp_path / "par", jobs=2)
    assert code_seq == code_par == 1  # q3 fails in `red`: a partial run
    assert lines[0] == "running 2 models in 2 processes (--jobs 2)"
    # summaries in the order the models were given, whatever finished first
    assert [line.split(" on ")[0] for line in lines if " result rows -> " in line] == models
    seq, par = _rows(tmp_path / "seq" / "runs"), _rows(tmp_path / "par" / "runs")
    assert set(par) == set(models) and par == seq
    assert any(r["metric"] == "vqa_accuracy" for r in par["echo"])


def test_an_expected_failure_lets_the_running_models_finish(tmp_path):
    host = _host()
    with pytest.raises(DataError, match="broken on purpose"):
        _run(host, ["broken", "echo"], tmp_path, jobs=2)
    finished = _rows(tmp_path / "runs")
    assert "echo" in finished and finished["echo"]
    manifest = json.loads(next(p for p in (tmp_path / "runs").iterdir()
                               if "echo" in p.name).joinpath("manifest.json").read_text())
    assert manifest["status"] == "complete"


def test_only_as_many_models_as_processes_are_handed_out_so_a_failure_starts_no_other(tmp_path, monkeypatch):
    # Which of `broken` and `red` ends first is up to the machine; if `red` did, its process
    # would be free before the failure is known and `echo` would rightly start. The test pins
    # the order it is about: the parent learns both outcomes at once (it waits for every
    # running model), so a free process and a known failure come together.
    import vqa_harness_cli.launch.parallel as parallel

    monkeypatch.setattr(parallel, "wait", lambda running, return_when: wait(running, return_when=ALL_COMPLETED))
    host = _host()
    with pytest.raises(DataError, match="broken on purpose"):
        _run(host, ["broken", "red", "echo"], tmp_path, jobs=2)
    finished = _rows(tmp_path / "runs")
    assert "red" in finished  # running beside the failure: finished
    assert not any("echo" in p.name for p in (tmp_path / "runs").iterdir())  # never started
    (broken,) = [p for p in (tmp_path / "runs").iterdir() if "broken" in p.name]
    manifest = json.loads((broken / "manifest.json").read_text())  # marked, not left "running"
    assert manifest["status"] == "failed" and manifest["error"] == "broken on purpose: /data/missing.json"


def test_repeated_models_run_once(tmp_path):
    code, lines = _run(_host(), ["echo", "red", "echo"], tmp_path, jobs=2)
    assert lines[0] == "warning: model(s) given more than once run once: echo"
    assert sorted(p.name.split("-", 2)[2] for p in (tmp_path / "runs").iterdir()) == \
        ["echo-tiny-suite", "red-tiny-suite"]


def test_default_jobs(monkeypatch):
    import vqa_harness_cli.launch.parallel as parallel

    monkeypatch.setattr(parallel, "has_nvidia_driver", lambda: False)
    assert default_jobs(1, "cpu") == 1
    assert default_jobs(4, "cuda") == 1 and default_jobs(4, "cuda:1") == 1
    assert 1 <= default_jobs(4, "cpu") <= 4
    assert default_jobs(4, "auto") == default_jobs(4, "cpu")
    # --device auto on a machine with an NVIDIA driver would put every model on one GPU
    monkeypatch.setattr(parallel, "has_nvidia_driver", lambda: True)
    assert default_jobs(4, "auto") == 1 and default_jobs(4, "cpu") >= 1


def test_models_that_train_on_images_start_first():
    from vqa_harness_cli.launch.parallel import expected_cost
    from vqa_harness_plugins.models.cnnlstm import CNNLSTMModel
    from vqa_harness_plugins.models.qonly import QOnlyModel

    assert expected_cost(CNNLSTMModel) == 2 and expected_cost(QOnlyModel) == 1 and expected_cost(RedModel) == 0


def _read_entry(root: str, ready, result) -> None:
    store = ArtifactStore(Path(root))
    ready.set()

    def build():
        (Path(root) / "built-by-child").write_text("")
        return {"by": "child"}

    result.put(store.json("kind", {"k": 1}, build))


def test_a_concurrent_builder_waits_and_reads_the_first_builders_entry(tmp_path):
    store = ArtifactStore(tmp_path)
    folder = store.folder("kind", {"k": 1})
    ctx = multiprocessing.get_context("fork")
    ready, result = ctx.Event(), ctx.Queue()
    with build_lock(folder):
        child = ctx.Process(target=_read_entry, args=(str(tmp_path), ready, result))
        child.start()
        assert ready.wait(30)
        # The child now finds no entry and waits for the lock (or, if slower, finds ours).
        _write_entry(folder, lambda tmp: (tmp / "value.json").write_text(json.dumps({"by": "parent"})))
    child.join(30)
    assert child.exitcode == 0
    assert result.get(timeout=5) == {"by": "parent"}
    assert not (tmp_path / "built-by-child").exists()


def test_a_damaged_entry_is_rebuilt(tmp_path):
    store = ArtifactStore(tmp_path)
    assert store.json("kind", "k", lambda: [1, 2]) == [1, 2]
    (store.folder("kind", "k") / "value.json").write_text("{not json")
    assert store.json("kind", "k", lambda: [3]) == [3]
    assert store.json("kind", "k", lambda: [4]) == [3]

