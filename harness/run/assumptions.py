"""Probes' assumptions about what a dataset means, checked against what the dataset declares.

A probe may assume something of the data for some of its rows: the counterfactual probe
assumes that replacing a colour by a near colour, or a noun by its WordNet parent, keeps the
answer, so a low answer change reads as robustness. That holds on VQA's photographs, not on a
dataset whose answers are decided by the exact colour or shape named (easy-VQA, the toy
world), where a model that ignores the word "wins". So:

- `Probe.assumes` maps a row variant to the answer factor it assumes does NOT decide the
  answers ("color_min_common" -> "color");
- `DatasetPlugin.answers_depend_on` names the factors that do decide the dataset's answers
  (`harness.api.ANSWER_FACTORS`);
- where they meet, the run keeps the rows but takes their better direction away
  (`higher_is_better` None: no "best", no "most robust" in any table), tags the task's rows
  (`assumptions_not_met`), and says so in the report and on the terminal.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

from ..api import ANSWER_FACTORS, Probe
from ..inputs import ASSUMPTIONS_TAG
from ..types import ResultRow

__all__ = ["TAG", "unmet_assumptions", "neutralize", "explain"]

#: Row tag naming the variants whose assumption the dataset does not meet (comma list).
TAG = ASSUMPTIONS_TAG


def unmet_assumptions(probe: type[Probe], dataset: Any) -> dict[str, str]:
    """variant -> factor, for the probe's assumptions the dataset's declaration contradicts."""
    depends = frozenset(getattr(dataset, "answers_depend_on", None) or ())
    assumes: Mapping[str, str] = getattr(probe, "assumes", None) or {}
    return {variant: factor for variant, factor in assumes.items() if factor in depends}


def neutralize(rows: Sequence[ResultRow], unmet: Mapping[str, str]) -> list[ResultRow]:
    """The rows of unmet variants without a better direction; the others unchanged."""
    if not unmet:
        return list(rows)
    return [replace(r, higher_is_better=None) if r.variant in unmet else r for r in rows]


def explain(probe: str, dataset: Any, unmet: Mapping[str, str]) -> str:
    """One line saying which assumption does not hold, and what the run did about it."""
    by_factor: dict[str, list[str]] = {}
    for variant, factor in sorted(unmet.items()):
        by_factor.setdefault(factor, []).append(variant)
    said = "; ".join(f"{', '.join(variants)} assume(s) that {ANSWER_FACTORS.get(factor, factor)} does not decide "
                     "the answer" for factor, variants in by_factor.items())
    return (f"probe {probe!r}: dataset {getattr(dataset, 'name', '?')!r} declares that its answers depend on "
            f"{', '.join(sorted(set(unmet.values())))}, but {said}: those rows are kept without a better "
            "direction (never ranked best or most robust)")
