"""Plugin `predictions`: score answers produced elsewhere (docs/predictions.md).

`--model predictions:path=FILE` answers from the official VQA results file
(`[{"question_id", "answer"}]`) or JSON lines keyed by example id (`{"id", "answer",
"explanation"}`), so any suite's answer-based probes run on another pipeline's outputs.
"""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .models.predictions import PredictionsModel


@hookimpl
def register_models(register) -> None:
    """Register `predictions`."""
    register(PredictionsModel)
