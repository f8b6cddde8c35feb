"""Which accuracy an example is scored with: the stated rule (docs/metrics.md, "Which accuracy").

The official VQA accuracy of a question with n human answers is a mean over the n leave-one-out
subsets of min(1, matches / 3): a right answer scores at most min(1, (n-1)/3), always 0 with one
human answer, at most 1/3 with two, 2/3 with three, so on data with fewer answers it measures
the answer count, not the model. Hence, per example:

1. at least `MIN_VQA_ANSWERS` (4) human answers: `vqa_accuracy` (official; VQA has 10);
2. otherwise, with a label or one to three human answers: `label_accuracy`, an exact match
   (stripped, lower-cased) against the reference label: the example's `label`, else its most
   common human answer (ties: the alphabetically first);
3. neither: not scored.

Probes that score answers (accuracy, image-ablation, counterfactual) follow it and say in the
report how many questions rule 2 switched.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Sequence

from ..types import Example
from .vqa import normalize_answer

__all__ = ["MIN_VQA_ANSWERS", "OFFICIAL_ANSWERS", "accuracy_metric", "canonical_answer", "reference_label",
           "split_by_metric", "switched_note"]

#: Human answers per question in the official VQA data (v1, v2).
OFFICIAL_ANSWERS = 10
#: The fewest human answers with which a right answer can reach VQA accuracy 1.
MIN_VQA_ANSWERS = 4


def accuracy_metric(example: Example) -> str:
    """"vqa_accuracy", "label_accuracy" or "" (not scored), by the rule above."""
    if len(example.answers) >= MIN_VQA_ANSWERS:
        return "vqa_accuracy"
    if example.label or example.answers:
        return "label_accuracy"
    return ""


def reference_label(example: Example) -> str:
    """The target of `label_accuracy`: the label, else the most common human answer, counted
    as it is compared (stripped, lower-cased: "Red" and "red" are one answer)."""
    return example.label or canonical_answer(example, lambda a: a.strip().lower())


def canonical_answer(example: Example, norm: Callable[[str], str] = normalize_answer) -> str:
    """The normalized `label`, else the most frequent normalized human answer (ties:
    alphabetical), else "" (VQA's `multiple_choice_answer` equivalent)."""
    if example.label:
        return norm(example.label)
    counts = Counter(norm(a) for a in example.answers)
    return min(counts, key=lambda a: (-counts[a], a)) if counts else ""


def split_by_metric(examples: Sequence[Example]) -> tuple[list[int], list[int], int]:
    """(indices scored by vqa_accuracy, indices scored by label_accuracy, how many of the
    latter have human answers, too few for VQA accuracy: the switched ones)."""
    vqa, label, switched = [], [], 0
    for i, ex in enumerate(examples):
        metric = accuracy_metric(ex)
        if metric == "vqa_accuracy":
            vqa.append(i)
        elif metric == "label_accuracy":
            label.append(i)
            switched += bool(ex.answers)
    return vqa, label, switched


def switched_note(switched: int, total: int) -> str:
    """The one line a probe reports when rule 2 switched questions ("" when none)."""
    if not switched:
        return ""
    return (f"{switched} of {total} question(s) have fewer than {MIN_VQA_ANSWERS} human answers (the official VQA "
            f"count is {OFFICIAL_ANSWERS}), where VQA accuracy cannot reach 1 (one answer always scores 0): they "
            "are scored by `label_accuracy` against their label or most common answer (docs/metrics.md, "
            "\"Which accuracy\").")
