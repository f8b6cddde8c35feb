"""Plugin `e-vil`: Kayser et al. 2021, "e-ViL" (docs/e-vil.md).

Datasets `e-snli-ve`, `vqa-x`, `vcr`; explainer baselines (`retrieval-explainer`,
`template-explainer`, `hypothesis-only`); the `nle` probe (S_T, S_E, S_O and the NLG
metrics); suites `e-vil`, `e-vil-dev` and the toy `e-vil-toy`; `harness nle` (human
evaluation round trip).
"""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .datasets.e_vil import ESNLIVE, VCR, VQAX
from .models.explainers import HypothesisOnly, RetrievalExplainer, TemplateExplainer
from .probes.e_vil import EVIL_DEV_SUITE, EVIL_SUITE, EVIL_TOY_SUITE, NLEProbe
from .probes.e_vil.command import nle


@hookimpl
def register_datasets(register) -> None:
    """Register `e-snli-ve`, `vqa-x` and `vcr`."""
    for cls in (ESNLIVE, VQAX, VCR):
        register(cls)


@hookimpl
def register_models(register) -> None:
    """Register the explainer baselines."""
    for cls in (RetrievalExplainer, TemplateExplainer, HypothesisOnly):
        register(cls)


@hookimpl
def register_probes(register) -> None:
    """Register `nle`."""
    register(NLEProbe)


@hookimpl
def register_suites(register) -> None:
    """Register `e-vil`, `e-vil-dev` and `e-vil-toy`."""
    for suite in (EVIL_SUITE, EVIL_DEV_SUITE, EVIL_TOY_SUITE):
        register(suite)


@hookimpl
def register_commands(register) -> None:
    """Register `harness nle`."""
    register(nle)
