"""What MCB's correctly rounded square root costs (`runtime.exact_sqrt`, numpy's IEEE root
with torch's backward) against torch's CPU `sqrt` (MKL's vector math), in this process.

    python benchmarks/sqrt_cost.py [--rounds 3] [--epochs 1]

Op: the float64 root of MCB's attention input at the toy sizes (64 questions x 10 regions x
1,024), forward and backward, best of `--rounds` timings of 100 repetitions each. Model:
`mcb` trained on the toy benchmark's balanced train split for `--epochs` epochs (seed 0, one
thread, the weight cache emptied before each fit), alternating torch's root and ours in the
model's module; prints each round's seconds, the median ratio ours / torch's and the load
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
_CACHE = tempfile.mkdtemp(prefix="sqrt-cost-")
os.environ["VQA_HARNESS_CACHE"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

import harness  # noqa: E402,F401,I001  (the numerics pins, before torch loads)
import torch  # noqa: E402

from harness.paths import cache_dir  # noqa: E402
from vqa_harness_plugins.datasets.toyvqa import ToyVQA  # noqa: E402
from vqa_harness_plugins.models import mcb  # noqa: E402
from vqa_harness_plugins.models.runtime import exact_sqrt  # noqa: E402


def _torch_sqrt(x: torch.Tensor) -> torch.Tensor:
    return x.sqrt()


def _op_seconds(fn, reps: int = 100) -> float:
    x = (torch.rand(64, 10, 1024, dtype=torch.float64) + 1e-12).requires_grad_(True)
    g = torch.randn(64, 10, 1024, dtype=torch.float64)
    start = time.perf_counter()
    for _ in range(reps):
        fn(x).backward(g)
    return time.perf_counter() - start


def _fit_seconds(train: list, epochs: int) -> float:
    shutil.rmtree(cache_dir("models"), ignore_errors=True)
    model = mcb.MCBModel(epochs=epochs)
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
    ours = min(_op_seconds(exact_sqrt) for _ in range(args.rounds))
    theirs = min(_op_seconds(_torch_sqrt) for _ in range(args.rounds))
    print(f"op 64 x 10 x 1024 float64, forward + backward, 100 times: torch {theirs * 1e3:.0f} ms, "
          f"ours {ours * 1e3:.0f} ms, ratio {ours / theirs:.2f}")
    train = list(ToyVQA(variant="balanced", seed=0).examples("train"))
    mcb.exact_sqrt = exact_sqrt
    _fit_seconds(train[:200], 1)  # features and vocabulary warm; not timed
    ratios = []
    for r in range(args.rounds):
        mcb.exact_sqrt = _torch_sqrt
        theirs = _fit_seconds(train, args.epochs)
        mcb.exact_sqrt = exact_sqrt
        ours = _fit_seconds(train, args.epochs)
        ratios.append(ours / theirs)
        print(f"round {r + 1}: mcb {args.epochs} epoch(s) on {len(train)} questions: torch's root "
              f"{theirs:.1f} s, ours {ours:.1f} s, ratio {ratios[-1]:.2f}")
    print(f"median ratio ours / torch's: {statistics.median(ratios):.2f}; load after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
