"""Knowledge-based counterfactual question perturbations (Stoikou et al. 2023, DESIGN §4.5).

    from harness.counterfactual import Perturber, colors_in
    p = Perturber(common_colors=colors_in(questions_and_answers), seed=0)
    p.perturb("Do you see the white small dog?")["hypernym_noun"].counterfactual
    # 'Do you see the white small canine?'

Kinds (`KIND_NAMES`): color maximal/minimal with common/uncommon replacements (CIEDE2000
over matplotlib's CSS4 named colors), synonym adjective/verb, hypernym/hyponym/sibling
noun (WordNet 3.0), noun deletion. Every choice is deterministic; see lexical.py,
colors.py, inflect.py and generator.py for the rules and docs/counterfactual.md.
"""

from __future__ import annotations

from .colors import BASIC_COLORS, ColorSpace, delta_e2000, named_colors, srgb_to_lab
from .generator import SKIP_REASONS, Perturbation, Perturber, colors_in, perturb_many
from .kinds import COLOR_KINDS, KIND_NAMES, KINDS, WORDNET_KINDS, Kind, resolve_kinds
from .text import Token, tokenize

__all__ = [
    "BASIC_COLORS",
    "COLOR_KINDS",
    "ColorSpace",
    "KINDS",
    "KIND_NAMES",
    "Kind",
    "Perturbation",
    "Perturber",
    "SKIP_REASONS",
    "Token",
    "WORDNET_KINDS",
    "colors_in",
    "delta_e2000",
    "named_colors",
    "perturb_many",
    "resolve_kinds",
    "srgb_to_lab",
    "tokenize",
]
