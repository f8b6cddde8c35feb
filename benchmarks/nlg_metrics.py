"""Benchmark: the e-ViL metric bundle (vqa_harness_plugins.metrics.nlg) on 15,000 explanation pairs.

    python benchmarks/nlg_metrics.py [--n 15000] [--cores 2] [--baseline-sample 20]

Pairs: real e-SNLI-VE dev explanations (candidate = the explanation of another example with
the same label, reference = the example's own), topped up with VQA-X val (3 references);
seeded synthetic sentences when ../shared/data is absent. The process (and the Java
processes it starts) is pinned to `--cores` CPUs; torch uses as many threads.

Prints the time of each metric, counts the Java processes the bundle starts (PTB
tokenization and METEOR must be one each, whatever N), and compares in the same process
with the straightforward way: one METEOR Java process per example (timed on a small
sample and extrapolated per pair) and per-example PTB tokenization.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from vqa_harness_plugins.datasets.e_vil.loaders import read_esnlive, read_vqax
from vqa_harness_plugins.metrics.evil_score import e_vil_score
from vqa_harness_plugins.metrics.nlg import nlg_scores, ptb_tokenize

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def make_pairs(n: int, seed: int) -> tuple[list[str], list[list[str]]]:
    """`n` (candidate, references) pairs from the real files, or synthetic ones."""
    rng = random.Random(seed)
    cands: list[str] = []
    refs: list[list[str]] = []
    csv_path = SHARED / "esnlive" / "esnlive_dev.csv"
    if csv_path.is_file():

        dev = read_esnlive(csv_path, None)
        by_label: dict[str, list[str]] = {}
        for ex in dev:
            by_label.setdefault(ex.label, []).append(ex.explanations[0])
        for ex in dev:
            cands.append(rng.choice(by_label[ex.label]))
            refs.append([ex.explanations[0]])
        vqax = SHARED / "vqax" / "vqaX_val.json"
        if vqax.is_file():
            for ex in read_vqax(vqax, None):
                cands.append(ex.explanations[0])
                refs.append(list(ex.explanations[1:]))
    words = "a man woman dog is are the on in with playing riding red blue street park because not".split()
    while len(cands) < n:
        cands.append(" ".join(rng.choice(words) for _ in range(rng.randint(4, 14))))
        refs.append([" ".join(rng.choice(words) for _ in range(rng.randint(4, 14)))])
    order = list(range(len(cands)))
    rng.shuffle(order)
    order = order[:n]
    return [cands[i] for i in order], [refs[i] for i in order]


class JavaCounter:
    """Counts `java` processes started through subprocess.Popen (PTB, METEOR, SPICE)."""

    def __init__(self) -> None:
        self.count = 0
        self._orig = subprocess.Popen.__init__

    def __enter__(self) -> "JavaCounter":
        counter, orig = self, self._orig

        def init(popen, args, *a, **kw):
            first = args[0] if isinstance(args, (list, tuple)) else str(args).split()[0]
            if os.path.basename(str(first)) == "java":
                counter.count += 1
            orig(popen, args, *a, **kw)

        subprocess.Popen.__init__ = init  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc) -> None:
        subprocess.Popen.__init__ = self._orig  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=15_000)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--baseline-sample", type=int, default=20)
    args = ap.parse_args(argv)

    if hasattr(os, "sched_setaffinity"):
        cpus = sorted(os.sched_getaffinity(0))[: args.cores]
        os.sched_setaffinity(0, cpus)  # children (java) inherit the mask
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    torch.set_num_threads(args.cores)

    cands, refs = make_pairs(args.n, args.seed)
    print(f"{len(cands)} pairs, {sum(map(len, refs))} references; {args.cores} CPU cores")
    with JavaCounter() as java:
        t0 = time.perf_counter()
        result = nlg_scores(cands, refs)
        total = time.perf_counter() - t0
    print("\n| step | seconds | per 1,000 pairs |\n|---|---|---|")
    for step, sec in result.timings.items():
        print(f"| {step} | {sec:.2f} | {1000 * sec / len(cands):.3f} |")
    print(f"| total (incl. model load) | {total:.2f} | {1000 * total / len(cands):.3f} |")
    print(f"\nJava processes started: {java.count} (PTB tokenization 1, METEOR 1"
          f"{', SPICE 1' if 'spice' in result.corpus else ''})")
    for m, reason in result.unavailable.items():
        print(f"unavailable: {m}: {reason}")
    print("corpus scores:", {k: round(v, 4) for k, v in result.corpus.items()})
    print("combined:", e_vil_score(result.corpus))

    # Baseline, same process: one METEOR process per example, per-example PTB tokenization.
    from pycocoevalcap.meteor.meteor import Meteor

    k = min(args.baseline_sample, len(cands))
    toks = ptb_tokenize(cands[:k] + [r for rs in refs[:k] for r in rs])
    t0 = time.perf_counter()
    for i in range(k):
        m = Meteor()
        m.compute_score({0: [r.lower() for r in refs[i]]}, {0: [toks[i]]})
        m.meteor_p.kill()
        m.meteor_p.wait()
    per_meteor = (time.perf_counter() - t0) / k
    t0 = time.perf_counter()
    for i in range(k):
        ptb_tokenize([cands[i]])
    per_tok = (time.perf_counter() - t0) / k
    ours_meteor = result.timings["meteor"] / len(cands)
    ours_tok = result.timings["tokenize"] / (len(cands) + sum(map(len, refs)))
    print(f"\nbaseline (measured on {k} pairs, extrapolated to {len(cands)}):")
    print(f"  METEOR one Java process per example: {per_meteor * len(cands):.0f} s "
          f"vs {result.timings['meteor']:.1f} s batched -> {per_meteor / ours_meteor:.0f}x")
    print(f"  PTB one Java call per text: {per_tok * (len(cands) + sum(map(len, refs))):.0f} s "
          f"vs {result.timings['tokenize']:.1f} s in one call -> {per_tok / ours_tok:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
