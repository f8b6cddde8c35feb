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
removed at exit (benchmarks/swap_cost.py).
"""

from __future__ import annotations

import sys

from swap_cost import compare_training, op_seconds, start  # first: the private cache, the pins

# isort: split
import torch

from vqa_harness_plugins.models import coattention, grid_base
from vqa_harness_plugins.models.softmax import softmax_lastdim


def _torch_softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


def _op_seconds(fn, b: int, n: int, reps: int = 200) -> float:
    return op_seconds(fn, torch.randn(b, n, requires_grad=True), torch.randn(b, n), reps)


def _use(fn) -> None:
    coattention.softmax_lastdim = fn
    grid_base.softmax_lastdim = fn


def main(argv: list[str] | None = None) -> int:
    args = start(__doc__, argv)
    for b, n in ((128, 10), (128, 12), (128, 50)):
        ours = min(_op_seconds(softmax_lastdim, b, n) for _ in range(args.rounds))
        theirs = min(_op_seconds(_torch_softmax, b, n) for _ in range(args.rounds))
        print(f"op {b} x {n}, forward + backward, 200 times: torch {theirs * 1e3:.1f} ms, ours {ours * 1e3:.1f} ms, "
              f"ratio {ours / theirs:.2f}")
    compare_training("hiecoatt", lambda epochs: coattention.HieCoAttModel(epochs=epochs), _use, _torch_softmax,
                     softmax_lastdim, "softmax", args.rounds, args.epochs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
