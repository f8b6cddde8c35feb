"""A real `transformers serve` on localhost with tiny local VLMs, and a small HTTP proxy in
front of it that counts, holds or fails requests (429/503, dropped connections) on cue.

Nothing here is a mock of the endpoint: every answer comes from `transformers serve`
running a checkpoint the tests build; the proxy only forwards bytes, or answers with an
error status where a test tells it to.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'].upper() }}: {% for c in m['content'] %}{% if c['type'] == 'image' %}"
    "<image> {% else %}{{ c['text'] }}{% endif %}{% endfor %} {% endfor %}{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)
WORDS = ["what", "color", "is", "the", "how", "many", "are", "there", "?", "a", "of", "shape", "in", "image",
         "yes", "no", "red", "blue", "green", "circle", "square", "A", "B", "C", "D", "answer", "because"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_llava(folder: Path, says: str) -> Path:
    """A 2-layer LLaVA that always writes `says`: the word is the vocabulary's first token and
    the final norm is zeroed, so every logit is 0 and greedy decoding picks token 0."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import (
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
        PreTrainedTokenizerFast,
    )

    torch.manual_seed(0)
    words = [says, "<pad>", "<unk>", "<s>", "</s>", "<image>", "USER", ":", "ASSISTANT", ".",
             *[w for w in WORDS if w != says]]
    ids = {w: i for i, w in enumerate(words)}
    backend = Tokenizer(models.WordLevel(ids, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>", pad_token="<pad>", bos_token="<s>",
                                        eos_token="</s>", extra_special_tokens={"image_token": "<image>"})
    ip = CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    LlavaProcessor(image_processor=ip, tokenizer=tokenizer, patch_size=16, vision_feature_select_strategy="default",
                   chat_template=CHAT_TEMPLATE, num_additional_image_tokens=1).save_pretrained(folder)
    vision = CLIPVisionConfig(hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=2,
                              image_size=32, patch_size=16, projection_dim=32)
    text = LlamaConfig(vocab_size=len(words), hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                       num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=256,
                       pad_token_id=ids["<pad>"], bos_token_id=ids["<s>"], eos_token_id=ids["</s>"])
    config = LlavaConfig(vision_config=vision, text_config=text, image_token_index=ids["<image>"],
                         vision_feature_layer=-1, vision_feature_select_strategy="default")
    net = LlavaForConditionalGeneration(config).eval()
    with torch.no_grad():
        net.model.language_model.norm.weight.zero_()
    net.save_pretrained(folder)
    return folder


class Server:
    """`transformers serve FOLDER` on a free localhost port (the model pinned), CPU only."""

    def __init__(self, folder: Path, log: Path, port: int | None = None) -> None:
        self.folder, self.log, self.port = folder, log, port or free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "Server":
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1", "TQDM_DISABLE": "1"}
        cli = Path(sys.executable).with_name("transformers")
        cmd = [str(cli), "serve", str(self.folder), "--host", "127.0.0.1", "--port", str(self.port),
               "--device", "cpu", "--log-level", "warning"]
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        return self

    def wait_ready(self, seconds: float = 120.0) -> "Server":
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"transformers serve exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1):
                    return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"transformers serve did not start within {seconds} s: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL the server (no clean shutdown: as a crash would)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)


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
    forwarding chat requests until cleared. A dead upstream drops the client's connection."""

    upstream: str
    script: list = field(default_factory=list)
    on_answer: Callable[[int], None] | None = None
    seen: list[Seen] = field(default_factory=list)
    hold: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)

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
                        proxy.released.wait(120)  # held until the test lets go (or the client dies)
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
