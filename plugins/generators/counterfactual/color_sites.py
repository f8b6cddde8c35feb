"""The quality mode's colour counterfactuals of one question (docs/counterfactual.md, rules 8,
23 and 30): every colour word that is a site, outside a fixed expression, replaced by the
colour `Perturber.color_choice` picks for the kind (color_names.py, colors.py)."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from .kinds import Kind
from .perturbation import Perturbation, PerturberView
from .text import Token, match_case, replace_span

__all__ = ["add_colors"]


def add_colors(p: PerturberView, kind: Kind, question: str, tokens: list[Token], sites: Sequence[bool],
               fixed: Sequence[tuple[int, int]], usable: list, rej: Counter) -> None:
    """Append a counterfactual per colour site of `question` to `usable`; count the sites that
    give none in `rej` (`idiom`: inside a fixed expression of `fixed`; `color_in_question`,
    `no_replacement` or `color_distance`: no colour of the kind is left)."""
    present = tuple(sorted({t.text.lower() for t, ok in zip(tokens, sites) if ok}))
    for i, tok in enumerate(tokens):
        if not sites[i]:
            continue
        low = tok.text.lower()
        if any(a <= i <= b for a, b in fixed):
            rej["idiom"] += 1  # "black tie event", "red light", "black and white"
            continue
        found = p.color_choice(low, kind, present)
        if found is None:
            # no similar colour of the same kind within reach (color_names.py): "color_distance"
            rej["color_in_question" if p.color_choice(low, kind) else
                "no_replacement" if kind.maximal else "color_distance"] += 1
            continue
        color, dist = found
        new = match_case(tok.text, color)
        usable.append(Perturbation(kind.id, question, replace_span(question, tokens, i, i, new), i, tok.text,
                                   new, low, color, f"ΔE2000={dist:.2f}"))
