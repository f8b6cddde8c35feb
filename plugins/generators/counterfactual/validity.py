"""Is a counterfactual still what its kind says, according to WordNet and the color space?

Used by the tests and by `benchmarks/perturb_throughput.py --measure` on every row of
both modes. The check is independent of how the generator chose the word:

- synonym: the new lemma shares a synset (of the same part of speech) with the old one;
- hypernym: paper mode, an immediate (instance) hypernym of a sense of the old lemma;
  quality mode, any ancestor (WordNet's hypernym relation is transitive; the quality mode
  climbs to a basic-level word);
- hyponym: paper mode, an immediate hyponym of a sense; quality mode, any descendant (the
  quality mode takes the hyponyms of WordNet's top concepts three levels down: animal ->
  dog); sibling: shares an immediate parent with a sense, and is not that sense (quality
  mode: or a grandparent, a cousin, when the parent offers no sibling: cat -> dog);
- the surface word is a form of the new lemma (WordNet's morphy leads back to it);
- deletion: the counterfactual is the question minus one contiguous span holding the
  deleted noun, which is a WordNet noun (quality mode: and possibly minus an indefinite
  article before it, "Is this a healthy meal?" -> "Is this healthy?");
- colors: named colors, the farthest/nearest color of the pool (quality: the pool minus
  the colors already in the question, minimal colours only among near colours of the same
  kind, color_names.py), never a color already in the question (quality).
"""

from __future__ import annotations

from typing import Any

from .colors import ColorSpace
from .inflect import EVERYDAY_PLURALS
from .kinds import Kind
from .text import match_case, tokenize

__all__ = ["invalid_reason"]


def _ancestors(wn: Any, sid: int) -> set[int]:
    out: set[int] = set()
    todo = [sid]
    while todo:
        cur = todo.pop()
        for up in wn.hypernyms(cur) + wn.instance_hypernyms(cur):
            if up not in out:
                out.add(up)
                todo.append(up)
    return out


def _has(wn: Any, sid: int, lemma: str) -> bool:
    low = lemma.lower()
    return any(n.lower() == low for n in wn.lemma_names(sid))


def invalid_reason(p: Any, kind: Kind, mode: str, wn: Any, pool: tuple[str, ...],
                   colors: ColorSpace, question_colors: frozenset[str] = frozenset()) -> str | None:
    """None when `p` (a Perturbation of `kind`) is valid, else what is wrong."""
    if p.counterfactual == p.question:
        return "no change"
    if kind.relation == "color":
        if p.source not in colors.colors or p.target not in colors.colors:
            return "not a named color"
        exclude = question_colors if mode == "quality" else frozenset()
        if p.target in exclude:
            return "color already in the question"
        # the colours that may replace it (quality: color_names.QualityColors narrows the minimal ones)
        others = [d for d, _ in colors.candidates(p.source, [c for c in pool if c not in exclude],
                                                 maximal=kind.maximal)]
        if not others:  # the generator gives no colour then (quality minimal: "color_distance")
            return "no color of the pool may replace it"
        want = max(others) if kind.maximal else min(others)
        return None if colors.distance(p.source, p.target) == want else "not the farthest/nearest color"
    senses = [s for s in wn.synsets(p.source, kind.pos) if _has(wn, s, p.source)] or wn.synsets(p.source, kind.pos)
    if kind.relation == "delete":
        if not senses:
            return "deleted word is not a WordNet noun"
        if p.replacement != "":
            return "deletion with a replacement"

        tokens = tokenize(p.question)
        start = tokens[p.position].start if p.position < len(tokens) else -1
        end = start + len(p.replaced)
        if start < 0 or p.question[start:end] != p.replaced:
            return "the deleted span is not at its position"
        cuts = {p.question[:start].rstrip(" ") + (" " if start > 0 and p.question[end:end + 1] not in "?.!,"
                                                    else "") + p.question[end:].lstrip(" "),
                p.question[:max(0, start - 1)] + p.question[end:], p.question[:start] + p.question[end + 1:]}
        if mode == "quality":  # "Is this a healthy meal?" -> "Is this healthy?": the article goes too
            cuts |= {c[:t.start] + c[t.end + 1:] for c in list(cuts) for t in tokens
                     if t.end <= start and t.text.lower() in ("a", "an")}
            if p.position > 0 and tokens[p.position - 1].text.lower() in ("a", "an"):
                # ... or stays, agreeing with the word now after it ("a baseball event" -> "an event")
                art = tokens[p.position - 1]
                cuts |= {c[:art.start] + match_case(art.text, want) + c[art.end:] for c in list(cuts)
                         for want in ("a", "an")}
        return None if p.counterfactual in cuts else "not the question minus one span"
    target = p.target
    if kind.relation == "synonym":
        ok = any(_has(wn, s, target) for s in senses)
    elif kind.relation == "hypernym":
        if mode == "quality":
            ok = any(_has(wn, a, target) for s in senses for a in _ancestors(wn, s))
        else:
            ok = any(_has(wn, h, target) for s in senses for h in wn.hypernyms(s) + wn.instance_hypernyms(s))
    elif kind.relation == "hyponym":
        if mode == "quality":
            ok = any(s in _ancestors(wn, h) for h in wn.synsets(target, "n") if _has(wn, h, target) for s in senses)
        else:
            ok = any(_has(wn, h, target) for s in senses for h in wn.hyponyms(s))
    else:
        ok = any(_has(wn, sib, target) and sib != s for s in senses
                 for parent in wn.hypernyms(s) + wn.instance_hypernyms(s)
                 for sib in wn.hyponyms(parent) + wn.instance_hyponyms(parent))
        if not ok and mode == "quality":  # a cousin: same grandparent
            ok = any(_has(wn, c, target) and c != s for s in senses for parent in wn.hypernyms(s)
                     for grand in wn.hypernyms(parent) for u in wn.hyponyms(grand) for c in wn.hyponyms(u))
    if not ok:
        return f"{target!r} is not a {kind.relation} of {p.source!r} in WordNet"
    if target.replace("_", " ").lower() == p.source.replace("_", " ").lower():
        return "same lemma"
    words = p.replacement.lower().split()
    head = words[-1 if kind.pos == "n" else 0]
    expected = target.lower().split("_")[-1 if kind.pos == "n" else 0]
    if head != expected and expected not in wn.morphy(head, kind.pos) and EVERYDAY_PLURALS.get(expected) != head:
        return f"{p.replacement!r} is not a form of {target!r}"
    return None
