"""Counterfactual questions (Stoikou et al. 2023): probe and suites. See docs/counterfactual.md.

Suites:
- `counterfactual`: offline — the toy benchmark (and the VQA-X subset when its dataset
  plugin is installed);
- `counterfactual-vqa2`: VQA v2 val via the `vqa2` loader; needs `--data-dir`. Kept apart
  because every task of a suite runs, and the main suite must work without downloads.
"""

from __future__ import annotations

from harness.api import Suite, Task
from harness.hookspecs import hookimpl

from .probe import CounterfactualProbe

__all__ = ["CounterfactualProbe", "COUNTERFACTUAL_SUITE", "COUNTERFACTUAL_VQA2_SUITE", "register_probes",
           "register_suites"]

COUNTERFACTUAL_SUITE = Suite(
    name="counterfactual",
    description="Stoikou 2023 counterfactual questions (WordNet and color substitutions) on the toy benchmark",
    tasks=(
        Task("toyvqa:variant=unbalanced", "val", ("counterfactual",),
             train=("toyvqa:variant=unbalanced", "train"), label="unbalanced"),
    ),
)

COUNTERFACTUAL_VQA2_SUITE = Suite(
    name="counterfactual-vqa2",
    description="Stoikou 2023 counterfactual questions on VQA v2 val (needs --data-dir)",
    tasks=(Task("vqa2", "val", ("counterfactual",)),),
)


@hookimpl
def register_probes(register) -> None:
    """Register the counterfactual probe."""
    register(CounterfactualProbe)


@hookimpl
def register_suites(register) -> None:
    """Register the `counterfactual` and `counterfactual-vqa2` suites."""
    register(COUNTERFACTUAL_SUITE)
    register(COUNTERFACTUAL_VQA2_SUITE)
