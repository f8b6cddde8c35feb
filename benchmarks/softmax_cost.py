"""What the attention models' torch-independent softmax costs (plugins/models/softmax.py):
its forward + backward against `torch.softmax`'s at the toy models' shapes, and `hiecoatt`'s
training time with either, in this process.

    python benchmarks/softmax_cost.py [--rounds 3] [--epochs 1]

Op: B x n logits (n = 10 regions with the sentinel, 12 and 50 words), forward and backward,
best of `--rounds` timings of 200 repetitions each, alternating. Model: `hiecoatt` trained on
the toy benchmark's balanced train split for `--epochs` epochs (seed 0, one thread, the
weight cache emptied before each fit), alternating torch's softmax and ours in the model's
module; prints each round's seconds and the median ratio ours / torch's, and the load
average before and after. The toy data and weights go to a temporary cache of its own,
removed at exit.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import statistics
import sys
import tempfile
import time

# A cache of its own, removed at exit: each fit empties the models cache, which must never be
# a user's own VQA_HARNESS_CACHE.
_CACHE = tempfile.mkdtemp(prefix="softmax-cost-")
os.environ["VQA_HARNESS_CACHE"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

import harness  # noqa: E402,F401,I001  (the numerics pins, before torch loads)
import torch  # noqa: E402

from harness.paths import cache_dir  # noqa: E402
from vqa_harness_plugins.datasets.toyvqa import ToyVQA  # noqa: E402
from vqa_harness_plugins.models import coattention, grid_base  # noqa: E402
from vqa_harness_plugins.models.softmax import softmax_lastdim  # noqa: E402


def _torch_softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


def _op_seconds(fn, b: int, n: int, reps: int = 200) -> float:
    x = torch.randn(b, n, requires_grad=True)
    g = torch.randn(b, n)
    start = time.perf_counter()
    for _ in range(reps):
        fn(x).backward(g)
    return time.perf_counter() - start


def _use(fn) -> None:
    coattention.softmax_lastdim = fn
    grid_base.softmax_lastdim = fn


def _fit_seconds(train: list, epochs: int) -> float:
    shutil.rmtree(cache_dir("models"), ignore_errors=True)
    model = coattention.HieCoAttModel(epochs=epochs)
    start = time.perf_counter()
    model.fit(train, seed=0)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, {torch.backends.cpu.get_cpu_capability()}; load before: {os.getloadavg()}")
    for b, n in ((128, 10), (128, 12), (128, 50)):
        ours = min(_op_seconds(softmax_lastdim, b, n) for _ in range(args.rounds))
        theirs = min(_op_seconds(_torch_softmax, b, n) for _ in range(args.rounds))
        print(f"op {b} x {n}, forward + backward, 200 times: torch {theirs * 1e3:.1f} ms, ours {ours * 1e3:.1f} ms, "
              f"ratio {ours / theirs:.2f}")
    train = list(ToyVQA(variant="balanced", seed=0).examples("train"))
    _use(softmax_lastdim)
    _fit_seconds(train[:200], 1)  # features and vocabulary warm; not timed
    ratios = []
    for r in range(args.rounds):
        _use(_torch_softmax)
        theirs = _fit_seconds(train, args.epochs)
        _use(softmax_lastdim)
        ours = _fit_seconds(train, args.epochs)
        ratios.append(ours / theirs)
        print(f"round {r + 1}: hiecoatt {args.epochs} epoch(s) on {len(train)} questions: torch's softmax "
              f"{theirs:.1f} s, ours {ours:.1f} s, ratio {ratios[-1]:.2f}")
    print(f"median ratio ours / torch's: {statistics.median(ratios):.2f}; load after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
