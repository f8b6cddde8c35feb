"""Decoy-set variants and the model-free shortcut audit (Chao et al. 2018, §3.2, §5.2).

Variants: Orig (the dataset's decoys), IoU, QoU, IoU+QoU, All (Orig + IoU + QoU). The
candidate list is the target plus the variant's decoys, de-duplicated after normalization
and shuffled by a seeded RNG per (example, variant), so the target's position carries no
signal.

Eq. 2 rule: P(correct | C) = #C as target / (#C as target + #C as decoy / K), 0.5 for an
answer never seen in training; K is the example's number of decoys (each decoy occurrence
counts 1/K). The rule picks the argmax; ties are scored by their exact expectation
(1/|ties| when the target is among them), so no random pick enters the number.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

from harness.seeding import seeded_random

from .text import normalize_for_match

__all__ = ["VARIANTS", "VARIANT_LABELS", "variant_parts", "variant_choices", "Eq2Rule", "eq2_rule", "neutrality"]

VARIANTS = ("orig", "iou", "qou", "iou+qou", "all")
VARIANT_LABELS: Mapping[str, str] = {"orig": "Orig", "iou": "IoU", "qou": "QoU", "iou+qou": "IoU+QoU", "all": "All"}
_PARTS: Mapping[str, tuple[str, ...]] = {
    "orig": ("orig",), "iou": ("iou",), "qou": ("qou",), "iou+qou": ("iou", "qou"), "all": ("orig", "iou", "qou"),
}


def variant_parts(variant: str) -> tuple[str, ...]:
    """The decoy sets ("orig", "iou", "qou") a variant combines; () for an unknown name."""
    return _PARTS.get(variant, ())


def variant_choices(target: str, decoys: Mapping[str, Sequence[str]], variant: str, *, key: str,
                    seed: int = 0) -> tuple[str, ...]:
    """Target + the variant's decoys (de-duplicated, target first removed), seeded shuffle."""
    if variant not in _PARTS:
        raise ValueError(f"unknown decoy variant {variant!r}; variants: {', '.join(VARIANTS)}")
    seen = {normalize_for_match(target)}
    out = [target]
    for part in _PARTS[variant]:
        for d in decoys.get(part, ()):
            n = normalize_for_match(d)
            if n not in seen:
                seen.add(n)
                out.append(d)
    seeded_random("mc", seed, variant, key).shuffle(out)
    return tuple(out)


@dataclass(frozen=True)
class Eq2Rule:
    """Answer-frequency statistics counted on a training set."""

    as_target: Mapping[str, float]
    as_decoy: Mapping[str, float]  # already divided by K per occurrence

    def p_correct(self, candidate: str) -> float:
        c = normalize_for_match(candidate)
        t, d = self.as_target.get(c, 0.0), self.as_decoy.get(c, 0.0)
        if t == 0.0 and d == 0.0:
            return 0.5
        return t / (t + d)

    def picks(self, choices: Sequence[str]) -> list[str]:
        """The candidates the rule picks: those of highest `p_correct` (ties all kept)."""
        scores = [self.p_correct(c) for c in choices]
        return [c for c, s in zip(choices, scores) if s == max(scores)]

    def expected_hit(self, choices: Sequence[str], target: str) -> float:
        """1/|argmax ties| when the target is among the argmax candidates, else 0."""
        tied = [normalize_for_match(c) for c in self.picks(choices)]
        return 1.0 / len(tied) if normalize_for_match(target) in tied else 0.0


def eq2_rule(items: Sequence[tuple[Sequence[str], str]]) -> Eq2Rule:
    """Count targets and decoys over (choices, target) pairs (Eq. 2 of the paper)."""
    as_target: Counter[str] = Counter()
    as_decoy: dict[str, float] = {}
    for choices, target in items:
        t = normalize_for_match(target)
        as_target[t] += 1
        decoys = [normalize_for_match(c) for c in choices if normalize_for_match(c) != t]
        for d in decoys:
            as_decoy[d] = as_decoy.get(d, 0.0) + 1.0 / len(decoys)
    return Eq2Rule(dict(as_target), as_decoy)


def neutrality(items: Sequence[tuple[Sequence[str], str]]) -> dict[str, float]:
    """How equally answers serve as targets and decoys (Neutrality, §3.2).

    - `decoy_use_vs_chance`: mean decoy appearances of the target answers divided by the
      chance level (all decoy slots / distinct targets); 1 is neutral (the paper: 7.2 / 10.7
      on Visual7W train).
    - `decoys_never_target`: share of decoy occurrences whose answer is never a target.
    - `mean_abs_dev`: occurrence-weighted mean |P(correct | C) - 0.5| of Eq. 2 (0 neutral).
    """
    rule = eq2_rule(items)
    targets = Counter(normalize_for_match(t) for _, t in items)
    decoy_counts: Counter[str] = Counter()
    for choices, target in items:
        t = normalize_for_match(target)
        decoy_counts.update(n for c in choices if (n := normalize_for_match(c)) != t)
    slots = sum(decoy_counts.values())
    out: dict[str, float] = {}
    if targets and slots:
        chance = slots / len(targets)
        mean_use = sum(decoy_counts.get(t, 0) for t in targets) / len(targets)
        out["decoy_use_vs_chance"] = mean_use / chance
        out["decoys_never_target"] = sum(c for d, c in decoy_counts.items() if d not in targets) / slots
        total, dev = 0.0, 0.0
        for ans in sorted(set(targets) | set(decoy_counts)):  # sorted: float sums independent of hash seed
            w = targets.get(ans, 0) + decoy_counts.get(ans, 0)
            total += w
            dev += w * abs(rule.p_correct(ans) - 0.5)
        out["mean_abs_dev"] = dev / total
    return out
