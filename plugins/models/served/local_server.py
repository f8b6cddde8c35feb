"""A real OpenAI-compatible server on localhost, for testing and benchmarking the `openai`
model without a GPU or a download: `transformers serve` running a tiny random LLaVA that this
module builds (it always writes one chosen word).

    folder = tiny_llava(Path("/tmp/llava"), says="yes")
    server = LocalServer(folder, Path("/tmp/serve.log")).start().wait_ready()
    ...  # openai:base_url=<server.base_url>,model=<folder>
    server.kill()

Needs the `hf` extra and `transformers serve`'s own dependencies (`transformers[serving]`,
part of the `test` extra). Used by tests/served/ and benchmarks/served_overhead.py.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

__all__ = ["LocalServer", "tiny_llava", "free_port", "CHAT_TEMPLATE", "WORDS"]

#: A plain chat template: "USER: <image> text ASSISTANT:".
CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'].upper() }}: {% for c in m['content'] %}{% if c['type'] == 'image' %}"
    "<image> {% else %}{{ c['text'] }}{% endif %}{% endfor %} {% endfor %}{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)
#: The words the tiny model's tokenizer knows (the toy questions' words, answers, letters).
WORDS = ["what", "color", "is", "the", "how", "many", "are", "there", "?", "a", "of", "shape", "in", "image",
         "yes", "no", "red", "blue", "green", "circle", "square", "A", "B", "C", "D", "answer", "because"]


#: Opens URLs without the environment's proxy (HTTP_PROXY): a proxy cannot reach this machine's loopback.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port() -> int:
    """A TCP port free on localhost right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tiny_llava(folder: Path, says: str) -> Path:
    """A 2-layer LLaVA saved into `folder` that always writes `says`: the word is the
    vocabulary's first token and the final norm is zeroed, so every logit is 0 and greedy
    decoding picks token 0. Random weights, built from configs (nothing is downloaded)."""
    try:
        # optional (the hf extra) and heavy (seconds to import): only building the model needs them
        import torch

        # optional (the hf extra), as above
        from tokenizers import Tokenizer, models, pre_tokenizers

        # optional (the hf extra), as above
        from transformers import (
            CLIPImageProcessor,
            CLIPVisionConfig,
            LlamaConfig,
            LlavaConfig,
            LlavaForConditionalGeneration,
            LlavaProcessor,
            PreTrainedTokenizerFast,
        )
    except ImportError as exc:
        raise RuntimeError(f"tiny_llava needs the hf extra (pip install 'vqa-harness[hf]'): {exc}") from None

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


class LocalServer:
    """`transformers serve FOLDER` on a free localhost port (or `port`), CPU only, offline,
    in its own process group (so `kill` ends it and its children as a crash would)."""

    def __init__(self, folder: Path, log: Path, port: int | None = None) -> None:
        self.folder, self.log, self.port = folder, log, port or free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LocalServer:
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1", "TQDM_DISABLE": "1"}
        cli = Path(sys.executable).with_name("transformers")
        cmd = [str(cli), "serve", str(self.folder), "--host", "127.0.0.1", "--port", str(self.port),
               "--device", "cpu", "--log-level", "warning"]
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        return self

    def wait_ready(self, seconds: float = 120.0) -> LocalServer:
        """Wait until GET /health answers; RuntimeError with the log's tail if it never does."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"transformers serve exited: {self.log.read_text()[-2000:]}")
            try:
                with _DIRECT.open(f"http://127.0.0.1:{self.port}/health", timeout=1):
                    return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"transformers serve did not start within {seconds} s: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL the server (no clean shutdown: as a crash would)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
