"""The e-ViL combined automatic explanation score (Kayser et al. 2021, §5.2; docs/e-vil.md):
the harmonic mean of BERTScore F1 and NGRAMScore, itself the harmonic mean of ROUGE-L, SPICE,
CIDEr and METEOR, from the corpus-level scores of `.nlg`. Without SPICE it is computed from
the other parts and named `e_vil_score_no_spice`."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from harness.errors import DataError
from harness.stats import ordered_sum

__all__ = ["NGRAM_METRICS", "NEEDED", "harmonic_mean", "combined_metric_name", "e_vil_score", "why_not_combined"]

#: NGRAMScore = harmonic mean of these (Kayser et al. 2021, §5.2).
NGRAM_METRICS: tuple[str, ...] = ("rouge_l", "spice", "cider", "meteor")
#: The parts the combined score cannot do without (without SPICE it is `e_vil_score_no_spice`).
NEEDED: tuple[str, ...] = ("bertscore_f1", "rouge_l", "cider", "meteor")


def harmonic_mean(values: Sequence[float]) -> float:
    """Harmonic mean of non-negative values; 0 when any value is 0 (its limit)."""
    if not values:
        raise DataError("harmonic_mean: no values")
    if any(v < 0 or math.isnan(v) for v in values):
        raise DataError(f"harmonic_mean: values must be non-negative numbers, got {list(values)}")
    if any(v == 0 for v in values):
        return 0.0
    return len(values) / ordered_sum(1.0 / v for v in values)


def combined_metric_name(available: Mapping[str, float] | Sequence[str]) -> str:
    """`e_vil_score`, or `e_vil_score_no_spice` when SPICE is not among the scores."""
    return "e_vil_score" if "spice" in available else "e_vil_score_no_spice"


def e_vil_score(scores: Mapping[str, float]) -> tuple[str, float, tuple[str, ...]] | None:
    """The paper's automatic explanation score: harmonic mean of BERTScore F1 and NGRAMScore
    (harmonic mean of ROUGE-L, SPICE, CIDEr, METEOR), from corpus-level scores.

    Returns (metric name, value, n-gram parts used), computed without SPICE (and named so)
    when SPICE is absent; None when BERTScore or any other part is missing."""
    parts = tuple(m for m in NGRAM_METRICS if m in scores)
    if not set(NEEDED) <= set(scores):
        return None
    ngram = harmonic_mean([scores[m] for m in parts])
    return combined_metric_name(parts), harmonic_mean([scores["bertscore_f1"], ngram]), parts


def why_not_combined(requested: Sequence[str], unavailable: Mapping[str, str]) -> str:
    """Why the combined score is missing although every part it needs was requested: the parts
    that were unavailable ("" when none was, or when a part was not requested)."""
    gone = [m for m in NEEDED if m in unavailable]
    if not gone or not set(NEEDED) <= set(requested):
        return ""
    return (f"needs {', '.join(NEEDED[:-1])} and {NEEDED[-1]}; "
            + "; ".join(f"{m} is unavailable ({unavailable[m]})" for m in gone))
