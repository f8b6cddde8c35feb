"""Plugin `counterfactual`: Stoikou et al. 2023, knowledge-based counterfactual questions
(docs/counterfactual.md).

The `counterfactual` probe, suites `counterfactual` (toy), `counterfactual-vqax`,
`counterfactual-vqax-dev` and `counterfactual-vqa2`, and `harness perturb`. The generator itself is
`vqa_harness_plugins.generators.counterfactual` (WordNet, tagger and colours are core resources).
"""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .probes.counterfactual import (
    COUNTERFACTUAL_SUITE,
    COUNTERFACTUAL_VQA2_SUITE,
    COUNTERFACTUAL_VQAX_DEV_SUITE,
    COUNTERFACTUAL_VQAX_SUITE,
    CounterfactualProbe,
)
from .probes.counterfactual.command import perturb


@hookimpl
def register_probes(register) -> None:
    """Register `counterfactual`."""
    register(CounterfactualProbe)


@hookimpl
def register_suites(register) -> None:
    """Register the counterfactual suites."""
    for suite in (COUNTERFACTUAL_SUITE, COUNTERFACTUAL_VQAX_SUITE, COUNTERFACTUAL_VQAX_DEV_SUITE,
                  COUNTERFACTUAL_VQA2_SUITE):
        register(suite)


@hookimpl
def register_commands(register) -> None:
    """Register `harness perturb`."""
    register(perturb)
