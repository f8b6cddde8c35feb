"""Plugin `balanced`: Goyal et al. 2017, "Making the V in VQA Matter" (docs/balanced-vqa.md).

Probes `balanced-accuracy` (Tables 1 and 3), `pairs` (§4), `language-prior` (§3) and
`counter-examples` (§5, Table 4); the toy `toyvqa-half` dataset (B_half); the toy
`balanced-vqa` suite. Data: the `vqa` plugin's `vqa1` / `vqa2`.
"""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .datasets.vqa import ToyVQAHalf
from .probes.balanced import (
    BALANCED_SUITE,
    BalancedAccuracyProbe,
    CounterExampleProbe,
    LanguagePriorAudit,
    PairProbe,
)


@hookimpl
def register_datasets(register) -> None:
    """Register `toyvqa-half`."""
    register(ToyVQAHalf)


@hookimpl
def register_probes(register) -> None:
    """Register the balanced-VQA probes."""
    for cls in (BalancedAccuracyProbe, PairProbe, LanguagePriorAudit, CounterExampleProbe):
        register(cls)


@hookimpl
def register_suites(register) -> None:
    """Register `balanced-vqa` (toy)."""
    register(BALANCED_SUITE)
