"""What one run keeps, and where: an answer too large for one prediction is a failed example,
not a cache entry; the probe outputs of a `--cache FILE` belong to that file alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_core import EchoModel, core_plugins

from harness.api import Model
from harness.cache.predictions import PredictionCache
from harness.hookspecs import hookimpl
from harness.testing import make_host, run_in_process
from harness.types import Answer

#: Characters of one answer the harness keeps (harness.run.predictor.MAX_TEXT).
MAX_TEXT = 100_000


class Verbose(Model):
    """Answers one question with more text than one prediction may hold."""

    name = "verbose"

    def answer(self, batch):
        return [Answer("x" * (MAX_TEXT + 1) if ex.id == "q1" else "red") for ex in batch]


class Garbled(Model):
    """Answers one question with a lone surrogate (a served model's JSON reply can hold
    "\\ud800"): text that cannot be written as UTF-8."""

    name = "garbled"

    def answer(self, batch):
        return [Answer("red\ud800" if ex.id == "q1" else "red") for ex in batch]


class GarbledError(Model):
    """Fails one question with an error whose text holds a lone surrogate (a server's error
    body with a `\\udce9` escape, a file name with undecodable bytes)."""

    name = "garbled-error"

    def answer(self, batch):
        if any(ex.id == "q1" for ex in batch):
            raise ValueError("server said: caf\udce9")
        return [Answer("red") for _ in batch]


class Plugin:
    @hookimpl
    def register_models(self, register):
        register(Verbose)
        register(Garbled)
        register(GarbledError)


@pytest.fixture(autouse=True)
def _reset_calls():
    EchoModel.calls.clear()
    yield
    EchoModel.calls.clear()


def test_an_answer_too_large_for_a_prediction_is_a_failed_example_not_a_cache_entry(tmp_path):
    plugins, names = core_plugins()
    host = make_host(*plugins, Plugin(), names=[*names, "verbose-model"])
    out = run_in_process(host, model="verbose", suite="tiny-suite", tmp_path=tmp_path)
    assert out.exit_code == 1 and out.example_errors == 1  # a partial run, said so
    cache = PredictionCache(tmp_path / "cache.sqlite")
    try:
        assert cache.count() == 39  # every answer but the oversized one
    finally:
        cache.close()
    lines = [json.loads(line) for line in
             next((out.rundir.path / "predictions" / "tiny" / "val").rglob("accuracy/answer.jsonl")).read_text().splitlines()]
    (bad,) = [p for p in lines if p["example_id"] == "q1"]
    assert bad["error"] == ("plugin verbose-model:verbose: ValueError: answer of 100,001 characters is longer than one "
                            "prediction may hold (100,000; example q1)")
    assert "answer" not in bad
    assert "100,001 characters" in (out.rundir.path / "report.md").read_text()


def _run(host, tmp_path: Path, cache: Path):
    EchoModel.calls.clear()
    out = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path, cache_path=cache)
    manifest = json.loads((out.rundir.path / "manifest.json").read_text())
    return out, manifest["stats"]["probe_outputs_reused"]


def test_an_answer_that_is_not_unicode_text_is_a_failed_example(tmp_path):
    """Before, the write of the predictions file raised UnicodeEncodeError and the probe was
    lost whole ('surrogates not allowed')."""
    plugins, names = core_plugins()
    host = make_host(*plugins, Plugin(), names=[*names, "verbose-model"])
    out = run_in_process(host, model="garbled", suite="tiny-suite", tmp_path=tmp_path)
    assert not out.probe_failures and out.example_errors == 1 and out.rows
    lines = [json.loads(line) for line in
             next((out.rundir.path / "predictions" / "tiny" / "val").rglob("accuracy/answer.jsonl")).read_text().splitlines()]
    (bad,) = [p for p in lines if p["example_id"] == "q1"]
    assert bad["error"] == ("plugin verbose-model:garbled: ValueError: answer holds a lone surrogate (U+D800 at "
                            "character 3), not Unicode text (example q1)")


def test_an_error_text_that_is_not_unicode_is_kept_readable(tmp_path):
    """Before, writing report.md raised UnicodeEncodeError: the run ended in a traceback and
    its report was never written."""
    plugins, names = core_plugins()
    host = make_host(*plugins, Plugin(), names=[*names, "verbose-model"])
    out = run_in_process(host, model="garbled-error", suite="tiny-suite", tmp_path=tmp_path)
    assert out.example_errors == 1 and out.rows
    assert "server said: caf\ufffd" in (out.rundir.path / "report.md").read_text(encoding="utf-8")
    assert json.loads((out.rundir.path / "manifest.json").read_text())["status"] == "complete"


def test_probe_outputs_belong_to_their_own_cache_file(tmp_path):
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    caches = tmp_path / "caches"
    first, reused = _run(host, tmp_path / "1", caches / "a.sqlite")
    assert first.model_calls == 40 and reused == 0
    again, reused = _run(host, tmp_path / "2", caches / "a.sqlite")
    assert again.model_calls == 0 and reused == 1  # the same cache file: restored
    # Another cache file in the same folder is a fresh start: nothing restored from a.sqlite's.
    other, reused = _run(host, tmp_path / "3", caches / "b.sqlite")
    assert other.model_calls == 40 and reused == 0
    assert not (caches / "artifacts").exists()
    assert sorted(p.name for p in caches.iterdir() if p.is_dir()) == ["a.sqlite.outputs", "b.sqlite.outputs"]
    # A cache file deleted and created again under its old name is a fresh start too.
    for path in caches.glob("a.sqlite*"):
        if path.is_file():
            path.unlink()
    fresh, reused = _run(host, tmp_path / "4", caches / "a.sqlite")
    assert fresh.model_calls == 40 and reused == 0
