"""e-ViL scores as pure functions: S_T, which answers count as correct, S_E and S_O.

Definitions (Kayser et al. 2021, §4.3, documented in docs/e-vil.md):
- S_T: label accuracy (e-SNLI-VE, VCR: case-insensitive exact match with the label) or
  official VQA accuracy (datasets with human answers: VQA-X, toyvqa).
- An answer is "correct" for S_E: label match; for VQA accuracy, by the `correct` rule:
  "any" (default: VQA accuracy > 0, i.e. at least one human gave the answer — the
  paper treats VQA-X as multi-label classification where a question "can have multiple
  possible answers"), "full" (VQA accuracy == 1, at least 4 of 10 humans) or "mode"
  (equals the most common normalized human answer, as NLX-GPT's evaluation does).
- S_E: each automatic metric over the correctly answered examples (corpus-level
  pycocoevalcap score, mean BERTScore F1), and the combined e-ViL score from those.
- S_O = S_T * S_E (the product, for every metric).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from harness.errors import UsageError
from harness.metrics import (
    MIN_VQA_ANSWERS,
    accuracy_metric,
    normalize_answer,
    reference_label,
    vqa_accuracy_batch,
)
from harness.types import Example

__all__ = ["CORRECT_RULES", "TaskScores", "task_scores", "gt_pairs"]

CORRECT_RULES = ("any", "full", "mode")


@dataclass(frozen=True)
class TaskScores:
    """Per-example task scores (S_T is their mean) and the correct flags used for S_E."""

    kind: str  # "vqa_accuracy" or "label_accuracy"
    values: np.ndarray
    correct: np.ndarray

    @property
    def s_t(self) -> float:
        return float(self.values.mean()) if len(self.values) else float("nan")


def task_scores(examples: Sequence[Example], answers: Sequence[str | None], rule: str = "any") -> TaskScores:
    """S_T per example and the correct flags; `None` answers (model errors) score 0."""
    if rule not in CORRECT_RULES:
        raise UsageError(f"nle: correct={rule!r}; expected one of {', '.join(CORRECT_RULES)}")
    kinds = {accuracy_metric(ex) for ex in examples}  # the stated rule (harness.metrics.rule)
    if "vqa_accuracy" in kinds:
        if kinds != {"vqa_accuracy"}:
            raise UsageError(f"nle: some examples have {MIN_VQA_ANSWERS}+ human answers and some do not; S_T would "
                             "mix VQA accuracy with label accuracy")
        values = vqa_accuracy_batch([a or "" for a in answers], [list(ex.answers) for ex in examples])
        values = np.where([a is None for a in answers], 0.0, values).astype(np.float64)
        if rule == "any":
            correct = values > 0
        elif rule == "full":
            correct = values >= 1.0
        else:
            correct = np.array([
                a is not None and _norm(a) == _mode(ex.answers) for ex, a in zip(examples, answers)
            ], dtype=bool)
        return TaskScores("vqa_accuracy", values, correct)
    # The label, else the most common of fewer than MIN_VQA_ANSWERS human answers.
    refs = [reference_label(ex).strip().lower() for ex in examples]
    hits = np.array([a is not None and bool(ref) and a.strip().lower() == ref for ref, a in zip(refs, answers)],
                    dtype=bool)
    return TaskScores("label_accuracy", hits.astype(np.float64), hits)


def _norm(text: str) -> str:
    return " ".join(normalize_answer(text).lower().split())


def _mode(answers: Sequence[str]) -> str:
    counts = Counter(_norm(a) for a in answers)
    return min(counts, key=lambda a: (-counts[a], a))


def gt_pairs(examples: Sequence[Example]) -> tuple[list[str], list[list[str]], int]:
    """Reference-vs-others pairs for the GT row: every reference of an example with at least
    two, scored against the remaining ones. Returns (candidates, references, examples used)."""
    cands, refs, used = [], [], 0
    for ex in examples:
        expl = [e for e in ex.explanations if e.strip()]
        if len(expl) < 2:
            continue
        used += 1
        for j, e in enumerate(expl):
            cands.append(e)
            refs.append(expl[:j] + expl[j + 1 :])
    return cands, refs, used
