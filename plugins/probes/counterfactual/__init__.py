"""Counterfactual questions (Stoikou et al. 2023): probe and suites. See docs/counterfactual.md.

Suites:
- `counterfactual`: offline — the toy benchmark;
- `counterfactual-vqax`: the real VQA v2 questions of VQA-X val (`vqax-vqa`), with
  `--data-dir` holding `vqax/vqaX_val.json` (e.g. `--data-dir ../shared/data`);
- `counterfactual-vqa2`: VQA v2 val via the `vqa2` loader; needs `--data-dir`.
The real-data suites are kept apart because every task of a suite runs: the main suite
must work offline with no data folder.
"""

from __future__ import annotations

from harness.api import Suite, Task
from harness.hookspecs import hookimpl

from .probe import CounterfactualProbe

__all__ = ["CounterfactualProbe", "COUNTERFACTUAL_SUITE", "COUNTERFACTUAL_VQAX_SUITE",
           "COUNTERFACTUAL_VQA2_SUITE", "register_probes", "register_suites"]

COUNTERFACTUAL_SUITE = Suite(
    name="counterfactual",
    description="Stoikou 2023 counterfactual questions (WordNet and color substitutions) on the toy benchmark",
    tasks=(
        Task("toyvqa:variant=unbalanced", "val", ("counterfactual",),
             train=("toyvqa:variant=unbalanced", "train"), label="unbalanced"),
    ),
)

COUNTERFACTUAL_VQAX_SUITE = Suite(
    name="counterfactual-vqax",
    description="Stoikou 2023 counterfactual questions on the VQA v2 questions of VQA-X val (needs --data-dir)",
    tasks=(Task("vqax-vqa", "val", ("counterfactual",)),),
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
    """Register the `counterfactual`, `counterfactual-vqax` and `counterfactual-vqa2` suites."""
    register(COUNTERFACTUAL_SUITE)
    register(COUNTERFACTUAL_VQAX_SUITE)
    register(COUNTERFACTUAL_VQA2_SUITE)
