"""Fixed expressions in a question, found in WordNet's multi-word lemmas (quality mode; issue 24).

A word inside a fixed expression is not free to change: "Is this a black tie event?" ->
"yellow tie event" (black tie: semiformal evening dress), "Can you turn on a red light?" ->
"lime light", "Is this black and white?" -> "black and navy", "on all fours" -> "on all
whole numbers", "make sure" -> "create sure". The resource is WordNet 3.0's own list of
multi-word lemmas (all parts of speech: black_tie, red_light, black-and-white, all_fours,
make_sure, time_of_day, ...), not a list grown per failure.

`fixed_spans` returns the token spans of the question that spell such a lemma (two to
MAX_WORDS words, joined by "_" or "-", with WordNet's morphy for inflected forms: "all
fours", "red lights", "made sure"). The quality mode skips a site inside one of them as
`idiom` unless the site's own unit is that expression, which it then replaces whole (a
listed noun compound, "parking lot", or a phrasal verb, "turned on": quality_mode.py);
a colour inside one is always skipped; a deletion may remove a whole expression but never
part of one.
"""

from __future__ import annotations

from typing import Any, Sequence

from .text import Token

__all__ = ["MAX_WORDS", "fixed_spans", "plural_word", "splits"]

#: The longest expression looked up, in words ("time of day", "black and white").
MAX_WORDS = 4
_POS = ("n", "v", "a", "r")


_PREFIXES: dict[int, frozenset[tuple[str, ...]]] = {}


def _prefixes(wn: Any) -> frozenset[tuple[str, ...]]:
    """The proper word prefixes (one word up to all but the last) of WordNet's multi-word
    lemmas and exception forms, split at "_" and "-": morphy only changes the end of a form,
    so a run whose words before the last are no such prefix is no lemma, and nor is any
    longer run from the same first word."""
    found = _PREFIXES.get(id(wn))
    if found is None:
        names = [lemma for pos in _POS for lemma in wn.lemmas(pos)]
        names += [form for pos in _POS for form in wn.exceptions.get(pos, {})]
        found = _PREFIXES[id(wn)] = frozenset(
            tuple(words[:k]) for name in names if "_" in name or "-" in name
            for words in [name.lower().replace("-", "_").split("_")] for k in range(1, len(words)))
    return found


def fixed_spans(wn: Any, tokens: Sequence[Token]) -> list[tuple[int, int]]:
    """(first, last) token indices of every run of two or more adjacent words that is a
    WordNet multi-word lemma (any part of speech, any inflection morphy undoes)."""
    words = [t.text.lower() for t in tokens]
    prefixes = _prefixes(wn)
    out = []
    for a in range(len(words)):
        if not words[a].isalpha() or (words[a],) not in prefixes:
            continue
        for b in range(a + 1, min(len(words), a + MAX_WORDS)):
            if not words[b].isalpha() or tokens[b].start - tokens[b - 1].end > 1:
                break
            run = words[a:b + 1]
            if any(wn.morphy(joiner.join(run), pos) for joiner in ("_", "-") for pos in _POS):
                out.append((a, b))
            if tuple(run) not in prefixes:
                break  # no lemma goes on from these words
    return out


def splits(spans: Sequence[tuple[int, int]], first: int, last: int) -> bool:
    """Whether the unit first..last (one word, a listed compound or a phrasal verb) lies in a
    fixed expression without being the whole of it, or cuts one."""
    for a, b in spans:
        overlaps = a <= last and first <= b
        if overlaps and not (first <= a and b <= last):
            return True
    return False


#: A plural's own meaning counts when SemCor uses it this often relative to its singular
#: (glasses: spectacles 4 uses, glass 39), and at least PLURAL_MIN times.
PLURAL_SHARE = 0.1
PLURAL_MIN = 3


def plural_word(wn: Any, word: str) -> bool:
    """Whether a plural noun is also a word of its own with a meaning its singular lacks and
    SemCor uses (glasses: spectacles; stairs, arms: weapons), so the singular's senses may
    be wrong: "Does she have glasses?" -> "shot glasses". Rarely used own meanings do not
    count (men: the work force, 35 uses against man's 1,218; windows: the software, 0).
    The quality mode skips such a word (`ambiguous`)."""
    low = word.lower()
    own = [s for s in wn.synsets(low, "n") if low in (n.lower() for n in wn.lemma_names(s))]
    bases = [b for b in wn.morphy(low, "n") if b != low]
    singular = {s for b in bases for s in wn.synsets(b, "n")}
    extra = sum(wn.count(s, low) for s in own if s not in singular)
    base_uses = sum(wn.count(s, b) for b in bases for s in wn.synsets(b, "n"))
    return bool(bases) and extra >= PLURAL_MIN and extra >= PLURAL_SHARE * base_uses
