"""Replacement choice of the quality mode: a sense in context, then only words a reader
takes in that sense. Every rejected candidate is counted by reason.

For a lemma X with the sense S chosen in context (senses.py), the candidate synsets are:

- synonym: S itself;
- hyponym: S's immediate hyponyms (no instances: proper names);
- sibling: the other hyponyms of S's first-listed parent, when that parent is not abstract;
- hypernym (basic level): S's ancestors along the first-listed-parent chain, nearest
  first, as long as they are not abstract (max depth >= MIN_HYPERNYM_DEPTH: entity,
  object, whole, psychological feature, group, event, act, ... are abstract); the first
  ancestor with a lemma of Zipf >= BASIC_LEVEL_ZIPF (an everyday word: dog -> animal, not
  canine -> carnivore -> placental) wins.

A candidate lemma Y of synset T is rejected, in this order (each counted once, by the
first test it fails), as:

- `rare_word`: a word of Y is below FREQUENCY_FLOOR (wordfreq Zipf; hypernyms:
  BASIC_LEVEL_ZIPF);
- `multiword`: Y has several words and does not read as English in place: nouns need
  exactly two words naming a kind of their head (tennis ball is a ball: the head word has
  a sense among T's ancestors), verbs need verb + particle (pick up), adjectives one word;
- `sense_mismatch`: T is not among Y's DOMINANT_SENSES most frequent senses, so a reader
  would take Y in another meaning (clear -> open, riding -> sitting), or Y is mostly used
  as another part of speech (SemCor counts below a tenth: "being" is a verb form), or Y
  is one of the few words whose modern dominant sense WordNet's counts miss
  (MEANING_SHIFTED: sunny -> "gay"). The
  first test is not made for hypernyms: the general word is read in the sense the
  original pins down (room -> area);
- `number`: (singular nouns) Y cannot stand for a singular count noun: its plural is
  itself or it is a plural form ("What sport is this?" -> "What gymnastics/fun/cards is
  this?"); same-form plurals such as "sheep" are lost with them;
- `verb_frame`: (verbs) Y shares no WordNet verb frame with X in T, or the question uses X
  with a direct object and Y has no transitive frame in T ("match the wall" ->
  "correspond the wall").

The survivors are ranked by Y's SemCor count in T, then Zipf frequency, then WordNet order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from .lexical import EXCLUDED_VERBS, Replacement, _norm, _variants
from .phrases import PARTICLES

__all__ = [
    "BASIC_LEVEL_ZIPF",
    "DOMINANT_SENSES",
    "FREQUENCY_FLOOR",
    "INTRANSITIVE_FRAMES",
    "MEANING_SHIFTED",
    "MIN_HYPERNYM_DEPTH",
    "QualityChoice",
    "QualityLexicon",
    "TRANSITIVE_FRAMES",
]

#: wordfreq Zipf frequency a replacement word needs: 3.0 = once per million words.
FREQUENCY_FLOOR = 3.0
#: Zipf frequency of a basic-level (everyday) hypernym: 4.2 = about 16 per million words
#: (4.0 let "recreation" stand for "sport").
BASIC_LEVEL_ZIPF = 4.2
#: Hypernyms and sibling parents with a smaller max depth are abstract (entity is 0,
#: physical entity 1, object/abstraction's children 2, whole/event 3, artifact/act 4).
MIN_HYPERNYM_DEPTH = 5
#: A replacement must be read in the shared sense: that sense is among its first N senses.
DOMINANT_SENSES = {"n": 2, "v": 1, "a": 1}
#: Words whose dominant meaning today is not the one WordNet's (1960s) sense counts make
#: dominant, so a reader takes them in another, often offensive, sense ("Is it a gay
#: day?" for "Is it a sunny day?"); never a replacement.
MEANING_SHIFTED = frozenset({"gay", "queer", "fag", "faggot", "dyke", "cock", "pussy", "ass", "screw", "bang",
                             "intercourse", "ejaculate", "erection", "hooker", "chick"})
#: WordNet verb frames without an object: "Something ----s", "Somebody ----s",
#: "Something is ----ing PP", "Somebody ----s PP".
INTRANSITIVE_FRAMES = frozenset({1, 2, 4, 22})
#: WordNet verb frames with a direct object ("Somebody ----s something", ...; wninput(5WN)).
TRANSITIVE_FRAMES = frozenset({5, 8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 20, 21, 24, 25, 30, 31})


@dataclass(frozen=True)
class QualityChoice:
    """The outcome for (lemma, pos, relation, sense): a replacement or None, and the
    reasons of every candidate rejected on the way."""

    replacement: Replacement | None
    rejected: tuple[tuple[str, int], ...]
    reason: str = ""


class QualityLexicon:
    """Memoized quality-mode choices over the WordNet index and the word statistics."""

    def __init__(self, wn: Any, stats: Any) -> None:
        self.wn, self.stats = wn, stats
        self._cache: dict[tuple[str, str, str, int, bool, bool], QualityChoice] = {}
        self._ancestors: dict[int, frozenset[int]] = {}
        self._pos_counts: dict[str, dict[str, int]] = {}
        self._senses: dict[tuple[str, str], list[int]] = {}

    def pos_plausible(self, word: str, pos: str) -> bool:
        """False when WordNet's SemCor counts give `pos` less than a tenth of the count of
        the word's most frequent part of speech (which has at least 5)."""
        low = word.lower()
        counts = self._pos_counts.get(low)
        if counts is None:
            counts = {}
            for p in ("n", "v", "a", "r"):
                total = 0
                for form in self.wn.morphy(low, p)[:1]:
                    total += sum(self.wn.count(s, form) for s in self.wn.synsets(form, p))
                counts[p] = total
            self._pos_counts[low] = counts
        best = max(counts.values())
        return not (best >= 5 and counts[pos] * 10 < best)

    def senses(self, lemma: str, pos: str) -> list[int]:
        """Senses of which `lemma` itself is a lemma name (not those of other base forms)."""
        key = (lemma, pos)
        found = self._senses.get(key)
        if found is None:
            low = lemma.lower()
            found = self._senses[key] = [s for s in self.wn.synsets(lemma, pos)
                                         if low in (n.lower() for n in self.wn.lemma_names(s))]
        return found

    def choose(self, lemma: str, pos: str, relation: str, sense: int, transitive: bool = False,
               singular: bool = False) -> QualityChoice:
        """The replacement of `lemma` in `sense` for `relation` (rules in the module docstring);
        `transitive`: the question uses the verb with a direct object; `singular`: the noun
        is singular (NN), so the replacement must be a countable singular."""
        key = (lemma, pos, relation, sense, transitive, singular)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._choose(lemma, pos, relation, sense, transitive, singular)
        return found

    def transitive_senses(self, lemma: str, senses: list[int]) -> list[int]:
        """The verb senses in which `lemma` takes a direct object (WordNet frames)."""
        return [s for s in senses if self.wn.frames(s, lemma) & TRANSITIVE_FRAMES]

    # ----------------------------------------------------------------- helpers
    def _groups(self, pos: str, relation: str, sense: int) -> tuple[list[list[int]], str]:
        wn = self.wn
        if relation == "synonym":
            return [[sense]], ""
        if relation == "hyponym":
            return [sorted(wn.hyponyms(sense), key=wn.name)], ""
        parent = (wn.hypernyms(sense) or wn.instance_hypernyms(sense))[:1]
        if relation == "sibling":
            if not parent:
                return [], ""
            if wn.max_depth(parent[0]) < MIN_HYPERNYM_DEPTH:
                return [], "abstract"
            instance = sense in wn.instance_hyponyms(parent[0])
            kids = wn.instance_hyponyms(parent[0]) if instance else wn.hyponyms(parent[0])
            return [sorted((s for s in kids if s != sense), key=wn.name)], ""
        # hypernym: the first-parent chain, nearest first, down to the abstract top.
        chain, cur = [], sense
        while True:
            up = (wn.hypernyms(cur) or wn.instance_hypernyms(cur))[:1]
            if not up or wn.max_depth(up[0]) < MIN_HYPERNYM_DEPTH:
                break
            chain.append([up[0]])
            cur = up[0]
        return chain, ("abstract" if not chain and (wn.hypernyms(sense) or wn.instance_hypernyms(sense)) else "")

    def _choose(self, lemma: str, pos: str, relation: str, sense: int, transitive: bool,
                singular: bool = False) -> QualityChoice:
        wn, stats = self.wn, self.stats
        banned = _variants(lemma)
        groups, why = self._groups(pos, relation, sense)
        floor = BASIC_LEVEL_ZIPF if relation == "hypernym" else FREQUENCY_FLOOR
        rejected: Counter = Counter()
        for group in groups:
            best: tuple[tuple[float, ...], int, str] | None = None
            for gi, synset in enumerate(group):
                for li, (name, count) in enumerate(zip(wn.lemma_names(synset), wn.lemma_counts(synset))):
                    low = _norm(name)
                    if low in banned or banned.intersection(low.split()):
                        continue
                    if pos == "v" and low.split()[0] in EXCLUDED_VERBS:
                        continue  # make -> "do", wear -> "have": auxiliaries are no replacement
                    reason = self._reject(name, pos, synset, floor, relation == "hypernym")
                    if not reason and pos == "v":
                        reason = self._frame(lemma, name, synset, transitive)
                    if not reason and singular and self._not_singular(name):
                        reason = "number"
                    if reason:
                        rejected[reason] += 1
                        continue
                    rank = (-count, -min(stats.zipf(w) for w in low.split()), gi, li)
                    if best is None or rank < best[0]:
                        best = (rank, synset, name)
            if best is not None:
                repl = Replacement(lemma, best[2], wn.name(sense), wn.name(best[1]))
                return QualityChoice(repl, tuple(sorted(rejected.items())))
        if not rejected:
            reason = why or "no_replacement"
        else:
            reason = max(sorted(rejected), key=lambda r: rejected[r])
        return QualityChoice(None, tuple(sorted(rejected.items())), reason)

    def _reject(self, name: str, pos: str, synset: int, floor: float, hypernym: bool = False) -> str:
        words = name.lower().split("_")
        if any(self.stats.zipf(w) < floor for w in words):
            return "rare_word"  # first: the cheapest test, and most candidates fail it
        if len(words) > 1 and not self._reads_as_english(words, pos, synset):
            return "multiword"
        if MEANING_SHIFTED.intersection(words):
            return "sense_mismatch"
        if len(words) == 1 and not self.pos_plausible(words[0], pos):
            return "sense_mismatch"  # "being" is read as a verb form, not as organism
        if hypernym:
            return ""  # the general word is read in the sense the original word pins down
        if synset not in self.senses(name, pos)[: DOMINANT_SENSES[pos]]:
            return "sense_mismatch"
        return ""

    def _not_singular(self, name: str) -> bool:
        """Whether a noun lemma cannot stand for a singular count noun: its plural is itself
        (gymnastics, fun, furniture, sheep) or it is itself a plural form (cards)."""
        head = name.lower().split("_")[-1]
        plural = self.stats.inflect(head, "NNS")
        return plural == head or (plural is None and any(b != head for b in self.wn.morphy(head, "n")))

    def _frame(self, lemma: str, name: str, synset: int, transitive: bool) -> str:
        theirs = self.wn.frames(synset, name)
        if transitive and not theirs & TRANSITIVE_FRAMES:
            return "verb_frame"
        ours = self.wn.frames(synset, lemma)
        return "" if not ours or ours & theirs else "verb_frame"

    def _reads_as_english(self, words: list[str], pos: str, synset: int) -> bool:
        if len(words) != 2:
            return False
        if pos == "v":
            return words[1] in PARTICLES
        if pos != "n":
            return False
        heads = set(self.wn.synsets(words[1], "n"))
        return bool(heads & self._all_ancestors(synset))

    def _all_ancestors(self, sid: int) -> frozenset[int]:
        found = self._ancestors.get(sid)
        if found is None:
            out: set[int] = set()
            todo = [sid]
            while todo:
                cur = todo.pop()
                for up in self.wn.hypernyms(cur) + self.wn.instance_hypernyms(cur):
                    if up not in out:
                        out.add(up)
                        todo.append(up)
            found = self._ancestors[sid] = frozenset(out)
        return found
