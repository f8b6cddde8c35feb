"""The balanced-VQA probes' per-question scoring, batched against the per-question calls.

    python benchmarks/answer_scores.py [--n 50000]

The `pairs` and `language-prior` probes score every question by `answer_score`, the prefix
audit up to four times (one per prefix length): on 50,000 generated VQA v2 questions that was
27.5 of a run's 80 s (cProfile), because each call normalizes the question's ten human answers
again. `answer_scores` scores a list at once (`vqa_accuracy_batch`: each distinct string
normalized once). This script times, in one process, the three scoring steps both ways —
prior accuracies, the prefix audit and pair outcomes — checks that the values are equal (`==`)
and prints the ratio. The baseline is the code as it was (the per-question loops, kept here).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from balanced_vqa_load import TYPES, VOCAB  # noqa: E402
from harness_proc import uptime  # noqa: E402

from harness.types import Example  # noqa: E402
from vqa_harness_plugins.probes.balanced.metrics import (  # noqa: E402
    _majority,
    answer_score,
    canonical_answer,
    fit_priors,
    normalize_answer,
    pair_outcomes,
    predictive_prefixes,
    prior_accuracies,
    question_words,
)


def examples(n: int, seed: int = 0) -> list[Example]:
    """`n` questions as the vqa2 loader gives them: 10 human answers, a label, a type."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        qtype, _ = TYPES[i % len(TYPES)]
        main = rng.choice(VOCAB)
        answers = tuple(main if rng.random() < 0.7 else rng.choice(VOCAB) for _ in range(10))
        out.append(Example(id=str(i), question=f"{qtype.capitalize()} thing number {i % 5000}?", label=main,
                           answers=answers, question_type=qtype, pair_id=str(i ^ 1)))
    return out


# ------------------------------------------------------------- the code as it was (baseline)
def old_prior_accuracies(fit, test: Sequence[Example]) -> tuple[np.ndarray, np.ndarray]:
    scored = [ex for ex in test if ex.answers]
    prior = np.array([answer_score(fit.prior, ex) for ex in scored], dtype=float)
    typed = np.array([answer_score(fit.by_type.get(ex.question_type, fit.prior), ex) for ex in scored], dtype=float)
    return prior, typed


def old_predictive_prefixes(exs: Sequence[Example], max_words: int = 4, min_count: int = 20, top: int = 10):
    groups: dict[str, list[Example]] = defaultdict(list)
    for ex in exs:
        words = question_words(ex.question)
        for n in range(1, min(max_words, len(words)) + 1):
            groups[" ".join(words[:n])].append(ex)
    stats = []
    for prefix, group in groups.items():
        if len(group) < min_count:
            continue
        counts = Counter(canonical_answer(ex) for ex in group)
        counts.pop("", None)
        if not counts:
            continue
        answer = _majority(counts)
        stats.append((prefix, answer, len(group), float(np.mean([answer_score(answer, ex) for ex in group]))))
    stats.sort(key=lambda s: (-s[3], -s[2], s[0]))
    return stats[:top]


def old_pair_outcomes(pairs, predictions):
    out = []
    for (a, b), (pa, pb) in zip(pairs, predictions):
        na, nb = normalize_answer(pa), normalize_answer(pb)
        both = na == canonical_answer(a) and nb == canonical_answer(b) and na != "" and nb != ""
        out.append((a.id, b.id, both, na == nb, min(answer_score(pa, a), answer_score(pb, b))))
    return out


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50_000, help="questions (default 50,000)")
    args = parser.parse_args(argv)
    print(f"load before: {uptime()}")
    exs = examples(args.n)
    fit = fit_priors(examples(args.n, seed=1))
    rng = random.Random(2)
    pairs = [(exs[k], exs[k + 1]) for k in range(0, len(exs) - 1, 2)]
    preds = [(rng.choice(VOCAB), rng.choice(VOCAB)) for _ in pairs]
    steps = [
        ("prior accuracies", lambda: old_prior_accuracies(fit, exs), lambda: prior_accuracies(fit, exs),
         lambda o, n: all(np.array_equal(a, b) for a, b in zip(o, n))),
        ("prefix audit", lambda: old_predictive_prefixes(exs), lambda: predictive_prefixes(exs),
         lambda o, n: o == [(s.prefix, s.answer, s.count, s.accuracy) for s in n]),
        ("pair outcomes", lambda: old_pair_outcomes(pairs, preds), lambda: pair_outcomes(pairs, preds),
         lambda o, n: o == [(p.first, p.second, p.both_correct, p.identical, p.strict_accuracy) for p in n]),
    ]
    total_old = total_new = 0.0
    print(f"{args.n:,} questions, {len(pairs):,} pairs")
    for name, old, new, same in steps:
        o, t_old = timed(old)
        n, t_new = timed(new)
        assert same(o, n), f"{name}: the batched values differ from the per-question ones"
        total_old, total_new = total_old + t_old, total_new + t_new
        print(f"{name:18s} per question {t_old:7.2f} s   batched {t_new:6.2f} s   {t_old / t_new:5.1f}x  (values equal)")
    print(f"{'all three':18s} per question {total_old:7.2f} s   batched {total_new:6.2f} s   "
          f"{total_old / total_new:5.1f}x")
    print(f"load after: {uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
