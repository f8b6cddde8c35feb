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

from harness.errors import ExitCode
from harness.host import PluginHost
from harness.testing import run_in_process
from vqa_harness_plugins.models.served.local_server import LocalServer
from vqa_harness_plugins.models.served.routes import is_loopback


@pytest.fixture
def dead_proxy(monkeypatch: pytest.MonkeyPatch) -> str:
    """Every proxy variable set to a port where nothing listens (a refused connection, at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.2", 0))
        proxy = f"http://127.0.0.2:{s.getsockname()[1]}"
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
    ("http://[::1]:8000/v1", True), ("http://LOCALHOST/v1", True), ("http://10.0.0.7:8000/v1", False),
    ("https://api.example.com/v1", False), ("http://node17:8000/v1", False), ("http://localhost.evil.com/v1", False),
])
def test_which_endpoints_are_this_machine(url: str, local: bool) -> None:
    assert is_loopback(url) is local
