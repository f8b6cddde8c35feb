"""What machine-independent numerics cost: cnn-lstm training time with the current numerics
vs the previous ones (issue 27; docs/models.md, "Machine-independent numerics").

    python benchmarks/numerics_cost.py [--epochs 2] [--rounds 3]

Each round trains `cnn-lstm` on the toy benchmark's balanced train split for `--epochs`
epochs twice, in fresh processes (MKL reads its branch when it starts):
`scripts/numerics_fingerprint.py --previous` (MKL_CBWR=AVX2,STRICT, torch's oneDNN/NNPACK
kernels, per-tensor Adam) and the current numerics (MKL_CBWR=COMPATIBLE, im2col
convolutions, fused Adam). Prints each round's training seconds, the median ratio
current / previous and the load average before and after. The toy data is generated
once into VQA_HARNESS_CACHE (or a temporary folder) before the first round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "numerics_fingerprint.py"


def _train(epochs: int, previous: bool, env: dict[str, str]) -> dict:
    args = [sys.executable, str(SCRIPT), "--epochs", str(epochs)] + (["--previous"] if previous else [])
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])["training"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    env = dict(os.environ)
    env.setdefault("VQA_HARNESS_CACHE", tempfile.mkdtemp(prefix="numerics-cost-"))
    env.pop("MKL_CBWR", None)  # each side sets its own
    print("load before:", os.getloadavg())
    _train(1, False, env)  # generates the toy data; not timed
    ratios = []
    for r in range(args.rounds):
        before, now = _train(args.epochs, True, env), _train(args.epochs, False, env)
        ratios.append(now["train_seconds"] / before["train_seconds"])
        print(f"round {r + 1}: previous {before['train_seconds']:.1f} s, current {now['train_seconds']:.1f} s, "
              f"ratio {ratios[-1]:.2f}")
    print(f"median ratio current / previous: {statistics.median(ratios):.2f} ({args.epochs} epochs, "
          f"{args.rounds} rounds)")
    print("load after:", os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
