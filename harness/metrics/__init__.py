"""Metrics as pure functions, inputs in, numbers out (docs/metrics.md): VQA accuracy (official
and a separately named lenient variant) and VQA question/answer types. The `evaluate`
library's wrapper is `vqa_harness_plugins.metrics`."""

from __future__ import annotations

from ..stats import accuracy_breakdown
from .qtypes import (
    ANSWER_TYPES,
    FALLBACK_QUESTION_TYPE,
    QUESTION_TYPES,
    answer_type,
    human_answer_type,
    question_type,
)
from .rule import (
    MIN_VQA_ANSWERS,
    OFFICIAL_ANSWERS,
    accuracy_metric,
    canonical_answer,
    reference_label,
    split_by_metric,
    switched_note,
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
    "ANSWER_TYPES", "FALLBACK_QUESTION_TYPE", "LENIENT_METRIC_NAME", "METRIC_NAME",
    "MIN_VQA_ANSWERS", "OFFICIAL_ANSWERS", "accuracy_metric", "canonical_answer", "reference_label",
    "split_by_metric", "switched_note", "QUESTION_TYPES", "accuracy_breakdown", "answer_type",
    "human_answer_type", "normalize_answer", "question_type", "vqa_accuracy", "vqa_accuracy_batch",
    "vqa_accuracy_lenient", "vqa_accuracy_lenient_batch",
]
