"""Goyal's B_half: `vqa2-half` (VQA v2) and `toyvqa-half` (the toy world), balanced data with a
seeded half of its complementary pairs.

Goyal et al. (Tables 1, 3) train on "B_half", a balanced train set about the size of the
unbalanced one, to separate the effect of balance from the effect of size: VQA v2 with half
of its complementary pairs. Here `fraction` (default 0.5) of the pairs are kept, chosen by
a seeded shuffle of the pair keys; both questions of a kept pair stay, so every `pair_id`
still points at a present question, and questions outside any pair are dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Mapping

from harness.api import DatasetPlugin, Option
from harness.data.session import to_examples
from harness.digest import digest
from harness.digest import digest as _digest
from harness.errors import UsageError
from harness.seeding import seeded_random
from harness.types import Example
from vqa_harness_plugins.datasets.toyvqa import (
    GENERATOR_VERSION,
    TOY_ANSWER_FACTORS,
    TOY_DERIVED_META,
    ToyVQA,
)

from .loaders import VQA2

__all__ = ["ToyVQAHalf", "VQA2Half", "keep_pair_fraction"]


def keep_pair_fraction(examples: list[Example], fraction: float, seed: int) -> list[Example]:
    """Keep `fraction` of the complementary pairs (seeded); unpaired examples are dropped."""
    if not 0.0 < fraction <= 1.0:
        raise UsageError(f"toyvqa-half: fraction={fraction} must be in (0, 1]")
    ids = {ex.id for ex in examples}
    keys = sorted({tuple(sorted((ex.id, ex.pair_id))) for ex in examples if ex.pair_id in ids})
    rng = seeded_random("toyvqa-half", seed)
    rng.shuffle(keys)
    kept = {q for key in keys[: round(len(keys) * fraction)] for q in key}
    return [ex for ex in examples if ex.id in kept]


class ToyVQAHalf(DatasetPlugin):
    """The balanced toy variant, half of its complementary pairs (Goyal's B_half)."""

    name = "toyvqa-half"
    description = "toyvqa balanced with a seeded fraction (default half) of its complementary pairs"
    release = "embedded: generated on first use (nothing to download)"
    provides = frozenset({"answers", "answer_type", "question_type", "label", "choices", "explanations", "pair_id"})
    #: The toy generator's question- and image-derived meta (removed by ablations).
    derived_meta = TOY_DERIVED_META
    #: Answers are decided by the exact colour and shape named (harness.run.assumptions).
    answers_depend_on = TOY_ANSWER_FACTORS
    splits: ClassVar[tuple[str, ...]] = ("train", "val")
    options: ClassVar[Mapping[str, Option]] = {
        "seed": Option(0, "toyvqa generation seed", min=0),
        "images": Option(0, "toyvqa scenes per split (0: toyvqa's default)", min=0, max=200_000),
        "size": Option(64, "toyvqa image side in pixels", min=8, max=1024),
        "fraction": Option(0.5, "share of complementary pairs kept (0, 1]", min=0.0, max=1.0),
        "pair_seed": Option(0, "seed of the choice of kept pairs", min=0),
    }

    def examples(self, split: str) -> list[Example]:
        """The kept examples of `split`."""
        toy = ToyVQA(variant="balanced", seed=self.config["seed"], images=self.config["images"],
                     size=self.config["size"])
        return keep_pair_fraction(toy.examples(split), float(self.config["fraction"]),
                                  int(self.config["pair_seed"]))

    def load(self, split: str) -> list[Example]:  # type: ignore[override]
        """The kept examples of `split`."""
        return self.examples(split)

    def fingerprint(self, split: str) -> str:
        """Changes with the options and the toy generator version."""
        return _digest({"dataset": self.name, "split": split, "config": self.config,
                        "generator": GENERATOR_VERSION})


class VQA2Half(DatasetPlugin):
    """VQA v2 with a seeded fraction (default half) of its complementary pairs: Goyal's B_half."""

    name = "vqa2-half"
    description = "VQA v2 with a seeded half of its complementary pairs (Goyal's B_half train set)"
    release = "the vqa2 files (VQA v2) — https://visualqa.org/download.html"
    provides = frozenset({"answers", "answer_type", "question_type", "label", "pair_id"})
    splits: ClassVar[tuple[str, ...]] = ("train", "val")
    options: ClassVar[Mapping[str, Option]] = {
        "root": Option("", "folder of the VQA v2 JSON files (relative to --data-dir; default vqa2)"),
        "images": Option("", "folder holding the COCO image folders (relative to --data-dir; default coco)"),
        "fraction": Option(0.5, "share of complementary pairs kept (0, 1]", min=0.0, max=1.0),
        "pair_seed": Option(0, "seed of the choice of kept pairs", min=0),
    }

    def _vqa2(self) -> DatasetPlugin:
        return VQA2(data_dir=self.data_dir, root=self.config["root"], images=self.config["images"])

    def expected_files(self, split: str) -> list[Path]:
        return self._vqa2().expected_files(split)

    def image_folders(self) -> list[Path]:
        return list(getattr(self._vqa2(), "image_folders", lambda: [])())

    def load(self, split: str) -> list[Example]:  # type: ignore[override]
        """The kept questions of VQA v2 `split` (both questions of every kept pair)."""
        examples = to_examples(self._vqa2().load(split))
        return keep_pair_fraction(examples, float(self.config["fraction"]), int(self.config["pair_seed"]))

    def fingerprint(self, split: str) -> str:
        return digest({"dataset": self.name, "split": split, "config": self.config,
                       "vqa2": self._vqa2().fingerprint(split)})
