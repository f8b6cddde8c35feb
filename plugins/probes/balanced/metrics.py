"""Pure functions behind the balanced-VQA probes (Goyal et al. 2017, §3-§5).

Definitions (docs/balanced-vqa.md):

- canonical answer of a question: `normalize_answer(label)` (the official
  `multiple_choice_answer`), else the most frequent normalized human answer (ties: the
  alphabetically first).
- a prediction is *correct* for the pair metrics when its official normalization equals the
  question's canonical answer; two predictions are *identical* when their normalizations
  are equal.
- strict pair accuracy: the mean over pairs of min(VQA accuracy of the two predictions).
- answer entropy: Shannon entropy in bits of the canonical-answer distribution of a
  question type; the summary is the mean over types weighted by their question counts.
- Recall@k: the share of questions whose complementary image is among the first k ranked
  candidates.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from harness.metrics import accuracy_metric, normalize_answer, vqa_accuracy, vqa_accuracy_batch
from harness.metrics.rule import canonical_answer
from harness.types import Example

__all__ = [
    "answer_score",
    "answer_scores",
    "canonical_answer",
    "PairOutcome",
    "pair_outcomes",
    "find_pairs",
    "entropy_bits",
    "answer_entropy_by_type",
    "PriorModelFit",
    "fit_priors",
    "prior_accuracies",
    "PrefixStat",
    "predictive_prefixes",
    "question_words",
    "recall_at_k",
]




# ------------------------------------------------------------------------------- pairs


@dataclass(frozen=True)
class PairOutcome:
    """One complementary pair as the pair probe scores it."""

    first: str
    second: str
    both_correct: bool
    identical: bool
    strict_accuracy: float


def answer_score(answer: str, example: Example) -> float:
    """`answer`'s score by the stated rule (harness.metrics.rule, docs/metrics.md "Which
    accuracy"): VQA accuracy with at least MIN_VQA_ANSWERS human answers, else an exact match
    with the canonical answer (one human answer would cap VQA accuracy at 0)."""
    if accuracy_metric(example) == "vqa_accuracy":
        return vqa_accuracy(answer, example.answers)
    return float(normalize_answer(answer) == canonical_answer(example) != "")


def answer_scores(answers: Sequence[str], examples: Sequence[Example]) -> np.ndarray:
    """`answer_score` of each (answer, example) pair, value for value, as a float64 array.

    The probes score hundreds of thousands of questions, up to four times each (the prefix
    audit): `answer_score` normalizes the ten human answers on every call, which took a third
    of a `vqa2` run; `vqa_accuracy_batch` (equal to `vqa_accuracy`, tested) and the memo below
    normalize each distinct string once (benchmarks/answer_scores.py)."""
    if len(answers) != len(examples):
        raise ValueError(f"answer_scores: {len(answers)} answers for {len(examples)} examples")
    out = np.zeros(len(examples), dtype=np.float64)
    vqa = [i for i, ex in enumerate(examples) if accuracy_metric(ex) == "vqa_accuracy"]
    if vqa:
        out[vqa] = vqa_accuracy_batch([answers[i] for i in vqa], [examples[i].answers for i in vqa])
    norm = functools.cache(normalize_answer)  # each distinct answer once, for this call
    for i, ex in enumerate(examples):
        if accuracy_metric(ex) != "vqa_accuracy":
            out[i] = float(norm(answers[i]) == canonical_answer(ex) != "")
    return out


def find_pairs(examples: Sequence[Example]) -> tuple[list[tuple[int, int]], int]:
    """Index pairs (i, j), i < j, of complementary questions both present; and the number
    of examples whose `pair_id` names a question that is not present."""
    index = {ex.id: i for i, ex in enumerate(examples)}
    pairs, dangling = [], 0
    for i, ex in enumerate(examples):
        if not ex.pair_id:
            continue
        j = index.get(ex.pair_id)
        if j is None:
            dangling += 1
        elif i < j:
            pairs.append((i, j))
    return pairs, dangling


def pair_outcomes(pairs: Iterable[tuple[Example, Example]], predictions: Iterable[tuple[str, str]]
                  ) -> list[PairOutcome]:
    """Score each pair: both correct, identical predictions, min of the VQA accuracies."""
    pairs, predictions = list(pairs), list(predictions)
    n = min(len(pairs), len(predictions))  # zip's length, as before
    pairs, predictions = pairs[:n], predictions[:n]
    firsts = answer_scores([pa for pa, _ in predictions], [a for a, _ in pairs])
    seconds = answer_scores([pb for _, pb in predictions], [b for _, b in pairs])
    norm = functools.cache(normalize_answer)  # each distinct prediction once, for this call
    out = []
    for k, ((a, b), (pa, pb)) in enumerate(zip(pairs, predictions)):
        na, nb = norm(pa), norm(pb)
        both = na == canonical_answer(a) and nb == canonical_answer(b) and na != "" and nb != ""
        out.append(PairOutcome(a.id, b.id, both, na == nb, float(min(firsts[k], seconds[k]))))
    return out


# ---------------------------------------------------------------------- language priors


def entropy_bits(counts: Mapping[str, int] | Counter) -> float:
    """Shannon entropy (bits) of a distribution given by counts."""
    total = sum(counts.values())
    if total <= 0:
        return 0.0
    h = 0.0
    for c in counts.values():
        if c > 0:
            p = c / total
            h -= p * math.log2(p)
    return h + 0.0  # -0.0 -> 0.0


def answer_entropy_by_type(answers: Sequence[str], question_types: Sequence[str]
                           ) -> tuple[dict[str, tuple[float, int]], float]:
    """Per question type (entropy in bits, count), and the count-weighted mean entropy."""
    by_type: dict[str, Counter] = defaultdict(Counter)
    for a, t in zip(answers, question_types):
        by_type[t][a] += 1
    per = {t: (entropy_bits(c), sum(c.values())) for t, c in sorted(by_type.items())}
    total = sum(n for _, n in per.values())
    # math.fsum: correctly rounded, so the same bits on every Python (3.12's sum() compensates).
    weighted = math.fsum(h * n for h, n in per.values()) / total if total else 0.0
    return per, weighted


@dataclass(frozen=True)
class PriorModelFit:
    """The Prior answer and the per-question-type prior answers of a training set."""

    prior: str
    by_type: Mapping[str, str]


def _majority(counts: Counter) -> str:
    return min(counts, key=lambda a: (-counts[a], a))


def fit_priors(train: Sequence[Example]) -> PriorModelFit:
    """Most common canonical answer overall and per question type (ties: alphabetical)."""
    overall: Counter = Counter()
    typed: dict[str, Counter] = defaultdict(Counter)
    for ex in train:
        a = canonical_answer(ex)
        if not a:
            continue
        overall[a] += 1
        typed[ex.question_type][a] += 1
    if not overall:
        return PriorModelFit("", {})
    return PriorModelFit(_majority(overall), {t: _majority(c) for t, c in typed.items()})


def prior_accuracies(fit: PriorModelFit, test: Sequence[Example]) -> tuple[np.ndarray, np.ndarray]:
    """Per-question accuracy (`answer_score`) of the Prior and of the question-type prior
    (examples with human answers only)."""
    scored = [ex for ex in test if ex.answers]
    prior = answer_scores([fit.prior] * len(scored), scored)
    typed = answer_scores([fit.by_type.get(ex.question_type, fit.prior) for ex in scored], scored)
    return prior, typed


_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


def question_words(question: str) -> list[str]:
    """Lower-cased words (letters, digits, apostrophes), as question types are matched."""
    return _WORD.findall(question.lower())


@dataclass(frozen=True)
class PrefixStat:
    """How well one question prefix predicts the answer."""

    prefix: str
    answer: str
    count: int
    accuracy: float


def predictive_prefixes(examples: Sequence[Example], *, max_words: int = 4, min_count: int = 20,
                        top: int = 10) -> list[PrefixStat]:
    """Question prefixes (1..max_words words) whose majority answer scores best.

    For each prefix shared by at least `min_count` questions: the majority canonical answer
    and its mean VQA accuracy over those questions (exact canonical match for questions
    without human answers). Sorted by accuracy, then count, then prefix.
    """
    groups: dict[str, list[int]] = defaultdict(list)
    for k, ex in enumerate(examples):
        words = question_words(ex.question)
        for n in range(1, min(max_words, len(words)) + 1):
            groups[" ".join(words[:n])].append(k)
    canonical: dict[int, str] = {}  # each question's canonical answer once, not once per prefix
    stats = []
    for prefix, members in groups.items():
        if len(members) < min_count:
            continue
        for k in members:
            if k not in canonical:
                canonical[k] = canonical_answer(examples[k])
        counts = Counter(canonical[k] for k in members)
        counts.pop("", None)
        if not counts:
            continue
        answer = _majority(counts)
        accs = answer_scores([answer] * len(members), [examples[k] for k in members])
        stats.append(PrefixStat(prefix, answer, len(members), float(np.mean(accs))))
    stats.sort(key=lambda s: (-s.accuracy, -s.count, s.prefix))
    return stats[:top]


# ------------------------------------------------------------------------ counter-examples


def recall_at_k(rankings: Sequence[Sequence[str]], targets: Sequence[str], k: int = 5) -> np.ndarray:
    """1.0 where the target is among the first k of its ranking, else 0.0."""
    return np.array([1.0 if t in list(r)[:k] else 0.0 for r, t in zip(rankings, targets)], dtype=float)
