"""Plugin `vqa`: the official VQA v1 / v2 files (`vqa1`, `vqa2`), the accuracy probe with the
official VQA accuracy, the toy `vqa-accuracy` suite and `harness export` (the toy world in
the official file format). docs/datasets.md, docs/metrics.md."""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .datasets.vqa import VQA1, VQA2
from .datasets.vqa.command import export
from .probes.accuracy import ACCURACY_SUITE, AccuracyProbe


@hookimpl
def register_datasets(register) -> None:
    """Register `vqa1` and `vqa2`."""
    register(VQA1)
    register(VQA2)


@hookimpl
def register_probes(register) -> None:
    """Register `accuracy`."""
    register(AccuracyProbe)


@hookimpl
def register_suites(register) -> None:
    """Register `vqa-accuracy` (toy)."""
    register(ACCURACY_SUITE)


@hookimpl
def register_commands(register) -> None:
    """Register `harness export`."""
    register(export)
