"""Probes' assumptions about what a dataset means (`Probe.assumes`: variant -> a factor that
does NOT decide the answers), checked against what the dataset declares does
(`DatasetPlugin.answers_depend_on`, among `harness.api.ANSWER_FACTORS`). Where they meet, the
run keeps the rows without a better direction, tags the task's rows and says so
(docs/counterfactual.md, "What the directions assume")."""

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
    return [replace(r, higher_is_better=None) if r.variant in unmet else r for r in rows]


def explain(probe: str, dataset: Any, unmet: Mapping[str, str]) -> str:
    """One line saying which assumption does not hold, and what the run did about it."""
    by_factor: dict[str, list[str]] = {}
    for variant, factor in sorted(unmet.items()):
        by_factor.setdefault(factor, []).append(variant)
    said = "; ".join(f"{', '.join(variants)} assume(s) that {ANSWER_FACTORS.get(factor, factor)} "
                     "does not decide the answer" for factor, variants in by_factor.items())
    return (f"probe {probe!r}: dataset {getattr(dataset, 'name', '?')!r} declares that its answers "
            f"depend on {', '.join(sorted(set(unmet.values())))}, but {said}: those rows are kept "
            "without a better direction (never ranked best or most robust)")
