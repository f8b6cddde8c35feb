"""More deletions of the quality mode (issue 16; docs/counterfactual.md, rule 22): phrases
that modify a noun or a predicate and can go whole, leaving a question that still reads.

Added after the second round, when 42% of VQA-X val questions still had no deletion:

- a *possessor* with its "'s": "Does the cat's owner like to read?" -> "Does the owner like
  to read?" (after a determiner, so that one is left for the possessed noun);
- a *complex preposition* with its noun phrase: "in front of / on top of / in back of NP"
  ("What are the poles in front of the building used for?" -> "What are the poles used
  for?") and "out of NP" after a verb ("Is the cat looking out of the window?" -> "Is the
  cat looking?");
- a *reduced relative clause* after the subject, before the main verb: "Does the lady
  feeding the giraffe have blonde hair?" -> "Does the lady have blonde hair?";
- a *classifier phrase after a demonstrative*: "What is this piece of furniture used
  for?" -> "What is this used for?" (the demonstrative stands alone, as in rule 16);
- the noun of a final *predicate* "a/an + modifiers + noun" after "to be" or "considered"
  with a pronoun subject, and modifiers that include a participle or adverb: "Does this
  appear to be a noisy environment?" -> "Does this appear to be noisy?", "Is this a well
  organized room?" -> "Is this well organized?" (rule 16 took adjectives only, after a
  be-question).
"""

from __future__ import annotations

from typing import Sequence

from .phrases import Span, noun_phrase_start, noun_runs
from .text import Token

__all__ = ["modifier_spans"]

_CLASSIFIER_HEADS = frozenset("piece pieces kind type sort pair bunch group slice cup glass bowl plate".split())
_PRONOUN_DT = frozenset({"this", "that", "these", "those"})
_COMPLEX = {("in", "front"), ("on", "top"), ("in", "back"), ("on", "front")}
_PREDICATE_MODIFIERS = ("JJ", "VBN", "RB")
_AUX = frozenset("do does did is are was were can could should would will may might must".split())


def modifier_spans(tokens: Sequence[Token], tags: Sequence[str]) -> list[Span]:
    """The spans of the module docstring (each with the noun it is about as head)."""
    spans: list[Span] = []
    runs = noun_runs(tags)
    words = [t.text.lower() for t in tokens]
    for first, last in runs:
        start = noun_phrase_start(tokens, tags, first)
        # possessor: "the cat's owner" -> "the owner"
        if last + 2 < len(tags) and tags[last + 1] == "POS" and start < first and \
                tags[start] == "DT" and start == first - 1 and tags[last + 2] in ("NN", "NNS", "JJ"):
            spans.append(Span(first, last + 1, last))
        # complex prepositions: "in front of the building", "out of the window" (not when
        # "of NP" goes on: "out of the back of its head")
        if last + 1 < len(words) and words[last + 1] == "of":
            pass
        elif start > 2 and words[start - 1] == "of" and (words[start - 3], words[start - 2]) in _COMPLEX:
            spans.append(Span(start - 3, last, last))
        if start > 2 and words[start - 1] == "of" and words[start - 2] == "out" and words[last + 1:last + 2] != ["of"] and tags[start - 3].startswith("VB"):
            spans.append(Span(start - 2, last, last))
        # reduced relative: "Does the lady feeding the giraffe have ...?" -> "Does the lady have ...?"
        if start > 1 and tags[start - 1] == "VBG" and tags[start - 2] in ("NN", "NNS") and last + 1 < len(tags) \
                and tags[last + 1] in ("VB", "VBP", "VBZ", "VBD", "MD") and words[0] in _AUX:
            spans.append(Span(start - 1, last, last))
        # "this piece of furniture" -> "this"
        if start == first - 1 and words[start] in _PRONOUN_DT and first == last and words[first] in _CLASSIFIER_HEADS \
                and last + 2 < len(tokens) and words[last + 1] == "of":
            nested = [r for r in runs if r[0] > last + 1]
            if nested and noun_phrase_start(tokens, tags, nested[0][0]) == last + 2:
                spans.append(Span(first, nested[0][1], nested[0][1]))
    spans += _predicate(tokens, tags, runs, words)
    return spans


def _predicate(tokens: Sequence[Token], tags: Sequence[str], runs: list[tuple[int, int]], words: list[str]
               ) -> list[Span]:
    """"(to) be / considered a ADJ... N?" at the end, after a pronoun subject (module docstring)."""
    content = [i for i, t in enumerate(tokens) if t.text[:1].isalnum()]
    if len(content) < 4 or not runs or runs[-1][1] != content[-1] or not (
            tags[1] == "PRP" or words[1] in _PRONOUN_DT):
        return []
    first, last = runs[-1]
    i = first
    while i > 2 and tags[i - 1] in _PREDICATE_MODIFIERS:
        i -= 1
    if i == first or words[i - 1] not in ("a", "an") or not any(tags[k] in ("JJ", "VBN") for k in range(i, first)):
        return []
    before = words[i - 2]
    rule16 = words[0] in ("is", "are", "was", "were") and i - 2 == 1  # rule 16 (phrases.predicate_spans)
    if rule16 and all(tags[k] == "JJ" for k in range(i, first)):
        return []
    if before in ("be", "considered") or rule16:
        return [Span(first, last, last, i - 1)]
    return []
