"""`openai` against a server that answers badly: a 200 that carries no answer, content as a
list of parts, a refusal, a server that fails every request, and a run interrupted while a
request is in flight. Each used to end in silently wrong cached answers, thousands of failed
requests, or a process that would not exit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace as NS

import pytest
from helpers_fake import completion, fake_spec, only_manifest

from harness.errors import ExitCode, StopRun
from harness.host import PluginHost
from harness.testing import run_in_process
from vqa_harness_plugins.models.served import endpoint
from vqa_harness_plugins.models.served.replies import reply_problem


def _spec(base_url: str, **extra) -> str:
    return fake_spec(base_url, 1, **extra)


def _answers(tmp_path: Path) -> list[str]:
    rows = []
    for path in sorted((tmp_path / "runs").glob("*/predictions/**/answer.jsonl")):
        rows += [json.loads(line).get("answer") for line in path.read_text().splitlines() if line.strip()]
    return rows


def _cut_empty() -> dict:
    body = completion("")
    body["choices"][0]["finish_reason"] = "length"
    return body


NO_ANSWER = {
    "error object": {"error": {"message": "engine crashed", "code": 500}},
    "no choices": {**completion(), "choices": []},
    "not a completion": {"ok": True},
    "empty, cut at the limit": _cut_empty(),
}


@pytest.mark.parametrize("kind", list(NO_ANSWER))
def test_a_reply_without_an_answer_fails_its_example_and_a_rerun_asks_again(fake, tmp_path, kind):
    """Before, each of these was cached as the answer "" (scored wrong, never asked again)."""
    fake.reply = lambda r, n: (200, NO_ANSWER[kind]) if n <= 3 else (200, completion("two"))
    host = PluginHost(blocked=frozenset())
    out = run_in_process(host, model=_spec(fake.base_url), suite="vqa-accuracy", tmp_path=tmp_path, limit=4)
    assert out.exit_code == ExitCode.PARTIAL and out.example_errors == 3 and out.model_calls == 5
    assert "" not in _answers(tmp_path)
    assert only_manifest(tmp_path)["usage"]["failed_requests"] == 3
    again = run_in_process(host, model=_spec(fake.base_url), suite="vqa-accuracy", tmp_path=tmp_path / "again",
                           limit=4, cache_path=tmp_path / "cache.sqlite")
    assert again.exit_code == 0 and again.model_calls == 3 and len(fake.requests) == 11


@pytest.mark.parametrize("status, body", [(500, {"error": {"message": "CUDA error: device-side assert"}}),
                                          (200, NO_ANSWER["error object"])])
def test_a_server_failing_every_request_stops_the_run_after_a_few(fake, tmp_path, status, body):
    """Before, every example was sent (with its retries) and failed: 40 failed requests here,
    hundreds of thousands on a large suite, for a server that answers nothing."""
    fake.reply = lambda r, n: (status, body)
    with pytest.raises(StopRun) as stop:
        run_in_process(PluginHost(blocked=frozenset()), model=_spec(fake.base_url), suite="vqa-accuracy",
                       tmp_path=tmp_path, limit=20)
    message = str(stop.value)
    assert stop.value.exit_code == ExitCode.RESOURCE and "\n" not in message
    assert f"{endpoint.FAILED_STOP} requests in a row failed" in message
    assert "engine crashed" in message or "CUDA error" in message
    assert len(fake.requests) == endpoint.FAILED_STOP
    assert only_manifest(tmp_path)["status"] == "stopped"


@pytest.mark.parametrize("raw", [b'{"id": "cmpl-1", "choices": [{"mess', json.dumps(completion("XX")).encode().replace(
    b"XX", b"r\xffd")], ids=["truncated JSON", "not UTF-8"])
def test_an_unreadable_200_counts_as_a_failed_request_and_stops_a_run_that_gets_only_those(fake, tmp_path, raw):
    """A 200 whose body is not JSON (a proxy cut it) or not UTF-8: the client's JSONDecodeError /
    UnicodeDecodeError escaped the endpoint, so the example failed without naming the endpoint,
    `failed_requests` stayed 0 (10 attempts, 0 requests, 0 failed) and the run never stopped."""
    fake.reply = lambda r, n: (200, raw)
    with pytest.raises(StopRun) as stop:
        run_in_process(PluginHost(blocked=frozenset()), model=_spec(fake.base_url), suite="vqa-accuracy",
                       tmp_path=tmp_path, limit=20)
    message = str(stop.value)
    assert f"{endpoint.FAILED_STOP} requests in a row failed" in message and "unreadable response" in message
    assert "\n" not in message and len(fake.requests) == endpoint.FAILED_STOP
    usage = only_manifest(tmp_path)["usage"]
    assert usage["failed_requests"] == endpoint.FAILED_STOP == usage["attempts"]


def test_failures_separated_by_answers_do_not_stop_the_run(fake, tmp_path):
    fake.reply = lambda r, n: (500, {"error": {"message": "oops"}}) if n % 3 else (200, completion("two"))
    out = run_in_process(PluginHost(blocked=frozenset()), model=_spec(fake.base_url), suite="vqa-accuracy",
                         tmp_path=tmp_path, limit=6)
    assert out.exit_code == ExitCode.PARTIAL and out.example_errors == 8 and out.model_calls == 4


def test_content_parts_and_refusals_are_read_as_text(fake, tmp_path):
    """Content as a list of parts was read as its Python repr ("[{'type': 'text', ...}]"); a
    refusal (content null, `refusal` set) as ""."""
    def reply(r, n):
        body = completion()
        message = body["choices"][0]["message"]
        if n % 2:
            message["content"] = [{"type": "text", "text": "The answer is: "}, {"type": "text", "text": "two."}]
        else:
            message.update(content=None, refusal="I can't help with that")
        return 200, body

    fake.reply = reply
    out = run_in_process(PluginHost(blocked=frozenset()), model=_spec(fake.base_url, logprobs="off"),
                         suite="vqa-accuracy", tmp_path=tmp_path, limit=4)
    assert out.exit_code == 0 and out.model_calls == 8
    answers = _answers(tmp_path)
    assert sorted(set(answers)) == ["i can't help with that", "two"], answers
    assert only_manifest(tmp_path)["usage"]["refusals"] == 4


# SIGINT's default handler set again: a shell starting the tests in the background (`cmd &`)
# hands its children SIGINT ignored, and then Ctrl-C never reaches the run at all.
_INTERRUPTED = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from harness.host import PluginHost
from harness.testing import run_in_process
try:
    run_in_process(PluginHost(blocked=frozenset()), model=sys.argv[1], suite="vqa-accuracy", tmp_path=sys.argv[2],
                   limit=2)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
"""


