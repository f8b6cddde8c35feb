"""Benchmark: `harness perturb` start-up and counterfactual throughput, both generator modes.

    python benchmarks/perturb_throughput.py [--data-dir ../shared/data] [--stress 20000] [--seed 0]

Questions: the 1,459 real VQA v2 questions of VQA-X val (`vqaX_val.json`), each with its
10 human answers (the quality mode's sense context). Printed, each against a baseline
measured in the same process:

1. resource loading after first use: the prebuilt WordNet index, tagger weights, word
   statistics and sense vectors (harness cache) vs. what the harness loaded before, NLTK's
   `WordNetCorpusReader` and `PerceptronTagger` (import of nltk included);
2. start-up of `harness perturb --dataset vqa-x` in a fresh process, per mode: wall time
   of the whole command minus its perturbation and writing time (both printed by the
   command), so it holds interpreter start, imports, loading the data and the resources;
3. throughput per mode on a fresh Perturber (cold memo caches), all ten kinds together,
   in questions per CPU second of this single-threaded process (wall time counts other
   processes on a shared machine; both are printed), vs. tokenizing + tagging alone;
4. `--stress N`: N questions built from the real ones with one noun swapped for a random
   WordNet noun, so the vocabulary keeps growing and the memo caches keep missing.

Targets (issue 14, for both modes): resources well under a second, start-up under 3 s,
at least 1,000 questions/s for all kinds together.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from vqa_harness_plugins.generators.counterfactual import (
    Perturber,
    colors_in,
    perturb_many,
    tokenize,
)
from vqa_harness_plugins.nlp import (
    perceptron,
    pos_tag,
    sense_vectors,
    word_stats,
    wordnet,
    wordnet_index,
    wordstats,
)
from vqa_harness_plugins.nlp.tagger import nltk_tagger

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


def real_questions(data_dir: Path) -> tuple[list[str], list[tuple[str, ...]]]:
    """VQA-X val questions and their human answers."""
    rows = json.loads((data_dir / "vqax" / "vqaX_val.json").read_text(encoding="utf-8")).values()
    return [r["question"] for r in rows], [tuple(a["answer"] for a in r["answers"]) for r in rows]


def stress_questions(base: list[str], n: int, seed: int) -> list[str]:
    """`n` questions: real ones with one NN swapped for a random WordNet noun."""
    wn = wordnet_index()
    nouns = sorted({name for name, counts in ((wn.lemma_names(s), wn.lemma_counts(s)) for s in range(len(wn))
                                              if wn.pos(s) == "n")
                    for name, c in zip(name, counts) if c > 0 and name.isalpha() and name.islower()})
    slots = []
    for q in base:
        toks = tokenize(q)
        slots.append([t for t, (_, tag) in zip(toks, pos_tag([t.text for t in toks])) if tag == "NN"])
    rng = random.Random(seed)
    out = []
    for i in range(n):
        q, nn = base[i % len(base)], slots[i % len(base)]
        if nn:
            t = rng.choice(nn)
            q = q[: t.start] + rng.choice(nouns) + q[t.end:]
        out.append(q)
    return out


def time_loading() -> None:
    """Fast loaders (from the harness cache) vs NLTK's reader and tagger, same process."""
    word_stats()  # first use builds the caches once
    perceptron.fast_tagger()
    sense_vectors()
    index_module = sys.modules["vqa_harness_plugins.nlp.wordnet_index"]
    vectors_module = sys.modules["vqa_harness_plugins.nlp.sense_vectors"]
    for module in (index_module, perceptron, wordstats, vectors_module):  # forget the in-process copies
        module._LOADED.clear()
        getattr(module, "_FOUND", {}).clear()
    c_start = time.process_time()
    t0 = time.perf_counter()
    wordnet_index().synsets("dog", "n")  # the lemma map of a part of speech loads on first use
    t_wn = time.perf_counter() - t0
    t0 = time.perf_counter()
    perceptron.fast_tagger()
    t_tag = time.perf_counter() - t0
    t0 = time.perf_counter()
    word_stats()
    t_stats = time.perf_counter() - t0
    t0 = time.perf_counter()
    sense_vectors()
    t_vec = time.perf_counter() - t0
    fast, fast_cpu = t_wn + t_tag + t_stats + t_vec, time.process_time() - c_start
    t0, c0 = time.perf_counter(), time.process_time()

    wordnet()
    nltk_tagger()
    slow, slow_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"resources after first use: WordNet index {t_wn:.2f} s, tagger {t_tag:.2f} s, word statistics "
          f"{t_stats:.2f} s, sense vectors {t_vec:.2f} s; total {fast:.2f} s wall, {fast_cpu:.2f} s CPU")
    print(f"baseline NLTK (import + WordNetCorpusReader + PerceptronTagger): {slow:.2f} s wall, {slow_cpu:.2f} s "
          f"CPU; ratio {slow_cpu / fast_cpu:.1f}x faster in CPU time (target well under a second: "
          f"{'met' if fast < 1 else 'met in CPU time' if fast_cpu < 1 else 'NOT met'})")


