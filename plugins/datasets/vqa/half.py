"""Dataset plugin `toyvqa-half`: the balanced toy variant with a seeded half of its pairs.

Goyal et al. (Table 1, 3) train on "B_half", a balanced train set about the size of the
unbalanced one, to separate the effect of balance from the effect of size. Here it is
the toy `balanced` variant with `fraction` (default 0.5) of its complementary pairs kept,
chosen by a seeded shuffle of the pair keys; both questions of a kept pair stay, so every
`pair_id` still points at a present question.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Mapping

from harness.api import DatasetPlugin, Option
from harness.errors import UsageError
from harness.seeding import seeded_random
from harness.types import Example

if TYPE_CHECKING:  # pragma: no cover
    import datasets

__all__ = ["ToyVQAHalf", "keep_pair_fraction"]


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
        from vqa_harness_plugins.datasets.toyvqa import ToyVQA

        toy = ToyVQA(variant="balanced", seed=self.config["seed"], images=self.config["images"],
                     size=self.config["size"])
        return keep_pair_fraction(toy.examples(split), float(self.config["fraction"]),
                                  int(self.config["pair_seed"]))

    def load(self, split: str) -> "datasets.Dataset":
        """The split as a `datasets.Dataset` of `Example.to_row()` rows."""
        import datasets

        return datasets.Dataset.from_list([ex.to_row() for ex in self.examples(split)])

    def fingerprint(self, split: str) -> str:
        """Changes with the options and the toy generator version."""
        from harness.digest import digest as _digest
        from vqa_harness_plugins.datasets.toyvqa import GENERATOR_VERSION

        return _digest({"dataset": self.name, "split": split, "config": self.config,
                        "generator": GENERATOR_VERSION})
