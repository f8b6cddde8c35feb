"""Paper metrics that are not the engine's: e-ViL's NLG bundle (`nlg`) and combined score
(`evil_score`), and the local `evaluate` modules (`nle_scores`, and `vqa_accuracy` wrapping
the engine's `harness.metrics`) for ``evaluate.load(evaluate_module_path(name))``
(docs/metrics.md, docs/e-vil.md)."""

from __future__ import annotations

from pathlib import Path

from harness.errors import UsageError

__all__ = ["evaluate_module_path", "EVALUATE_MODULES"]

#: The local `evaluate` modules, one folder each.
EVALUATE_MODULES = Path(__file__).resolve().parent / "evaluate_modules"


def evaluate_module_path(name: str) -> str:
    """Folder of a local `evaluate` module, for ``evaluate.load(path)`` (works offline)."""
    folder = EVALUATE_MODULES / name
    if not (folder / f"{name}.py").is_file():
        known = sorted(p.name for p in EVALUATE_MODULES.iterdir() if (p / f"{p.name}.py").is_file())
        raise UsageError(f"no local evaluate module {name!r}; known: {', '.join(known)}")
    return str(folder)
