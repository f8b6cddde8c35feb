"""A small OpenAI-compatible HTTP server for the tests that need a server to answer in ways
`transformers serve` does not: token counts of its choosing, no `usage`, 4xx for a refused
parameter, malformed log-probabilities. The tests say how it answers (`reply`); it records
every chat request it gets (the parsed body, the prompt text, the image's size).
"""

from __future__ import annotations

import base64
import io
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

from PIL import Image

from harness.types import Example

MODEL = "fake-vlm"
#: The fingerprint of `openai:base_url=...,model=m` with every other option at its default: options
#: added since leave it as it is. It changes only with what is meant to re-ask every cached
#: prediction: a prompt, or the answer-reading PROTOCOL (model.py): 56861548... under 3
#: (commit 740cb98), this under 4 (commit ab5540e).
DEFAULT_FINGERPRINT = "b61485c062ba816915c3c0da8b97fc76"


@dataclass(frozen=True)
class Request:
    """One chat request: its JSON body, the user text and the image's (width, height)."""

    body: dict
    text: str
    size: tuple[int, int]

    @property
    def pixels(self) -> int:
        return self.size[0] * self.size[1]


def completion(content: str = "yes", prompt_tokens: int | None = 10, completion_tokens: int = 1,
               logprobs: Any = None) -> dict:
    """A chat.completion body; `prompt_tokens=None` leaves out `usage` entirely."""
    body: dict[str, Any] = {
        "id": "cmpl-1", "object": "chat.completion", "created": 0, "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop",
                     "logprobs": logprobs}],
    }
    if prompt_tokens is not None:
        body["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                         "total_tokens": prompt_tokens + completion_tokens}
    return body


def _parse(body: dict) -> Request:
    text, size = "", (0, 0)
    for part in body["messages"][0]["content"]:
        if part["type"] == "text":
            text = part["text"]
        elif part["type"] == "image_url":
            data = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
            with Image.open(io.BytesIO(data)) as im:
                size = im.size
    return Request(body, text, size)


@dataclass
class FakeOpenAI:
    """`reply(request, n)` -> (status, body dict, or the raw bytes sent) for the n-th chat request (from 1)."""

    reply: Callable[[Request, int], tuple[int, dict]] = lambda request, n: (200, completion())
    requests: list[Request] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                if self.path.endswith("/models"):
                    return self._send(200, {"object": "list", "data": [
                        {"id": MODEL, "object": "model", "created": 0, "owned_by": "tests"}]})
                self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                request = _parse(body)
                with fake.lock:
                    fake.requests.append(request)
                    n = len(fake.requests)
                status, payload = fake.reply(request, n)
                self._send(status, payload)

            def _send(self, status: int, payload: dict | bytes) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                try:
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout, a stop)
                    pass  # nothing to answer; socketserver would print a traceback amid the test output

        return Handler


def fake_spec(base_url: str, default_concurrency: int, /, **extra) -> str:
    """An `openai` model spec against a FakeOpenAI: no retries, two tokens, `extra` on top."""
    options = {"base_url": base_url, "model": MODEL, "concurrency": default_concurrency, "max_tokens": 2,
               "max_retries": 0, **extra}
    return "openai:" + ",".join(f"{k}={v}" for k, v in options.items())


def only_manifest(tmp_path: Path) -> dict:
    """The manifest of the one run folder under tmp_path/runs."""
    (run_dir,) = list((tmp_path / "runs").iterdir())
    return json.loads((run_dir / "manifest.json").read_text())


def task_examples(tmp_path: Path) -> list[Example]:
    """One example per prompt task, on one red image: an open question, a yes/no question and
    an entailment hypothesis (e-SNLI-VE's labels as choices)."""
    path = tmp_path / "im.png"
    Image.new("RGB", (16, 16), (200, 10, 10)).save(path)
    return [Example(id=f"q{i}", question=q, image=str(path), **extra) for i, (q, extra) in enumerate([
        ("What color is the car?", {}), ("Is there a dog?", {}),
        ("Two dogs play.", {"choices": ("entailment", "neutral", "contradiction")})])]