_TIMING = re.compile(r"timing: data and resources ([\d.]+) s, perturbation ([\d.]+) s wall / ([\d.]+) s CPU "
                     r"\(([\d,]+) questions per CPU second\), writing ([\d.]+) s")


def time_command(data_dir: Path, mode: str) -> tuple[float, float, float, float]:
    """(whole command wall s, start-up wall s, start-up CPU s, questions per CPU s) of a
    fresh `harness perturb`; CPU = user + system time of the child process."""
    import resource  # Unix only

    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "vqa_harness_cli", "perturb", "--dataset", "vqa-x", "--data-dir", str(data_dir),
               "--mode", mode, "--out", str(Path(tmp) / "cf.jsonl")]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    m = _TIMING.search(proc.stderr)
    if m is None:
        raise SystemExit(f"no timing line in the output of {' '.join(cmd)}:\n{proc.stderr}")
    perturb_wall, perturb_cpu, write = float(m.group(2)), float(m.group(3)), float(m.group(5))
    return wall, wall - perturb_wall - write, cpu - perturb_cpu - write, float(m.group(4).replace(",", ""))


def throughput(questions: list[str], answers: list[tuple[str, ...]] | None, seed: int, label: str) -> float:
    """Questions per CPU second of every mode on a fresh Perturber, vs tokenize + tag."""
    vocabulary = questions[:5000] + [a for row in (answers or [])[:5000] for a in row]
    rates = {}
    tagger = perceptron.fast_tagger()
    tagger._memo.clear()
    c0 = time.process_time()
    for q in questions:
        tagger.tag([t.text for t in tokenize(q)])
    base = len(questions) / (time.process_time() - c0)
    print(f"{label}: baseline tokenize + tag: {base:10,.0f} questions per CPU second")
    for mode in ("paper", "quality"):
        tagger._memo.clear()
        perturber = Perturber(common_colors=colors_in(vocabulary), seed=seed, mode=mode)
        t0, c0 = time.perf_counter(), time.process_time()
        results, counts, _ = perturb_many(perturber, questions, answers if mode == "quality" else None)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        applied = sum(c["applied"] for c in counts.values())
        rates[mode] = len(questions) / cpu
        print(f"{label}: {mode:7s} all 10 kinds: {rates[mode]:10,.0f} questions per CPU second ({cpu:.2f} s CPU, "
              f"{wall:.2f} s wall, {len(questions) / wall:,.0f}/s wall); {applied:,} counterfactuals; "
              f"ratio to tagging {rates[mode] / base:.2f} (target >= 1,000/s: "
              f"{'met' if rates[mode] >= 1000 else 'NOT met'})")
    # the cost of the embedding Lesk (issue 24): the same quality mode with the sense vectors
    # switched off (every polysemous word keeps its most frequent sense)
    tagger._memo.clear()
    perturber = Perturber(common_colors=colors_in(vocabulary), seed=seed, mode="quality")
    perturber.quality.senses.vectors = _NoVectors()
    c0 = time.process_time()
    perturb_many(perturber, questions, answers)
    mfs = len(questions) / (time.process_time() - c0)
    print(f"{label}: quality without sense vectors (most frequent senses): {mfs:10,.0f} questions per CPU second; "
          f"the embedding Lesk costs {100 * (1 - rates['quality'] / mfs):.0f}% of that rate")
    return min(rates.values())


class _NoVectors:
    """Sense vectors that know no word: SenseChooser keeps the first sense."""

    def word_rows(self, words):
        return []

    def similarities(self, senses, rows):
        return None


def main() -> None:
    """Print resource loading, start-up and throughput figures with their baselines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--stress", type=int, default=0, help="also N synthetic questions (growing vocabulary)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"uptime: {os.popen('uptime').read().strip()}")
    time_loading()
    for mode in ("quality", "paper"):
        wall, startup, startup_cpu, rate = time_command(args.data_dir, mode)
        print(f"harness perturb --mode {mode} (1,459 questions, fresh process): {wall:.2f} s in all; start-up "
              f"{startup:.2f} s wall, {startup_cpu:.2f} s CPU (target < 3 s: "
              f"{'met' if startup < 3 else 'met in CPU time' if startup_cpu < 3 else 'NOT met'}); "
              f"{rate:,.0f} questions per CPU second")
    questions, answers = real_questions(args.data_dir)
    throughput(questions, answers, args.seed, f"VQA-X val ({len(questions):,} questions)")
    if args.stress:
        throughput(stress_questions(questions, args.stress, args.seed), None, args.seed,
                   f"stress ({args.stress:,} questions)")
    print(f"uptime: {os.popen('uptime').read().strip()}")


if __name__ == "__main__":
    main()
