"""The canonical answer of an example (VQA's `multiple_choice_answer` equivalent)."""

from __future__ import annotations

from collections import Counter
from typing import Callable

from ..types import Example
from .vqa import normalize_answer

__all__ = ["canonical_answer"]


def canonical_answer(example: Example, norm: Callable[[str], str] = normalize_answer) -> str:
    """The normalized `label`, else the most frequent normalized human answer (ties:
    alphabetical), else ""."""
    if example.label:
        return norm(example.label)
    if example.answers:
        counts = Counter(norm(a) for a in example.answers)
        return min(counts, key=lambda a: (-counts[a], a))
    return ""
