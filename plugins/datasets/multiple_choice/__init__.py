"""Decoy datasets (Chao et al. 2018): `visual7w`, `visual-genome-qa`, `vqa1-mc`, `vqa2-mc`
and the toy `toyvqa-mc`. Each offers `decoys=orig|iou|qou|iou+qou|all`. See docs/decoys.md."""

from __future__ import annotations

from .toy import ToyVQAMC
from .vg import VisualGenomeQA, split_images
from .visual7w import Visual7W, released_sets
from .vqa_mc import VQA1MC, VQA2MC

__all__ = ["ToyVQAMC", "Visual7W", "VisualGenomeQA", "VQA1MC", "VQA2MC", "split_images", "released_sets",
           "register_datasets"]
