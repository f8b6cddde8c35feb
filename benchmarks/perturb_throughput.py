"""Benchmark: counterfactual question generation, all ten kinds, on 200,000 questions.

    python benchmarks/perturb_throughput.py [--n 200000] [--seed 0]

Questions: the 1,459 real VQA-X val questions (../shared/data/vqax/vqaX_val.json; a
fallback set of templates without it), each copy with one noun swapped for a random
WordNet noun (those with a SemCor count > 0, several thousand), so the vocabulary keeps
growing and the WordNet caches keep missing as on a real dataset. Timed in one process,
on one core, after the resources are loaded (their load time is printed apart):

- baseline: tokenize + POS-tag each question (the floor: every kind needs the tags);
- all kinds: `Perturber.perturb` (tags once per question, shared by the ten kinds).

Target (issue 6): >= 1,000 questions/s for all kinds together.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VQAX = ROOT.parent / "shared" / "data" / "vqax" / "vqaX_val.json"
FALLBACK = ["Do you see the white small dog?", "What color is the car parked on the street?",
            "How many people are riding horses?", "Is the man holding a red umbrella?",
            "What is the woman eating?", "Are the kids playing in the snow?"]


def questions(n: int, seed: int) -> tuple[list[str], int]:
    """`n` questions: real ones with one noun swapped for a random WordNet noun."""
    from harness.counterfactual import tokenize
    from harness.resources import pos_tag, wordnet

    if VQAX.is_file():
        base = [r["question"] for r in json.loads(VQAX.read_text(encoding="utf-8")).values()]
    else:
        base = FALLBACK
    wn = wordnet()
    nouns = sorted({lem.name() for s in wn.all_synsets("n") for lem in s.lemmas()
                    if lem.count() > 0 and lem.name().isalpha() and lem.name().islower()})
    slots = []
    for q in base:
        toks = tokenize(q)
        tags = pos_tag([t.text for t in toks])
        slots.append([t for t, (_, tag) in zip(toks, tags) if tag == "NN"])
    rng = random.Random(seed)
    out = []
    for i in range(n):
        j = i % len(base)
        q, nn = base[j], slots[j]
        if nn:
            t = rng.choice(nn)
            q = q[: t.start] + rng.choice(nouns) + q[t.end :]
        out.append(q)
    return out, len(nouns)


def main() -> None:
    """Print load time, baseline and all-kinds throughput, and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from harness.counterfactual import Perturber, colors_in, tokenize
    from harness.resources import pos_tag

    t0 = time.perf_counter()
    perturber = Perturber(seed=args.seed)
    load_s = time.perf_counter() - t0
    qs, vocab = questions(args.n, args.seed)
    perturber = Perturber(common_colors=colors_in(qs[:5000]), seed=args.seed, wn=perturber.wn,
                          tagger=perturber.tagger)
    print(f"resources loaded in {load_s:.1f} s; {len(qs):,} questions (noun pool {vocab:,} lemmas)")

    # CPU time of this (single-threaded) process: on a shared machine wall time also
    # counts other processes; both are printed.
    t0, c0 = time.perf_counter(), time.process_time()
    for q in qs:
        pos_tag([t.text for t in tokenize(q)])
    tag_s, tag_cpu = time.perf_counter() - t0, time.process_time() - c0

    t0, c0 = time.perf_counter(), time.process_time()
    applied = 0
    for q in qs:
        applied += sum(1 for v in perturber.perturb(q).values() if not isinstance(v, str))
    all_s, all_cpu = time.perf_counter() - t0, time.process_time() - c0

    tag_rate, all_rate = len(qs) / tag_cpu, len(qs) / all_cpu
    print(f"baseline tokenize+POS tag : {tag_rate:10,.0f} questions/s of CPU ({tag_cpu:.1f} s CPU, {tag_s:.1f} s wall)")
    print(f"all 10 kinds (tag once)   : {all_rate:10,.0f} questions/s of CPU ({all_cpu:.1f} s CPU, {all_s:.1f} s wall); "
          f"{applied:,} counterfactuals ({applied / len(qs):.2f} per question)")
    print(f"wall-clock rate all kinds : {len(qs) / all_s:10,.0f} questions/s")
    print(f"ratio all-kinds / tagging : {all_rate / tag_rate:.2f}x  "
          f"(target >= 1,000 questions/s: {'met' if all_rate >= 1000 else 'NOT met'})")


if __name__ == "__main__":
    main()
