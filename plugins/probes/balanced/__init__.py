"""Balanced VQA probes and the `balanced-vqa` suite (Goyal et al. 2017; docs/balanced-vqa.md).

Probes: `balanced-accuracy` (official VQA accuracy laid out as Goyal Tables 1 and 3),
`pairs` (complementary-pair analysis), `language-prior` (model-free audit),
`counter-examples` (Recall@5 of the complementary image).
"""

from __future__ import annotations

from harness.api import Display, Layout, ProbeContext, Suite, Task
from harness.types import ResultRow
from vqa_harness_plugins.probes.accuracy import AccuracyProbe

from .audit import LanguagePriorAudit
from .counterexamples import CounterExampleProbe
from .display import BALANCED_DISPLAY
from .pairs import PairProbe
from .tables import GOYAL_LAYOUTS, cell_name, condition

__all__ = [
    "BalancedAccuracyProbe",
    "PairProbe",
    "LanguagePriorAudit",
    "CounterExampleProbe",
    "BALANCED_SUITE",
    "balanced_suite",
    "condition",
    
    
]


class BalancedAccuracyProbe(AccuracyProbe):
    """The accuracy probe, with the Goyal Table 1 / Table 3 leaderboard layout."""

    name = "balanced-accuracy"
    headline = (("vqa_accuracy", ""),)
    description = "official VQA accuracy laid out by train/test condition (Goyal Tables 1 and 3)"

    def run(self, ctx: ProbeContext) -> list[ResultRow]:
        ctx.tag("condition", cell_name(ctx.train, ctx.dataset))
        return super().run(ctx)

    @classmethod
    def layouts(cls) -> tuple[Layout, ...]:
        return GOYAL_LAYOUTS

    @classmethod
    def display(cls) -> Display:
        return BALANCED_DISPLAY


def balanced_suite(images: int = 0, name: str = "balanced-vqa") -> Suite:
    """Goyal Table 1/3 on the toy benchmark: train condition x test condition (UU, UB,
    B_half B, BB). `images` > 0 makes a smaller toy world (tests). Tasks that share a train
    set are adjacent, so a trainable model is fitted once per train set."""
    extra = f",images={images}" if images else ""
    unbalanced = f"toyvqa:variant=unbalanced{extra}"
    balanced = f"toyvqa:variant=balanced{extra}"
    half = f"toyvqa-half:images={images}" if images else "toyvqa-half"
    return Suite(
        toy=True,
        name=name,
        description="Goyal et al. 2017 on the toy benchmark: UU/UB/B_half B/BB accuracy, complementary "
                    "pairs, language-prior audit, counter-example Recall@5",
        tasks=(
            Task(unbalanced, "val", ("balanced-accuracy", "language-prior"), train=(unbalanced, "train"), label="UU"),
            Task(balanced, "val", ("balanced-accuracy", "pairs", "counter-examples"), train=(unbalanced, "train"),
                 label="UB"),
            Task(balanced, "val", ("balanced-accuracy", "pairs"), train=(half, "train"), label="B_half B"),
            Task(balanced, "val", ("balanced-accuracy", "pairs", "language-prior", "counter-examples"),
                 train=(balanced, "train"), label="BB"),
        ),
    )


BALANCED_SUITE = balanced_suite()