def test_an_interrupted_run_exits_without_waiting_for_the_request_in_flight(fake, tmp_path):
    """Ctrl-C while a request was in flight: the process waited for it (and its retries:
    up to `timeout` x (max_retries + 1), 12 minutes by default) before it exited."""
    release = threading.Event()
    child: list[subprocess.Popen] = []

    def reply(r, n):
        os.kill(child[0].pid, signal.SIGINT)  # the request is in flight: interrupt the run
        release.wait()  # and never answer it while the test runs
        return 200, completion()

    fake.reply = reply
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    spec = _spec(fake.base_url, timeout=3600)
    child.append(subprocess.Popen([sys.executable, "-c", _INTERRUPTED, spec, str(tmp_path)], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    try:
        out, err = child[0].communicate(timeout=120)  # a bound for the failure case only
    except subprocess.TimeoutExpired:
        child[0].kill()
        child[0].communicate()
        pytest.fail("the interrupted run did not exit while its request was in flight")
    finally:
        release.set()
    assert child[0].returncode == 130 and "interrupted" in out, err
    assert len(fake.requests) == 1


def test_an_empty_reply_cut_at_the_limit_that_carries_log_probabilities_is_an_answer():
    """max_tokens=1 for letter scoring: the one token may be a space, and the letters are in its
    alternatives (read from the log-probabilities), so the reply is not "without an answer"."""


    first = NS(token=" ", logprob=-0.1, top_logprobs=[NS(token="B", logprob=-2.5), NS(token="A", logprob=-3.0)])
    choice = NS(message=NS(content=" ", refusal=None), finish_reason="length", logprobs=NS(content=[first]))
    assert reply_problem(NS(choices=[choice]), 1) == ""
    bare = NS(message=NS(content=" ", refusal=None), finish_reason="length", logprobs=None)
    assert reply_problem(NS(choices=[bare]), 1).startswith("empty answer cut at the length limit")
