"""A small HTTP proxy in front of a real `transformers serve` (started by
`vqa_harness_plugins.models.served.local_server`) that counts, holds or fails requests
(429/503, dropped connections) on cue.

Nothing here is a mock of the endpoint: every answer comes from `transformers serve`
running a checkpoint the tests build; the proxy only forwards bytes, or answers with an
error status where a test tells it to.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


@dataclass
class Seen:
    """One request the proxy saw: when, the body's hash, the status returned."""

    at: float
    body: str
    status: int


@dataclass
class Proxy:
    """Forwards localhost HTTP to `upstream` (host:port). `script` gives, per chat request in
    arrival order, a status to answer instead ((429, {"Retry-After": "1"})) or None to forward.
    `on_answer(count)` is called after each forwarded 200; `hold` (an Event, when set) stops
    forwarding chat requests until `released` is set (then they go on, or are dropped when
    `drop_held`). A dead upstream drops the client's connection."""

    upstream: str
    script: list = field(default_factory=list)
    on_answer: Callable[[int], None] | None = None
    seen: list[Seen] = field(default_factory=list)
    hold: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)
    #: When `released` is set: drop the held requests (their client died) instead of forwarding them.
    drop_held: bool = False

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.answered = 0
        self.forwarding = 0  # requests being forwarded to the upstream right now
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answered_bodies(self) -> list[str]:
        with self.lock:
            return [s.body for s in self.seen if s.status == 200]

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                self._forward(b"")

            def do_POST(self) -> None:
                self._forward(self.rfile.read(int(self.headers.get("Content-Length", 0))))

            def _forward(self, body: bytes) -> None:
                chat = self.path.endswith("/chat/completions")
                digest = hashlib.sha256(body).hexdigest()[:16]
                if chat:
                    with proxy.lock:
                        scripted = proxy.script.pop(0) if proxy.script else None
                    if scripted is not None:
                        status, headers = scripted
                        self._record(digest, status)
                        return self._reply(status, json.dumps({"error": {"message": f"scripted {status}"}}).encode(),
                                           headers)
                    if proxy.hold.is_set():
                        proxy.released.wait(120)  # held until the test lets go
                        if proxy.drop_held:  # the client that sent it is gone: it never reaches the server
                            self.close_connection = True
                            return
                with proxy.lock:
                    proxy.forwarding += 1
                try:
                    conn = http.client.HTTPConnection(proxy.upstream, timeout=60)
                    conn.request(self.command, self.path, body=body or None,
                                 headers={"Content-Type": "application/json"})
                    resp = conn.getresponse()
                    data, status = resp.read(), resp.status
                    conn.close()
                except OSError:  # the server is gone: drop the client's connection, as it would see
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                finally:
                    with proxy.lock:
                        proxy.forwarding -= 1
                if chat:
                    self._record(digest, status)
                if chat and status == 200:
                    with proxy.lock:
                        proxy.answered += 1
                        count = proxy.answered
                    if proxy.on_answer is not None:  # before the reply: the client has not seen it yet
                        proxy.on_answer(count)
                self._reply(status, data, {})

            def _record(self, digest: str, status: int) -> None:
                with proxy.lock:
                    proxy.seen.append(Seen(time.monotonic(), digest, status))

            def _reply(self, status: int, data: bytes, headers: dict) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        return Handler
