"""Served-model overhead: the `openai` model vs a plain async `openai` client, same server.

    python benchmarks/served_overhead.py [--n 96] [--concurrency 8] [--rounds 3]

Starts `transformers serve` on a free localhost port with a tiny random LLaVA (no download;
both from `vqa_harness_plugins.models.served.local_server`, as the tests do), then sends the same `--n` toy questions (`answer` requests: image data URL + the
task prompt, as `hf-vlm` words it) three ways, alternating, `--rounds` times:

- plain: `openai.AsyncOpenAI`, an asyncio.Semaphore of `--concurrency`, no cache, no retries
  wrapper; it reads and encodes each image once, as the plugin does;
- harness: the `openai` model through the harness Predictor (prediction cache in a fresh SQLite
  file, one commit per answer, usage accounting, retry logic), the same concurrency;
- warm re-run: the harness again on the same cache: it must send 0 requests.

Prints both rates, the ratio harness / plain per round and its median (goal >= 0.9), and the
warm re-run's request count. The server is the bottleneck on purpose: the ratio measures
what the plugin adds on top of the client. Run `uptime` alongside: load changes both sides.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from openai import AsyncOpenAI

from harness.cache.predictions import PredictionCache
from harness.data.session import Session
from harness.host import PluginHost
from harness.run.predictor import Predictor
from vqa_harness_plugins.models.hf.prompts import build_prompt, task_of
from vqa_harness_plugins.models.served import OpenAIModel
from vqa_harness_plugins.models.served.local_server import LocalServer, tiny_llava
from vqa_harness_plugins.models.served.messages import (
    clear_image_cache,
    image_data_url,
    user_message,
)


def _examples(n: int) -> list:
    session = Session(PluginHost(blocked=frozenset()), data_dir=None, limit=None)
    found = list(session.load("toyvqa:variant=balanced", "val"))
    return [found[i % len(found)].with_(id=f"q{i}", question=f"{found[i % len(found)].question} ({i})")
            for i in range(n)]


def _request(ex, settings: dict) -> dict:
    """The request the plugin sends for `answer` (the same builders, no cache, no retries)."""

    kind = task_of(ex.question, dict(ex.meta), tuple(ex.choices))
    params = {"model": settings["model"], "messages": user_message(image_data_url(ex.image), build_prompt(kind, ex.question)),
              "max_tokens": settings["max_tokens"], "temperature": 0.0, "top_p": 1.0}
    if kind in ("yes/no", "entailment"):
        params.update(logprobs=True, top_logprobs=20)
    return params


async def _plain(base_url: str, examples: list, settings: dict, concurrency: int) -> float:
    clear_image_cache()
    client = AsyncOpenAI(base_url=base_url, api_key="EMPTY", max_retries=0, timeout=120)
    gate = asyncio.Semaphore(concurrency)

    async def one(ex) -> str:
        async with gate:
            response = await client.chat.completions.create(**_request(ex, settings))
            return response.choices[0].message.content or ""

    start = time.perf_counter()
    answers = await asyncio.gather(*(one(ex) for ex in examples))
    seconds = time.perf_counter() - start
    await client.close()
    assert len(answers) == len(examples)
    return seconds


def _harness(spec_options: dict, examples: list, cache_path: Path) -> tuple[float, dict]:
    clear_image_cache()
    model = OpenAIModel(**spec_options)
    model.setup("cpu")
    cache = PredictionCache(cache_path)
    runner = Predictor(model, cache=cache, batch_size=32, progress=False)
    start = time.perf_counter()
    preds = runner.predict(examples, "answer")
    seconds = time.perf_counter() - start
    cache.close()
    assert all(p.ok for p in preds), [p.error for p in preds if not p.ok][:3]
    return seconds, dict(model.usage())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=96, help="questions per round")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=10)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = tiny_llava(root / "llava", "yes")
        server = LocalServer(folder, root / "serve.log").start().wait_ready()
        try:
            examples = _examples(args.n)
            settings = {"model": str(folder), "max_tokens": args.max_tokens}
            options = {"base_url": server.base_url, "model": str(folder), "concurrency": args.concurrency,
                       "max_tokens": args.max_tokens}
            # Warm-up, both ways (the server's first requests and the client's imports are slow).
            asyncio.run(_plain(server.base_url, examples, settings, args.concurrency))
            _harness(options, examples, root / "warm-up.sqlite")
            ratios, plain_rates, harness_rates = [], [], []
            for r in range(args.rounds):
                plain = asyncio.run(_plain(server.base_url, examples, settings, args.concurrency))
                seconds, usage = _harness(options, examples, root / f"cache{r}.sqlite")
                assert usage["requests"] == args.n, usage
                plain_rates.append(args.n / plain)
                harness_rates.append(args.n / seconds)
                ratios.append(plain / seconds)
                print(f"round {r + 1}: plain {args.n / plain:6.1f} req/s, harness {args.n / seconds:6.1f} req/s, "
                      f"ratio {plain / seconds:.3f}")
            _, warm = _harness(options, examples, root / f"cache{args.rounds - 1}.sqlite")
        finally:
            server.kill()
    print(f"tiny LLaVA on transformers serve (CPU), {args.n} questions, concurrency {args.concurrency}, "
          f"max_tokens {args.max_tokens}")
    print(f"plain async openai client: median {statistics.median(plain_rates):.1f} requests/s")
    print(f"harness `openai` model:    median {statistics.median(harness_rates):.1f} requests/s")
    print(f"ratio harness / plain: median {statistics.median(ratios):.3f} (rounds: "
          f"{', '.join(f'{x:.3f}' for x in ratios)}; goal >= 0.9)")
    print(f"warm re-run: {warm['attempts']} requests sent (goal 0)")


if __name__ == "__main__":
    main()
