"""What replacing one op inside a toy model costs, measured in one process: the op alone and
the model's training with either op, alternating (benchmarks/softmax_cost.py,
benchmarks/sqrt_cost.py).

Importing it gives the process a cache of its own, removed at exit, before the harness loads:
each timed fit empties the models cache, which must never be a user's own VQA_HARNESS_CACHE.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import statistics
import tempfile
import time
from typing import Any, Callable

_CACHE = tempfile.mkdtemp(prefix="swap-cost-")
os.environ["VQA_HARNESS_CACHE"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

import harness  # noqa: E402,F401,I001  (the numerics pins, before torch loads)
import torch  # noqa: E402

from harness.paths import cache_dir  # noqa: E402
from vqa_harness_plugins.datasets.toyvqa import ToyVQA  # noqa: E402


def start(doc: str, argv: list[str] | None) -> argparse.Namespace:
    """The command line (`--rounds`, `--epochs`); then one torch thread, as training uses, and
    torch's version, ISA and the load printed."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, {torch.backends.cpu.get_cpu_capability()}; load before: {os.getloadavg()}")
    return args


def op_seconds(fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, g: torch.Tensor, reps: int) -> float:
    """Seconds for `reps` forward + backward passes of `fn` on `x` (requires grad), gradient `g`."""
    began = time.perf_counter()
    for _ in range(reps):
        fn(x).backward(g)
    return time.perf_counter() - began


def _fit_seconds(make_model: Callable[[int], Any], train: list, epochs: int) -> float:
    shutil.rmtree(cache_dir("models"), ignore_errors=True)
    model = make_model(epochs)
    began = time.perf_counter()
    model.fit(train, seed=0)
    return time.perf_counter() - began


def compare_training(model: str, make_model: Callable[[int], Any], use: Callable[[Any], None], theirs: Any,
                     ours: Any, what: str, rounds: int, epochs: int) -> None:
    """Train `make_model(epochs)` on the toy benchmark's balanced train split (seed 0), `use`-ing
    torch's op (`theirs`) and ours in turn, `rounds` times; prints each round and the median
    ratio ours / torch's, and the load after."""
    train = list(ToyVQA(variant="balanced", seed=0).examples("train"))
    use(ours)
    _fit_seconds(make_model, train[:200], 1)  # features and vocabulary warm; not timed
    ratios = []
    for r in range(rounds):
        use(theirs)
        torch_s = _fit_seconds(make_model, train, epochs)
        use(ours)
        ours_s = _fit_seconds(make_model, train, epochs)
        ratios.append(ours_s / torch_s)
        print(f"round {r + 1}: {model} {epochs} epoch(s) on {len(train)} questions: torch's {what} "
              f"{torch_s:.1f} s, ours {ours_s:.1f} s, ratio {ratios[-1]:.2f}")
    print(f"median ratio ours / torch's: {statistics.median(ratios):.2f}; load after: {os.getloadavg()}")
