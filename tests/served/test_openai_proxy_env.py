"""A machine whose environment sets a proxy (HTTP_PROXY, as on many cluster nodes and
corporate machines) and no NO_PROXY: an endpoint on this machine is still reached directly,
by the `openai` model and by LocalServer's readiness check (a proxy cannot reach loopback)."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from helpers_fake import fake_spec

from harness.errors import ExitCode, StopRun
from harness.host import PluginHost
from harness.testing import run_in_process
from vqa_harness_plugins.models.served.local_server import LocalServer
from vqa_harness_plugins.models.served.routes import is_loopback


@pytest.fixture
def dead_proxy(monkeypatch: pytest.MonkeyPatch) -> str:
    """Every proxy variable set to a port where nothing listens (a refused connection, at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        proxy = f"http://127.0.0.1:{s.getsockname()[1]}"
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, proxy)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    return proxy


def test_a_local_endpoint_is_reached_past_the_environments_proxy(dead_proxy, fake, tmp_path):
    """Before, every request went to the proxy: the run stopped, 'connection refused'."""
    out = run_in_process(PluginHost(blocked=frozenset()), model=fake_spec(fake.base_url, 2), suite="vqa-accuracy",
                         tmp_path=tmp_path, limit=4)
    assert out.exit_code == ExitCode.OK and fake.requests and out.model_calls == len(fake.requests)


def test_local_server_readiness_is_asked_past_the_environments_proxy(dead_proxy, tmp_path: Path):
    """Before, the tests/served session waited 120 s per server and failed: 'did not start'."""
    class Health(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        (tmp_path / "serve.log").write_text("")
        LocalServer(tmp_path, tmp_path / "serve.log", port=server.server_address[1]).wait_ready(seconds=10)
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:8000/v1", True), ("http://127.9.0.1/v1", True), ("http://localhost:8000/v1", True),
    ("http://[::1]:8000/v1", True), ("http://LOCALHOST/v1", True), ("http://0.0.0.0:8000/v1", True),
    ("http://[::ffff:127.0.0.1]:8000/v1", True), ("http://10.0.0.7:8000/v1", False),
    ("https://api.example.com/v1", False), ("http://node17:8000/v1", False), ("http://localhost.evil.com/v1", False),
])
def test_which_endpoints_are_this_machine(url: str, local: bool) -> None:
    assert is_loopback(url) is local


def test_a_run_stopped_through_a_proxy_says_which_variable_routes_it(dead_proxy, tmp_path):
    """A server on the user's network (not this machine) behind the environment's proxy: the
    stop said only 'is the server healthy?', though the server was never asked."""
    spec = fake_spec("http://node17.invalid:8000/v1", 1)
    with pytest.raises(StopRun) as stop:
        run_in_process(PluginHost(blocked=frozenset()), model=spec, suite="vqa-accuracy", tmp_path=tmp_path, limit=6)
    message = str(stop.value)
    assert stop.value.exit_code == ExitCode.RESOURCE and "\n" not in message
    assert "The environment sets a proxy ($http_proxy)" in message and "set NO_PROXY=node17.invalid" in message
    assert dead_proxy.rsplit(":", 1)[1] not in message, message


def test_no_proxy_hint_where_no_proxy_applies(monkeypatch):
    from vqa_harness_plugins.models.served.routes import proxy_hint

    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert proxy_hint("http://node17:8000/v1") == ""
    monkeypatch.setenv("HTTPS_PROXY", "http://user:secret@proxy:3128")
    assert proxy_hint("http://node17:8000/v1") == ""  # an http:// endpoint: HTTPS_PROXY does not route it
    hint = proxy_hint("https://node17:8000/v1")
    assert "HTTPS_PROXY" in hint and "secret" not in hint
    monkeypatch.setenv("NO_PROXY", "node17")
    assert proxy_hint("https://node17:8000/v1") == ""
    assert proxy_hint("http://127.0.0.1:8000/v1") == ""  # this machine: never proxied
