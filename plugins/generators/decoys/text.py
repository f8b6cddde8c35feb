"""Answer normalization and the string-containment filter of Chao et al. 2018 (§4.1)."""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["normalize_release", "normalize_for_match", "overlaps"]

_PUNCT = re.compile(r"[^\w\s']+")
_SPACE = re.compile(r"\s+")


@lru_cache(maxsize=1 << 18)  # answers repeat a lot: normalize each distinct string once
def normalize_release(answer: str) -> str:
    """As the Visual7W releases expect: lower case, whitespace collapsed, trailing period stripped."""
    text = _SPACE.sub(" ", answer.replace("\n", " ").replace("\t", " ")).strip().lower()
    while text.endswith("."):
        text = text[:-1].rstrip()
    return text


@lru_cache(maxsize=1 << 18)
def normalize_for_match(answer: str) -> str:
    """The comparison form for filters: release normalization, punctuation to spaces."""
    return _SPACE.sub(" ", _PUNCT.sub(" ", normalize_release(answer))).strip()


def overlaps(a: str, b: str) -> bool:
    """True when one answer equals, contains, or is contained in the other (both already
    `normalize_for_match`-ed). Also compared with spaces removed, so "pony tail" and
    "ponytail" count as the same answer (the paper's example)."""
    if not a or not b:
        return a == b
    if a in b or b in a:
        return True
    a2, b2 = a.replace(" ", ""), b.replace(" ", "")
    return a2 in b2 or b2 in a2
