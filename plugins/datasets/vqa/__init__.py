"""Official VQA datasets: `vqa2`, `vqa1`, `vqax-vqa`, plus `toyvqa-half` and the toy exporter.

See docs/datasets.md for the `--data-dir` layout and docs/balanced-vqa.md for the suite.
"""

from __future__ import annotations

from typing import Callable

from harness.api import DatasetPlugin
from harness.hookspecs import hookimpl

from .export import ExportResult, export_toy_vqa2, write_vqa2_split
from .half import ToyVQAHalf, keep_pair_fraction
from .loaders import IMAGE_FOLDERS, SPLIT_TAGS, VQA1, VQA2, OfficialVQA
from .vqax import VQAXAsVQA, parse_vqax

__all__ = [
    "VQA1",
    "VQA2",
    "OfficialVQA",
    "VQAXAsVQA",
    "ToyVQAHalf",
    "keep_pair_fraction",
    "export_toy_vqa2",
    "write_vqa2_split",
    "ExportResult",
    "parse_vqax",
    "SPLIT_TAGS",
    "IMAGE_FOLDERS",
    "register_datasets",
]


@hookimpl
def register_datasets(register: Callable[[type[DatasetPlugin]], None]) -> None:
    """Register vqa1, vqa2, vqax-vqa and toyvqa-half."""
    for cls in (VQA1, VQA2, VQAXAsVQA, ToyVQAHalf):
        register(cls)
