"""Metrics as pure functions: inputs in, numbers out (DESIGN.md §4).

VQA accuracy (official and a separately named lenient variant), VQA question/answer
types, and the path of the local `evaluate` modules that wrap them.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..stats import accuracy_breakdown
from .qtypes import (
    ANSWER_TYPES,
    FALLBACK_QUESTION_TYPE,
    QUESTION_TYPES,
    answer_type,
    human_answer_type,
    question_type,
)
from .vqa import (
    LENIENT_METRIC_NAME,
    METRIC_NAME,
    normalize_answer,
    vqa_accuracy,
    vqa_accuracy_batch,
    vqa_accuracy_lenient,
    vqa_accuracy_lenient_batch,
)

__all__ = [
    "ANSWER_TYPES",
    "FALLBACK_QUESTION_TYPE",
    "LENIENT_METRIC_NAME",
    "METRIC_NAME",
    "QUESTION_TYPES",
    "accuracy_breakdown",
    "answer_type",
    "evaluate_module_path",
    "human_answer_type",
    "normalize_answer",
    "question_type",
    "vqa_accuracy",
    "vqa_accuracy_batch",
    "vqa_accuracy_lenient",
    "vqa_accuracy_lenient_batch",
]

_EVALUATE_MODULES = Path(__file__).resolve().parent / "evaluate_modules"


def evaluate_module_path(name: str, root: Path = _EVALUATE_MODULES) -> str:
    """Folder of a local `evaluate` module under `root`, for ``evaluate.load(path)`` (works
    offline); plugins with modules of their own pass their folder."""
    folder = root / name
    if not (folder / f"{name}.py").is_file():
        known = sorted(p.name for p in root.iterdir() if (p / f"{p.name}.py").is_file())
        raise UsageError(f"no local evaluate module {name!r}; known: {', '.join(known)}")
    return str(folder)
