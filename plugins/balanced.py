"""Plugin `balanced`: Goyal et al. 2017, "Making the V in VQA Matter" (docs/balanced-vqa.md).

Probes `balanced-accuracy` (Tables 1 and 3), `pairs` (§4), `language-prior` (§3) and
`counter-examples` (§5, Table 4); `vqa2-half` and the toy `toyvqa-half` (B_half); the toy
`balanced-vqa` suite and the real-data suites `vqa2` and `goyal`. Data: the `vqa`
plugin's `vqa1` / `vqa2`.
"""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .datasets.vqa import ToyVQAHalf, VQA2Half
from .probes.balanced import (
    BALANCED_SUITE,
    BalancedAccuracyProbe,
    CounterExampleProbe,
    LanguagePriorAudit,
    PairProbe,
)
from .probes.balanced.suites import GOYAL_SUITE, VQA2_SUITE


@hookimpl
def register_datasets(register) -> None:
    """Register `toyvqa-half` and `vqa2-half` (Goyal's B_half)."""
    register(ToyVQAHalf)
    register(VQA2Half)


@hookimpl
def register_probes(register) -> None:
    """Register the balanced-VQA probes."""
    for cls in (BalancedAccuracyProbe, PairProbe, LanguagePriorAudit, CounterExampleProbe):
        register(cls)


@hookimpl
def register_suites(register) -> None:
    """Register `balanced-vqa` (toy), `vqa2` and `goyal` (official files)."""
    for suite in (BALANCED_SUITE, VQA2_SUITE, GOYAL_SUITE):
        register(suite)
