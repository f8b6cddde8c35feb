"""toyvqa: a deterministic, procedurally generated VQA benchmark that needs no download.

Scenes of 2-5 colored glyphs (ball, box, ring, star, pyramid, cross, bowl, cup), four
question families (existence, counting, color, object), 10 simulated human answers, 3
reference explanations and 4 multiple-choice candidates per question, in an unbalanced
(VQA v1-like) and a balanced (VQA v2-like, complementary image pairs) variant.
See docs/toyvqa.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping

from harness.api import DatasetPlugin, Option
from harness.digest import digest
from harness.errors import DataError, UsageError
from harness.types import Example

from .build import (
    DEFAULT_IMAGES,
    DEFAULT_SIZE,
    GENERATOR_VERSION,
    TOY_ANSWER_FACTORS,
    TOY_DERIVED_META,
    VARIANTS,
    ToySplit,
    generate,
    load_or_generate,
    read_scenes,
)
from .questions import answer_question, parse
from .world import COLORS, NOUN_SENSES, NOUNS, SIZES, Scene

__all__ = [
    "ToyVQA",
    "ToySplit",
    "Scene",
    "GENERATOR_VERSION",
    "TOY_DERIVED_META",
    "TOY_ANSWER_FACTORS",
    "NOUNS",
    "NOUN_SENSES",
    "COLORS",
    "SIZES",
    "generate",
    "answer_question",
    "parse",
    
]


class ToyVQA(DatasetPlugin):
    """The embedded toy VQA world (generated on first use, then read from the user cache)."""

    name = "toyvqa"
    description = "procedural toy VQA: balanced/unbalanced, 10 answers, explanations, MC"
    release = "embedded: generated on first use (nothing to download)"
    provides = frozenset({"answers", "answer_type", "question_type", "label", "choices", "explanations", "pair_id"})
    #: What the generator computed from the question (its family, referent and template) and
    #: from the image pair (the edit): removed with the input by an ablation (harness.inputs).
    derived_meta = TOY_DERIVED_META
    #: Answers are decided by the exact colour and shape named (harness.run.assumptions).
    answers_depend_on = TOY_ANSWER_FACTORS
    splits: ClassVar[tuple[str, ...]] = ("train", "val")
    options: ClassVar[Mapping[str, Option]] = {
        "variant": Option("unbalanced", "unbalanced (VQA v1-like priors) or balanced "
                          "(complementary image pairs, VQA v2-like)", choices=VARIANTS),
        "seed": Option(0, "generation seed", min=0),
        "images": Option(0, "generated scenes per split (0: train "
                         f"{DEFAULT_IMAGES['train']}, val {DEFAULT_IMAGES['val']})", min=0, max=200_000),
        "size": Option(DEFAULT_SIZE, "image side in pixels", min=24, max=1024),  # the generator's least (build.py)
    }

    def _check_split(self, split: str) -> None:
        if split not in self.splits:
            raise UsageError(f"dataset 'toyvqa' has no split {split!r}; "
                             f"splits: {', '.join(self.splits)}")

    def _args(self) -> dict[str, Any]:
        c = self.config
        return {"images": int(c["images"]) or None, "size": int(c["size"])}

    def examples(self, split: str) -> list[Example]:
        """The split as Examples (generated and cached on first use)."""
        self._check_split(split)
        examples, _ = load_or_generate(self.config["variant"], split, int(self.config["seed"]),
                                       **self._args())
        return examples

    def load(self, split: str) -> list[Example]:  # type: ignore[override]
        """The split's Examples, read from the generator's cache (generated on first use)."""
        return self.examples(split)

    def scenes(self, split: str) -> dict[str, Scene]:
        """The scene behind every image id of the split (ground truth for any toy question)."""
        self._check_split(split)
        _, folder = load_or_generate(self.config["variant"], split, int(self.config["seed"]),
                                     **self._args())
        return read_scenes(folder)

    def oracle(self, split: str) -> Callable[[str, str], str | None]:
        """`answer(image_id, question)`: the true answer of any question in the toy language
        (e.g. a counterfactual edit of a dataset question), or None outside it."""
        scenes = self.scenes(split)

        def answer(image_id: str, question: str) -> str | None:
            try:
                scene = scenes[image_id]
            except KeyError:
                raise DataError(f"toyvqa {split}: unknown image_id {image_id!r}") from None
            return answer_question(scene, question)

        return answer

    def fingerprint(self, split: str) -> str:
        """Changes with the split, the options and the generator version."""
        return digest({"dataset": self.name, "split": split, "config": self.config, "generator": GENERATOR_VERSION})

    def expected_files(self, split: str) -> list[Path]:
        return []
