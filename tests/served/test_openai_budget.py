"""`budget_tokens` against a server that counts tokens its own way (tests/served/helpers_fake.py):
prompts larger than any seen before (long questions, larger images on a dynamic-resolution
encoder), a first prompt larger than the whole budget, and a server that reports no usage."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_fake import MODEL, FakeOpenAI, completion, fake_spec, only_manifest
from PIL import Image

from harness.cache.predictions import PredictionCache
from harness.errors import ExitCode, StopRun
from harness.host import PluginHost
from harness.run.predictor import Predictor
from harness.testing import run_in_process
from harness.types import Example
from vqa_harness_plugins.models.served import OpenAIModel


def _spec(base_url: str, **extra) -> str:
    return fake_spec(base_url, 4, **extra)


_manifest = only_manifest


def _used(fake: FakeOpenAI, count) -> int:
    """Tokens the server counted for every request it answered (completion: 1 each)."""
    return sum(count(r) + 1 for r in fake.requests)


def _examples(tmp_path: Path, questions: list[str], sides: list[int]) -> list[Example]:
    out = []
    for i, (question, side) in enumerate(zip(questions, sides)):
        path = tmp_path / f"im{i}.png"
        Image.new("RGB", (side, side), (40 * i % 255, 90, 160)).save(path)
        out.append(Example(id=f"q{i}", question=question, image=str(path), answers=("red",)))
    return out


def _predict(fake: FakeOpenAI, examples: list[Example], tmp_path: Path, **options):
    model = OpenAIModel(base_url=fake.base_url, model=MODEL, max_tokens=2, max_retries=0, **options)
    model.setup("cpu")
    cache = PredictionCache(tmp_path / "cache.sqlite")
    try:
        return Predictor(model, cache=cache, progress=False).predict(examples, "answer")
    finally:
        cache.close()


# The server's token count per request: a fixed-size image encoder (576 tokens, as LLaVA-1.5)
# plus at most one token per two bytes of text; or a dynamic-resolution encoder (one token per
# 14x14 pixels, as a ViT without merging) plus the same text.
def _fixed(r) -> int:
    return 576 + len(r.text.encode()) // 2


def _dynamic(r) -> int:
    return r.pixels // 196 + len(r.text.encode()) // 2


LONG = "What color is the object that " + "sits next to the other object and " * 30 + "?"


@pytest.mark.parametrize(("count", "questions", "sides", "budget"), [
    # Two short questions, then long ones (explanations, many-option multiple choice): before
    # the fix a long prompt was reserved as the largest short one and ran ~1,500 tokens over.
    (_fixed, ["What color?"] * 2 + [LONG] * 2, [64] * 4, 2 * (576 + 40) + 700),
    # Two small images, then large ones on a dynamic-resolution encoder: before the fix a large
    # image was reserved as a small one.
    (_dynamic, ["What color?"] * 4, [28, 28, 280, 280], 400),
], ids=["longer-text", "larger-image"])
def test_a_token_budget_holds_when_later_prompts_are_larger(fake, tmp_path, count, questions, sides, budget):
    fake.reply = lambda r, n: (200, completion("red", count(r), 1))
    examples = _examples(tmp_path, questions, sides)
    with pytest.raises(StopRun, match=rf"budget of {budget} tokens reached") as stop:
        _predict(fake, examples, tmp_path, budget_tokens=budget, concurrency=4)
    assert stop.value.exit_code == ExitCode.PARTIAL and fake.base_url in str(stop.value)
    assert len(fake.requests) == 2 and _used(fake, count) <= budget  # the large ones were never sent
    # With room for them, they are sent (the estimate is not so large that nothing fits).
    fresh = FakeOpenAI(reply=fake.reply)
    try:
        preds = _predict(fresh, examples, tmp_path / "room", budget_tokens=20 * budget, concurrency=4)
        assert all(p.ok for p in preds) and len(fresh.requests) == 4
    finally:
        fresh.close()


def test_a_first_prompt_larger_than_the_budget_is_one_request_and_says_by_how_much(fake, tmp_path):
    """Nothing is known about the image before the first answer: the first request is sent
    alone, and when the server counts 600 prompt tokens against a budget of 100 the run stops
    right after it, saying by how much it went over."""
    fake.reply = lambda r, n: (200, completion("red", 600, 1))
    with pytest.raises(StopRun) as stop:
        run_in_process(PluginHost(blocked=frozenset()), model=_spec(fake.base_url, budget_tokens=100),
                       suite="vqa-accuracy", tmp_path=tmp_path, limit=3)
    message = str(stop.value)
    assert "\n" not in message and stop.value.exit_code == ExitCode.PARTIAL
    assert "budget of 100 tokens exceeded by 501: 601 used" in message and "the first request" in message
    assert len(fake.requests) == 1
    manifest = _manifest(tmp_path)
    assert manifest["status"] == "stopped" and manifest["usage"]["budget_underestimates"] == 1


def test_no_usage_under_a_token_budget_stops_after_the_first_answer(fake, tmp_path):
    fake.reply = lambda r, n: (200, completion("red", prompt_tokens=None))
    host = PluginHost(blocked=frozenset())
    with pytest.raises(StopRun) as stop:
        run_in_process(host, model=_spec(fake.base_url, budget_tokens=1000, concurrency=1), suite="vqa-accuracy",
                       tmp_path=tmp_path, limit=5)
    message = str(stop.value)
    assert stop.value.exit_code == ExitCode.USAGE and "\n" not in message
    assert f"endpoint {fake.base_url}: the response carries no token usage, so budget_tokens=1000" in message
    assert len(fake.requests) == 1
    manifest = _manifest(tmp_path)
    assert manifest["status"] == "stopped" and manifest["usage"]["responses_without_usage"] == 1
    # Without a token budget the same server is fine, and the manifest says what it lacked.
    out = run_in_process(host, model=_spec(fake.base_url, concurrency=1), suite="vqa-accuracy",
                         tmp_path=tmp_path / "free", limit=5)
    assert out.exit_code == 0 and len(fake.requests) == 1 + out.model_calls
    assert _manifest(tmp_path / "free")["usage"]["responses_without_usage"] == out.model_calls


def test_concurrency_under_a_token_budget_uses_it_up_without_passing_it(fake, tmp_path):
    """Many requests in flight, each reserved at its worst case: the run answers about as
    many as fit, and never more."""
    fake.reply = lambda r, n: (200, completion("red", 50, 1))
    examples = _examples(tmp_path, [f"What color {i}?" for i in range(40)], [64] * 40)
    with pytest.raises(StopRun, match="budget of 1000 tokens reached"):
        _predict(fake, examples, tmp_path, budget_tokens=1000, concurrency=8)
    # Each request reserves its text's bytes (about 65) + the largest prompt seen (50) +
    # max_tokens (2), about 120, and uses 51: the run stops once the next reservation would not
    # fit with nothing in flight, so less than one reservation is left unused.
    used = _used(fake, lambda r: 50)
    assert 1000 - 130 < used <= 1000


def test_a_budget_spent_on_one_rank_stops_every_rank_of_a_torchrun_job(tmp_path):
    """Sharded predictions exchange results after each request batch: a rank whose budget is
    spent tells the others there, so no rank waits for it, and rank 0 says why in one line."""
    import os
    import socket
    import subprocess
    import sys

    fake = FakeOpenAI(reply=lambda request, n: (200, completion("blue")))
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env = {**os.environ, "OMP_NUM_THREADS": "1", "TQDM_DISABLE": "1", "GLOO_SOCKET_IFNAME": "lo",
               "MASTER_ADDR": "127.0.0.1"}
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", "--master_addr=127.0.0.1",
               f"--master_port={port}", "-m", "vqa_harness_cli", "run", "--model",
               fake_spec(fake.base_url, 1, budget_requests=2), "--suite", "vqa-accuracy", "--limit", "5",
               "--device", "cpu", "--out", str(tmp_path / "runs"), "--cache", str(tmp_path / "c.sqlite"),
               "--no-leaderboard"]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=150, cwd=tmp_path)
    finally:
        fake.close()
    assert done.returncode != 0
    assert "]: Traceback" not in done.stderr, done.stderr[-3000:]  # no rank's own traceback
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "budget of 2 requests reached" in errors[0], done.stderr[-3000:]


def test_a_server_that_refuses_log_probabilities_is_asked_again_and_counts_no_failure(tmp_path):
    """`logprobs=auto`: the 400 naming log-probabilities is tolerated (asked again without
    them, once per model); those requests are answered, not failed."""
    def reply(request, n):
        if "logprobs" in request.body:
            return 400, {"error": {"message": "logprobs are not supported by this server",
                                   "type": "invalid_request_error"}}
        return 200, completion("yes")

    fake = FakeOpenAI(reply=reply)
    try:
        out = run_in_process(PluginHost(blocked=frozenset()), model=fake_spec(fake.base_url, 4),
                             suite="vqa-accuracy", tmp_path=tmp_path, limit=12)
    finally:
        fake.close()
    usage = only_manifest(tmp_path)["usage"]
    assert out.example_errors == 0 and usage.get("failed_requests", 0) == 0, usage
