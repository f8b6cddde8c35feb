"""The perturbation kinds (Stoikou 2023, Table 1) and their display names."""

from __future__ import annotations

from dataclasses import dataclass

from harness.errors import UsageError
from harness.registry import did_you_mean

__all__ = ["Kind", "KINDS", "KIND_NAMES", "COLOR_KINDS", "WORDNET_KINDS", "resolve_kinds"]


@dataclass(frozen=True)
class Kind:
    """One perturbation: stable id, the paper's name, the Penn tags it targets."""

    id: str
    label: str
    #: "synonym", "hypernym", "hyponym", "sibling", "delete" or "color".
    relation: str
    #: WordNet part of speech ("a", "v", "n"); "" for colors.
    pos: str
    #: color kinds: farthest (True) or nearest (False) color.
    maximal: bool = False
    #: color kinds: "common" (dataset colors) or "uncommon" (any named color).
    pool: str = ""


KINDS: tuple[Kind, ...] = (
    Kind("color_max_common", "Color Maximal (common)", "color", "", True, "common"),
    Kind("color_max_uncommon", "Color Maximal (uncommon)", "color", "", True, "uncommon"),
    Kind("color_min_common", "Color Minimal (common)", "color", "", False, "common"),
    Kind("color_min_uncommon", "Color Minimal (uncommon)", "color", "", False, "uncommon"),
    Kind("synonym_adj", "Synonym Adjectives", "synonym", "a"),
    Kind("synonym_verb", "Synonym Verbs", "synonym", "v"),
    Kind("hypernym_noun", "Hypernym Noun", "hypernym", "n"),
    Kind("hyponym_noun", "Hyponym Noun", "hyponym", "n"),
    Kind("sibling_noun", "Sibling Noun", "sibling", "n"),
    Kind("deletion_noun", "Deletion Noun", "delete", "n"),
)
KIND_NAMES: tuple[str, ...] = tuple(k.id for k in KINDS)
COLOR_KINDS: tuple[str, ...] = tuple(k.id for k in KINDS if k.relation == "color")
WORDNET_KINDS: tuple[str, ...] = tuple(k.id for k in KINDS if k.relation != "color")
_BY_ID = {k.id: k for k in KINDS}


def resolve_kinds(spec: str | None) -> tuple[Kind, ...]:
    """Kinds from "all" / None or a comma list of ids; UsageError naming near matches."""
    if spec is None or spec.strip() in ("", "all"):
        return KINDS
    out: list[Kind] = []
    for name in (s.strip() for s in spec.split(",")):
        if name not in _BY_ID:
            raise UsageError(f"unknown perturbation kind {name!r}{did_you_mean(name, ['all', *KIND_NAMES])}")
        out.append(_BY_ID[name])
    return tuple(dict.fromkeys(out))
