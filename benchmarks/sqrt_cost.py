"""What MCB's correctly rounded square root costs (`runtime.exact_sqrt`, numpy's IEEE root
with torch's backward) against torch's CPU `sqrt` (MKL's vector math), in this process.

    python benchmarks/sqrt_cost.py [--rounds 3] [--epochs 1]

Op: the float64 root of MCB's attention input at the toy sizes (64 questions x 10 regions x
1,024), forward and backward, best of `--rounds` timings of 100 repetitions each. Model:
`mcb` trained on the toy benchmark's balanced train split for `--epochs` epochs (seed 0, one
thread, the weight cache emptied before each fit), alternating torch's root and ours in the
model's module; prints each round's seconds, the median ratio ours / torch's and the load
average before and after. The toy data and weights go to a temporary cache of its own,
removed at exit (benchmarks/swap_cost.py).
"""

from __future__ import annotations

import sys

from swap_cost import compare_training, op_seconds, start  # first: the private cache, the pins

# isort: split
import torch

from vqa_harness_plugins.models import mcb
from vqa_harness_plugins.models.runtime import exact_sqrt


def _torch_sqrt(x: torch.Tensor) -> torch.Tensor:
    return x.sqrt()


def _op_seconds(fn) -> float:
    x = (torch.rand(64, 10, 1024, dtype=torch.float64) + 1e-12).requires_grad_(True)
    return op_seconds(fn, x, torch.randn(64, 10, 1024, dtype=torch.float64), 100)


def _use(fn) -> None:
    mcb.exact_sqrt = fn


def main(argv: list[str] | None = None) -> int:
    args = start(__doc__, argv)
    ours = min(_op_seconds(exact_sqrt) for _ in range(args.rounds))
    theirs = min(_op_seconds(_torch_sqrt) for _ in range(args.rounds))
    print(f"op 64 x 10 x 1024 float64, forward + backward, 100 times: torch {theirs * 1e3:.0f} ms, "
          f"ours {ours * 1e3:.0f} ms, ratio {ours / theirs:.2f}")
    compare_training("mcb", lambda epochs: mcb.MCBModel(epochs=epochs), _use, _torch_sqrt, exact_sqrt, "root",
                     args.rounds, args.epochs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
