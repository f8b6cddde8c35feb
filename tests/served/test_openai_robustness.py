"""`openai` on the paths that used to hide failures: a response the reading code chokes on, a
parameter the server refuses on every request (hosted reasoning models), a resumed run's
usage, a `predict_stream` that breaks, and the size of the encoded-image cache."""

from __future__ import annotations

import json
from typing import Any, Iterator, Sequence

import pytest
from helpers_fake import completion, fake_spec, only_manifest
from PIL import Image

from harness.api import Model
from harness.cache.predictions import PredictionCache
from harness.errors import ExitCode, StopRun
from harness.host import PluginHost
from harness.run.predictor import Predictor
from harness.testing import run_in_process
from harness.types import Example, Prediction
from vqa_harness_plugins.models.served import endpoint, messages


def _spec(base_url: str, **extra) -> str:
    return fake_spec(base_url, 2, **extra)


_manifest = only_manifest


def test_a_response_the_reader_chokes_on_fails_that_example_only(fake, tmp_path, capsys):
    """Log-probabilities in a shape the client accepts but the reading code does not
    (`top_logprobs` a number): before, the TypeError escaped the worker, the runner fell back
    to the batched path, answered requests were sent again, and under a token budget every
    example then failed with a KeyError."""
    broken = {"content": [{"token": "yes", "logprob": -0.1, "bytes": None, "top_logprobs": 5}]}
    fake.reply = lambda r, n: (200, completion("yes", 20, 1, logprobs=broken if "logprobs" in r.body else None))
    out = run_in_process(PluginHost(blocked=frozenset()), model=_spec(fake.base_url, budget_tokens=10**6),
                         suite="vqa-accuracy", tmp_path=tmp_path, limit=8)
    asked = [r for r in fake.requests if "logprobs" in r.body]
    assert asked and out.exit_code == ExitCode.PARTIAL and out.example_errors == len(asked)
    assert out.model_calls == len(fake.requests) - len(asked)
    bodies = [json.dumps(r.body, sort_keys=True) for r in fake.requests]
    assert len(bodies) == len(set(bodies)) == 16  # every question asked once, none again
    report = next((tmp_path / "runs").iterdir()).joinpath("report.md").read_text()
    assert "plugin openai: TypeError" in report
    assert "predict_stream failed" not in capsys.readouterr().err


class _BrokenStream(Model):
    """Streams one answer, then breaks; its batched path answers "b"."""

    name = "broken-stream"
    uses_images = False

    def answer(self, batch: Sequence[Example]) -> list[str]:
        return ["b"] * len(batch)

    def predict_stream(self, examples: Sequence[Example], capability: str, *, answers: Any = None,
                       batch_size: int = 32) -> Iterator[tuple[list[int], list[Prediction]]]:
        yield [0], [Prediction(examples[0].id, capability, answer="s")]
        raise RuntimeError("stream broke\nsecond line")


def test_the_runner_says_when_predict_stream_breaks(tmp_path, capsys):
    cache = PredictionCache(tmp_path / "cache.sqlite")
    examples = [Example(id=f"q{i}", question=f"what {i}?") for i in range(3)]
    preds = Predictor(_BrokenStream(), cache=cache, progress=False, plugin_label="p:broken-stream").predict(
        examples, "answer")
    cache.close()
    assert [p.answer for p in preds] == ["s", "b", "b"]  # the rest through the batched path
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["warning: plugin p:broken-stream: predict_stream failed (RuntimeError: stream broke); "
                   "2 example(s) go through the batched path"]


REFUSAL = ("Unsupported parameter: 'max_tokens' is not supported with this model. "
           "Use 'max_completion_tokens' instead.")


def _reasoning(request, n: int) -> tuple[int, dict]:
    """A hosted reasoning model: refuses max_tokens and any temperature or top_p."""
    body = request.body
    if "max_tokens" in body or "temperature" in body or "top_p" in body or "logprobs" in body:
        return 400, {"error": {"message": REFUSAL, "type": "invalid_request_error", "param": "max_tokens",
                               "code": "unsupported_parameter"}}
    return 200, completion("red", 30, 5)


