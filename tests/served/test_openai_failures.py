"""`openai` when things go wrong, against a real `transformers serve`: 429/503 through a proxy
(Retry-After honoured), budgets, a wrong model name, an unreachable endpoint, the API key
kept out of every file, the harness killed mid-run and the server killed mid-run — each
resumed without re-sending one answered request."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers_served import Proxy

from harness.errors import ExitCode, StopRun
from harness.host import PluginHost
from harness.testing import run_in_process
from vqa_harness_cli import main
from vqa_harness_plugins.models.served.local_server import LocalServer, free_port


def _spec(base_url: str, folder, **extra) -> str:
    options = {"base_url": base_url, "model": str(folder), "concurrency": 2, "max_tokens": 3, "max_retries": 2,
               **extra}
    return "openai:" + ",".join(f"{k}={v}" for k, v in options.items())


def _manifest(run_dir: Path) -> dict:
    return json.loads((run_dir / "manifest.json").read_text())


def _only_run(tmp_path: Path) -> Path:
    (run_dir,) = list((tmp_path / "runs").iterdir())
    return run_dir


@pytest.fixture
def proxy(servers):
    p = Proxy(f"127.0.0.1:{servers['yes'].port}")
    yield p
    p.close()


def test_429_and_503_are_retried_honouring_retry_after(servers, proxy, tmp_path):
    proxy.script = [(429, {"Retry-After": "1"}), (503, {})]
    spec = _spec(proxy.base_url, servers["yes"].folder, concurrency=1)
    out = run_in_process(PluginHost(blocked=frozenset()), model=spec, suite="vqa-accuracy", tmp_path=tmp_path, limit=2)
    assert out.exit_code == 0 and out.model_calls == 4
    assert [s.status for s in proxy.seen] == [429, 503, 200, 200, 200, 200]
    # The 429 asked for one second: the next try came no sooner; all tries were the same request.
    assert proxy.seen[1].at - proxy.seen[0].at >= 0.95
    assert proxy.seen[0].body == proxy.seen[1].body == proxy.seen[2].body
    usage = _manifest(out.rundir.path)["usage"]
    assert (usage["requests"], usage["attempts"], usage["retries_429"], usage["retries_5xx"]) == (4, 6, 1, 1)


def test_budgets_stop_cleanly_before_they_are_exceeded_and_a_rerun_goes_on(servers, proxy, tmp_path):
    host = PluginHost(blocked=frozenset())
    folder = servers["yes"].folder
    with pytest.raises(StopRun, match=r"budget of 3 requests reached") as stop:
        run_in_process(host, model=_spec(proxy.base_url, folder, budget_requests=3), suite="vqa-accuracy",
                       tmp_path=tmp_path, limit=4)
    assert stop.value.exit_code == ExitCode.PARTIAL and proxy.base_url in str(stop.value)
    manifest = _manifest(_only_run(tmp_path))
    assert manifest["status"] == "stopped" and manifest["usage"]["requests"] == 3 and proxy.answered == 3
    first = set(proxy.answered_bodies())
    out = run_in_process(host, model=_spec(proxy.base_url, folder), suite="vqa-accuracy", tmp_path=tmp_path, limit=4)
    assert out.exit_code == 0 and out.model_calls == 5 and proxy.answered == 8
    assert len(set(proxy.answered_bodies())) == 8 and first <= set(proxy.answered_bodies())

    # Tokens: each request is counted at its worst case before it is sent (its text's bytes,
    # the largest prompt seen, max_tokens), so the run stops with the total still under the
    # budget (tests/served/test_openai_budget.py has the cases where prompts grow).
    with pytest.raises(StopRun, match=r"budget of 200 tokens reached"):
        run_in_process(host, model=_spec(proxy.base_url, folder, budget_tokens=200, max_tokens=2),
                       suite="vqa-accuracy", tmp_path=tmp_path / "tokens", limit=4)
    usage = _manifest(_only_run(tmp_path / "tokens"))["usage"]
    assert 0 < usage["prompt_tokens"] + usage["completion_tokens"] <= 200 and 1 <= usage["requests"] < 8


def test_wrong_model_and_unreachable_endpoint_are_one_line_errors(servers, tmp_path, capsys):
    base = servers["yes"].base_url
    common = ["run", "--suite", "vqa-accuracy", "--limit", "2", "--out", str(tmp_path / "runs"), "--no-leaderboard",
              "--cache", str(tmp_path / "c.sqlite"), "--device", "cpu"]
    assert main([*common, "--model", _spec(base, "no-such-model")]) == ExitCode.USAGE
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err
    assert f"endpoint {base}: does not serve model 'no-such-model' (it serves: {servers['yes'].folder})" in err

    dead = f"http://127.0.0.1:{free_port()}/v1"
    assert main([*common, "--model", _spec(dead, "m", max_retries=1)]) == ExitCode.RESOURCE
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"endpoint {dead}: unreachable" in err and "after 2 tries" in err


def test_the_api_key_reaches_no_file_and_no_message(servers, tmp_path, monkeypatch, capsys):
    secret = "sk-test-5f1e0c9a7b3d"
    monkeypatch.setenv("VQA_TEST_API_KEY", secret)
    spec = _spec(servers["yes"].base_url, servers["yes"].folder, api_key_env="VQA_TEST_API_KEY")
    out = run_in_process(PluginHost(blocked=frozenset()), model=spec, suite="vqa-accuracy", tmp_path=tmp_path, limit=2)
    assert out.exit_code == 0 and out.model_calls == 4
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written and not [p for p in written if secret.encode() in p.read_bytes()]
    monkeypatch.delenv("VQA_TEST_API_KEY")
    with pytest.raises(StopRun, match=r"api_key_env=VQA_TEST_API_KEY, but that environment variable is not set"):
        run_in_process(PluginHost(blocked=frozenset()), model=spec.replace("max_tokens=3", "max_tokens=4"),
                       suite="vqa-accuracy", tmp_path=tmp_path / "unset", limit=2)
    assert secret not in capsys.readouterr().err


def _cached(path: Path) -> int:
    try:
        with sqlite3.connect(path, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_killed_harness_resumes_without_resending_an_answered_request(servers, proxy, tmp_path):
    cache = tmp_path / "c.sqlite"
    proxy.on_answer = lambda n: proxy.hold.set() if n >= 5 else None  # later requests wait in the proxy
    cmd = [sys.executable, "-m", "vqa_harness_cli", "run", "--model", _spec(proxy.base_url, servers["yes"].folder),
           "--suite", "vqa-accuracy", "--limit", "6", "--out", str(tmp_path / "runs"), "--cache", str(cache),
           "--no-leaderboard", "--device", "cpu"]
    env = {**os.environ, "TQDM_DISABLE": "1"}
    run = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        # Wait until every answer the proxy delivered is in the cache (each is committed as it
        # arrives) and nothing is on its way to the server; requests after the 5th answer are held.
        while time.monotonic() < deadline and run.poll() is None and not (
                proxy.answered >= 5 and proxy.forwarding == 0 and _cached(cache) == proxy.answered):
            time.sleep(0.1)
        assert run.poll() is None and proxy.answered >= 5 and _cached(cache) == proxy.answered
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait(timeout=30)
    # Requests held when the harness died never reach the server (their client is gone, as
    # with a real crash); the resumed run's go through.
    proxy.on_answer, proxy.drop_held = None, True
    proxy.hold.clear()
    proxy.released.set()
    answered = set(proxy.answered_bodies())
    done = subprocess.run([*cmd, "--resume"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    again = proxy.answered_bodies()[len(answered):]
    assert len(answered) + len(again) == 12 and not answered & set(again)  # none asked twice
    assert _manifest(_only_run(tmp_path))["status"] == "complete"


def test_killed_server_stops_the_run_and_a_restarted_one_finishes_it(servers, tmp_path):
    server = LocalServer(servers["yes"].folder, tmp_path / "serve.log").start().wait_ready()
    proxy = Proxy(f"127.0.0.1:{server.port}")
    proxy.on_answer = lambda n: threading.Thread(target=server.kill).start() if n == 4 else None
    host = PluginHost(blocked=frozenset())
    spec = _spec(proxy.base_url, server.folder, max_retries=1)
    restarted = LocalServer(server.folder, tmp_path / "serve2.log", port=server.port)
    try:
        with pytest.raises(StopRun, match=rf"endpoint {proxy.base_url}: unreachable") as stop:
            run_in_process(host, model=spec, suite="vqa-accuracy", tmp_path=tmp_path, limit=6)
        assert stop.value.exit_code == ExitCode.RESOURCE
        manifest = _manifest(_only_run(tmp_path))
        assert manifest["status"] == "stopped" and manifest["usage"]["requests"] == proxy.answered >= 4
        first = set(proxy.answered_bodies())
        restarted.start().wait_ready()  # the same port: the same endpoint
        out = run_in_process(host, model=spec, suite="vqa-accuracy", tmp_path=tmp_path, limit=6, resume=True)
        assert out.exit_code == 0 and out.rundir.path == _only_run(tmp_path)
        again = proxy.answered_bodies()[len(first):]
        assert len(first) + len(again) == 12 and not first & set(again)
    finally:
        proxy.close()
        server.kill()
        restarted.kill()
