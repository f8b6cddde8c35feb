"""`toyvqa-mc`: the toy benchmark as a multiple-choice decoy dataset (no download).

Visual7W-style telling questions (color / object / counting, no yes/no; see
toy_telling.py) about the scenes and images of toyvqa (the balanced variant's original
scenes by default, whose colors carry no noun prior). Each question's 3 original decoys
are "human-style" with a deliberate shortcut (odd answers that are never targets), so they
play the role of Visual7W's Orig decoys; IoU and QoU decoys are generated on each split
with the real filters (WordNet WUP).
`toyvqa-mc:decoys=iou+qou` selects the candidate set, so a suite task trains and tests a
model on the same decoy set (supplementary A.4).
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from harness.api import DatasetPlugin, Option
from harness.cache.artifacts import ArtifactStore
from harness.digest import digest
from harness.types import Example
from vqa_harness_plugins.datasets.toyvqa import TOY_ANSWER_FACTORS, TOY_DERIVED_META, ToyVQA
from vqa_harness_plugins.datasets.toyvqa.build import DEFAULT_IMAGES
from vqa_harness_plugins.generators.decoys import VARIANTS

from .mc import (
    GENERATOR_OPTIONS,
    attach_decoys,
    check_orig_decoys,
    decoy_config,
    generated_decoys,
    generation_summary,
    with_generator,
)
from .toy_telling import TELLING_VERSION, telling_examples

__all__ = ["ToyVQAMC", "MC_IMAGES"]

#: Default scenes per split, the first N (by image id) of toyvqa's split: 7 questions each
#: (7,000 train, 2,100 val questions), fewer than toyvqa's so the main job's decoy tasks
#: (5 sets x 4 ablations) stay quick.
MC_IMAGES = {"train": 1000, "val": 300}
_BASE_MEMO: dict[tuple[str, str], list[Example]] = {}


class ToyVQAMC(DatasetPlugin):
    """toyvqa with Orig / IoU / QoU / IoU+QoU / All candidate sets."""

    name = "toyvqa-mc"
    description = "toyvqa as multiple choice with generated IoU/QoU decoys (Chao 2018 on the toy world)"
    release = "embedded: generated on first use (nothing to download)"
    provides = frozenset({"answers", "answer_type", "question_type", "label", "choices"})
    #: The toy generator's question- and image-derived meta (removed by ablations).
    derived_meta = TOY_DERIVED_META
    #: Answers are decided by the exact colour and shape named (harness.run.assumptions).
    answers_depend_on = TOY_ANSWER_FACTORS
    splits: ClassVar[tuple[str, ...]] = ("train", "val")
    options: ClassVar[Mapping[str, Option]] = {
        "decoys": Option("orig", "candidate set in `choices`", choices=VARIANTS),
        "variant": Option("balanced", "toyvqa variant whose scenes are asked about (balanced: no color prior)",
                          choices=("unbalanced", "balanced")),
        "seed": Option(0, "toyvqa generation seed", min=0),
        "images": Option(0, f"scenes per split, the first N of toyvqa's (0: train {MC_IMAGES['train']}, "
                         f"val {MC_IMAGES['val']})", min=0, max=200_000),
        **GENERATOR_OPTIONS,
    }

    def _base(self, split: str):
        return ToyVQA(data_dir=self.data_dir, variant=self.config["variant"], seed=self.config["seed"],
                      images=self._images(split))

    def _scenes_wanted(self, split: str) -> int:
        return int(self.config["images"]) or MC_IMAGES.get(split, 0)

    def _images(self, split: str) -> int:
        """toyvqa's `images` option: its default (shared cache) when that has enough scenes."""
        wanted = self._scenes_wanted(split)
        return 0 if wanted <= DEFAULT_IMAGES.get(split, 0) else wanted

    def base_examples(self, split: str) -> list[Example]:
        """Telling questions about toyvqa's original (non-complement) scenes, MC fields in meta.

        Built once (a content-addressed artifact keyed by the toyvqa split, the question-set
        version and the options) and memoized per process."""
        base = self._base(split)
        # No --data-dir in the key: the toy data is generated into the harness cache wherever it is.
        key = {**self.generation_key(split), "seed": int(self.config["seed"])}
        memo = digest(key)
        if memo not in _BASE_MEMO:

            def build() -> list[Example]:
                images = {ex.image_id: ex.image for ex in base.examples(split) if not ex.meta.get("complement")}
                keep = set(sorted(images)[: self._scenes_wanted(split)])  # the first N scenes by id
                scenes = {i: s for i, s in base.scenes(split).items() if i in keep}
                return telling_examples(scenes, images, split=split, seed=int(self.config["seed"]))

            # Shared by every model and run (harness cache), and by the 5 decoy sets of a suite.
            _BASE_MEMO[memo] = ArtifactStore().examples("toyvqa-mc-questions", key, build)
        return list(_BASE_MEMO[memo])

    def generation_key(self, split: str) -> dict[str, Any]:
        """What the generated decoys depend on besides the generator config."""
        base = self._base(split)
        return {"dataset": "toyvqa-mc", "questions": TELLING_VERSION, "split": split,
                "fingerprint": base.fingerprint(split), "scenes": self._scenes_wanted(split)}

    def fingerprint(self, split: str) -> str:
        """Changes with the options, the question set version and the toyvqa split."""
        return with_generator(digest({"dataset": self.name, "config": self.config, **self.generation_key(split)}), True)

    def summary(self, split: str) -> dict[str, Any]:
        """{"generation": statistics of the cached decoy generation} ({} before the first load)."""
        return generation_summary(decoy_config(self.config), self.generation_key(split))

    def load(self, split: str) -> list[Example]:  # type: ignore[override]
        """The split with `choices` = the selected decoy set (generated and cached once)."""
        source = f"toyvqa-mc/{split}"
        base = self.base_examples(split)
        check_orig_decoys(base, source)
        sets = generated_decoys(base, decoy_config(self.config), key=self.generation_key(split), source=source)
        return attach_decoys(base, sets, variant=self.config["decoys"], seed=int(self.config["decoy_seed"]),
                             scoring="target", source=source, allow_partial=True)
