"""Knowledge-based counterfactual question perturbations (Stoikou et al. 2023, DESIGN §4.5).

    from vqa_harness_plugins.generators.counterfactual import Perturber, colors_in
    p = Perturber(common_colors=colors_in(questions_and_answers), seed=0, mode="paper")
    p.perturb("Do you see the white small dog?")["hypernym_noun"].counterfactual
    # 'Do you see the white small canine?'

Modes: "paper" (Stoikou et al. as described) and "quality" (the default: senses in
context, common words, lemminflect, tag/compound checks, whole-phrase deletion).

Kinds (`KIND_NAMES`): color maximal/minimal with common/uncommon replacements (CIEDE2000
over matplotlib's CSS4 named colors), synonym adjective/verb, hypernym/hyponym/sibling
noun (WordNet 3.0), noun deletion. Every choice is deterministic; see lexical.py,
colors.py, inflect.py and generator.py for the rules and docs/counterfactual.md.
"""

from __future__ import annotations

from .colors import BASIC_COLORS, ColorSpace, delta_e2000, named_colors, srgb_to_lab
from .generator import (
    DEFAULT_MODE,
    MODES,
    QUALITY_SKIP_REASONS,
    SKIP_REASONS,
    Perturbation,
    Perturber,
    colors_in,
    perturb_many,
    skip_reasons,
)
from .kinds import COLOR_KINDS, KIND_NAMES, KINDS, WORDNET_KINDS, Kind, resolve_kinds
from .text import Token, tokenize

__all__ = [
    "BASIC_COLORS",
    "DEFAULT_MODE",
    "MODES",
    "QUALITY_SKIP_REASONS",
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
    "skip_reasons",
    "srgb_to_lab",
    "tokenize",
]
