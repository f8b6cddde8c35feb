"""Paper metrics that are not the engine's: e-ViL's NLG bundle (`nlg`) and its local
`evaluate` module (docs/e-vil.md). VQA accuracy is the engine's (`harness.metrics`)."""

from __future__ import annotations

from pathlib import Path

from harness.metrics import evaluate_module_path as _module_path

__all__ = ["evaluate_module_path", "EVALUATE_MODULES"]

#: Local `evaluate` modules of the plugins' metrics (`nle_scores`).
EVALUATE_MODULES = Path(__file__).resolve().parent / "evaluate_modules"


def evaluate_module_path(name: str) -> str:
    """Folder of a local `evaluate` module of these metrics, for ``evaluate.load(path)``."""
    return _module_path(name, EVALUATE_MODULES)
