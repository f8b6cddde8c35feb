"""Balanced VQA probes and the `balanced-vqa` suite (Goyal et al. 2017; docs/balanced-vqa.md).

Probes: `balanced-accuracy` (official VQA accuracy laid out as Goyal Tables 1 and 3),
`pairs` (complementary-pair analysis), `language-prior` (model-free audit),
`counter-examples` (Recall@5 of the complementary image).
"""

from __future__ import annotations

from typing import Callable

from harness.api import Probe, Suite, Table, Task
from harness.hookspecs import hookimpl
from vqa_harness_plugins.probes.accuracy import AccuracyProbe

from .audit import LanguagePriorAudit
from .counterexamples import CounterExampleProbe
from .pairs import PairProbe
from .tables import condition, goyal_tables

__all__ = [
    "BalancedAccuracyProbe",
    "PairProbe",
    "LanguagePriorAudit",
    "CounterExampleProbe",
    "BALANCED_SUITE",
    "condition",
    "register_probes",
    "register_suites",
]


class BalancedAccuracyProbe(AccuracyProbe):
    """The accuracy probe, with the Goyal Table 1 / Table 3 leaderboard layout."""

    name = "balanced-accuracy"
    description = "official VQA accuracy laid out by train/test condition (Goyal Tables 1 and 3)"

    @classmethod
    def tables(cls, rows) -> list[Table] | None:
        return goyal_tables(rows)


UNBALANCED = "toyvqa:variant=unbalanced"
BALANCED = "toyvqa:variant=balanced"
HALF = "toyvqa-half"

#: Goyal Table 1/3 on the toy benchmark: train condition x test condition. Tasks that share
#: a train set are adjacent, so a trainable model is fitted once per train set.
BALANCED_SUITE = Suite(
    name="balanced-vqa",
    description="Goyal et al. 2017 on the toy benchmark: UU/UB/B_half B/BB accuracy, complementary "
                "pairs, language-prior audit, counter-example Recall@5",
    tasks=(
        Task(UNBALANCED, "val", ("balanced-accuracy", "language-prior"), train=(UNBALANCED, "train"), label="UU"),
        Task(BALANCED, "val", ("balanced-accuracy", "pairs", "counter-examples"), train=(UNBALANCED, "train"),
             label="UB"),
        Task(BALANCED, "val", ("balanced-accuracy", "pairs"), train=(HALF, "train"), label="B_half B"),
        Task(BALANCED, "val", ("balanced-accuracy", "pairs", "language-prior", "counter-examples"),
             train=(BALANCED, "train"), label="BB"),
    ),
)


@hookimpl
def register_probes(register: Callable[[type[Probe]], None]) -> None:
    """Register the balanced-VQA probes."""
    for cls in (BalancedAccuracyProbe, PairProbe, LanguagePriorAudit, CounterExampleProbe):
        register(cls)


@hookimpl
def register_suites(register: Callable[[Suite], None]) -> None:
    """Register the `balanced-vqa` suite."""
    register(BALANCED_SUITE)