def test_identical_4xx_stop_the_run_and_token_param_gets_through(fake, tmp_path):
    stop_after = getattr(endpoint, "SAME_4XX_STOP", 5)
    fake.reply = _reasoning
    host = PluginHost(blocked=frozenset())
    with pytest.raises(StopRun) as stop:
        run_in_process(host, model=_spec(fake.base_url, concurrency=1), suite="vqa-accuracy", tmp_path=tmp_path,
                       limit=10)
    message = str(stop.value)
    assert stop.value.exit_code == ExitCode.USAGE and "\n" not in message
    assert f"endpoint {fake.base_url}: HTTP 400 on {stop_after} requests in a row, each saying: {REFUSAL}" in message
    assert "token_param=max_completion_tokens" in message
    assert len(fake.requests) == stop_after  # not one failed request per example
    assert _manifest(tmp_path)["status"] == "stopped"

    spec = _spec(fake.base_url, token_param="max_completion_tokens", temperature=-1, top_p=-1, logprobs="off",
                 max_tokens=64)
    out = run_in_process(host, model=spec, suite="vqa-accuracy", tmp_path=tmp_path / "ok", limit=10)
    assert out.exit_code == 0 and out.model_calls == 20
    sent = fake.requests[stop_after:]
    assert all(r.body["max_completion_tokens"] == 64 and "max_tokens" not in r.body for r in sent)
    assert not [r for r in sent if {"temperature", "top_p", "logprobs"} & r.body.keys()]


def test_a_few_different_4xx_fail_their_examples_only(fake, tmp_path):
    """4xx that differ (a bad image, a too-long prompt) are the examples' own: the run goes on."""
    fake.reply = lambda r, n: (400, {"error": {"message": f"bad request {n}"}}) if n % 2 else (200, completion())
    out = run_in_process(PluginHost(blocked=frozenset()), model=_spec(fake.base_url, concurrency=1),
                         suite="vqa-accuracy", tmp_path=tmp_path, limit=6)
    assert out.exit_code == ExitCode.PARTIAL and out.example_errors == 6 and out.model_calls == 6


def test_a_resumed_run_adds_the_usage_of_the_attempt_it_continues(fake, tmp_path):
    fake.reply = lambda r, n: (200, completion("red", 40, 2))
    host = PluginHost(blocked=frozenset())
    spec = _spec(fake.base_url, budget_requests=4)
    with pytest.raises(StopRun, match="budget of 4 requests reached"):
        run_in_process(host, model=spec, suite="vqa-accuracy", tmp_path=tmp_path, limit=3)
    assert _manifest(tmp_path)["usage"]["requests"] == 4
    out = run_in_process(host, model=spec, suite="vqa-accuracy", tmp_path=tmp_path, limit=3, resume=True)
    assert out.exit_code == 0 and len(fake.requests) == 6
    manifest = _manifest(tmp_path)  # the same run folder, resumed once
    assert manifest["resumed"] == 1 and manifest["status"] == "complete"
    assert manifest["usage_before_resume"]["requests"] == 4
    usage = manifest["usage"]
    assert (usage["requests"], usage["attempts"], usage["prompt_tokens"], usage["completion_tokens"]) == (6, 6, 240, 12)


def test_the_encoded_image_cache_is_bounded_by_bytes(tmp_path, monkeypatch):
    paths = []
    for i in range(12):
        path = tmp_path / f"im{i}.png"
        Image.effect_noise((96, 96), 60 + i).convert("RGB").save(path)  # noise: no small JPEG
        paths.append(str(path))
    one = len(messages.image_data_url(paths[0], "png"))
    monkeypatch.setattr(messages, "ENCODED_CACHE_BYTES", int(3.5 * one))
    messages.clear_image_cache()
    for path in paths:
        messages.image_data_url(path, "png")
    entries, size = messages.image_cache_size()
    assert 0 < size <= 3.5 * one and entries == 3  # the three most recent
    before = messages.image_cache_size()
    messages.image_data_url(paths[-1], "png")  # a hit: nothing added
    assert messages.image_cache_size() == before
    messages.clear_image_cache()
