"""Counterfactual questions (Stoikou et al. 2023): probe and suites. See docs/counterfactual.md.

Suites:
- `counterfactual`: offline — the toy benchmark;
- `counterfactual-vqax`: the real VQA v2 questions of VQA-X val (`vqa-x`), with
  `--data-dir` holding `vqax/vqaX_val.json` (e.g. `--data-dir ../shared/data`);
- `counterfactual-vqax-dev`: the same questions for trainable models when only VQA-X val is
  at hand (no vqaX_train.json): fit on a seeded by-image half of val (`val-fit`), ask the
  other half (`val-eval`), as `e-vil-dev` does;
- `counterfactual-vqa2`: VQA v2 val via the `vqa2` loader; needs `--data-dir`.
The real-data suites are kept apart because every task of a suite runs: the main suite
must work offline with no data folder. Every suite uses the probe's default generator,
the quality mode (probe option `mode`: quality or paper; docs/counterfactual.md).
"""

from __future__ import annotations

from harness.api import Suite, Task

from .probe import CounterfactualProbe

__all__ = ["CounterfactualProbe", "COUNTERFACTUAL_SUITE", "COUNTERFACTUAL_VQAX_SUITE",
           "COUNTERFACTUAL_VQAX_DEV_SUITE", "COUNTERFACTUAL_VQA2_SUITE"]

COUNTERFACTUAL_SUITE = Suite(
    toy=True,
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
    tasks=(Task("vqa-x", "val", ("counterfactual",)),),
)

COUNTERFACTUAL_VQAX_DEV_SUITE = Suite(
    name="counterfactual-vqax-dev",
    description="Stoikou 2023 counterfactual questions on VQA-X val only: trainable models fit on a seeded "
                "by-image half, the other half is asked (needs --data-dir)",
    tasks=(Task("vqa-x", "val-eval", ("counterfactual",), train=("vqa-x", "val-fit"), label="VQA-X val halves"),),
)

COUNTERFACTUAL_VQA2_SUITE = Suite(
    name="counterfactual-vqa2",
    description="Stoikou 2023 counterfactual questions on VQA v2 val (needs --data-dir)",
    tasks=(Task("vqa2", "val", ("counterfactual",)),),
)
