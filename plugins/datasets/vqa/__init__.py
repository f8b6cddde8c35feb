"""Official VQA datasets: `vqa2`, `vqa1`, plus `toyvqa-half` and the toy exporter.

See docs/datasets.md for the `--data-dir` layout and docs/balanced-vqa.md for the suite.
"""

from __future__ import annotations

from .export import ExportResult, export_toy_vqa2, write_vqa2_split
from .half import ToyVQAHalf, VQA2Half, keep_pair_fraction
from .loaders import IMAGE_FOLDERS, SPLIT_TAGS, VQA1, VQA2, OfficialVQA

__all__ = [
    "VQA1",
    "VQA2",
    "OfficialVQA",
    "ToyVQAHalf",
    "VQA2Half",
    "keep_pair_fraction",
    "export_toy_vqa2",
    "write_vqa2_split",
    "ExportResult",
    "SPLIT_TAGS",
    "IMAGE_FOLDERS",
]
