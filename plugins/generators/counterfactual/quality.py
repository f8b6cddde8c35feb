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

A candidate lemma Y of synset T is rejected by the first test it fails, counted by reason
(docs/counterfactual.md, rules 2, 3, 10-15 and 17-20): `rare_word` (a word of Y below
FREQUENCY_FLOOR; hypernyms: BASIC_LEVEL_ZIPF), `multiword` (nouns: exactly two words naming
a kind of their head; verbs: verb + particle; adjectives: one word), `sense_mismatch` (T
not among Y's DOMINANT_SENSES, Y mostly another part of speech or MEANING_SHIFTED; a
polysemous Y never counted in T; a hypernym lemma of levels.MANY_SENSES read in an earlier
sense), `number`, `verb_frame`, `register` (fit.REGISTER_DROP, HYPERNYM_DROP, LEVEL_DROP),
`selection`, `synonym`, `coordination`, `agreement`, `proper_noun`, `dissimilar` (words far
from the word's: relations.far_apart; a dissimilar hypernym also ends its chain, rule 47);
hypernym levels beyond the basic level (levels.py) as `basic_level`. Before any candidate: `ambiguous` (a
synonym's sense below fit.SENSE_SHARE; a polysemous noun without sense counts, or with
too few: levels.thin_evidence), `abstract` (hyponyms and siblings of abstract senses).
Hyponyms of noun.Tops senses come from TOPS_DEPTH levels down; a sibling group is followed
by a cousin group (COUSIN_LEXNAMES). Candidates are examined in rank order (Y's SemCor
count in T, then Zipf frequency, then WordNet order) and the first that passes wins.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from .fit import REGISTER_DROP, SENSE_SHARE, Slot, countable, phrase_zipf, sense_share
from .levels import beyond_basic_level, read_otherwise, thin_evidence
from .lexical import EXCLUDED_VERBS, Replacement, _norm, _variants
from .phrases import PARTICLES
from .relations import (  # re-exported: the relations' constants are part of the choice's rules
    ABSTRACT_LEXNAMES,
    COUSIN_LEXNAMES,
    MIN_HYPERNYM_DEPTH,
    TOP_CATEGORIES,
    TOPS_DEPTH,
    another_name,
    candidate_groups,
    far_apart,
    relation_misfit,
)

__all__ = [
    "ABSTRACT_LEXNAMES", "ADJECTIVE_SHARE", "BASIC_LEVEL_ZIPF", "COUSIN_LEXNAMES", "DOMINANT_SENSES", "FREQUENCY_FLOOR", "HYPERNYM_DROP",
    "INFINITIVE_FRAME", "INTRANSITIVE_FRAMES", "LEVEL_DROP", "MEANING_SHIFTED", "MIN_HYPERNYM_DEPTH",
    "OBJECTLESS_FRAMES", "PP_FRAMES", "QualityChoice", "QualityLexicon", "Slot", "TOPS_DEPTH", "TRANSITIVE_FRAMES",
]

#: wordfreq Zipf frequency a replacement word needs: 3.0 = once per million words.
FREQUENCY_FLOOR = 3.0
#: Zipf frequency of a basic-level (everyday) hypernym: 4.2 = about 16 per million words
#: (4.0 let "recreation" stand for "sport").
BASIC_LEVEL_ZIPF = 4.2
#: A hypernym may be at most this much rarer (Zipf) than the word it replaces: a basic-level
#: parent is about as frequent as its children (cat 4.8 -> animal 4.8), a technical one is
#: not (picture 5.1 -> representation 4.3).
HYPERNYM_DROP = 0.5
#: A hyponym or sibling may be at most this much rarer (Zipf; 1.5 = about 30 times) than the
#: word it replaces (boy -> "sonny" is 34 times rarer; room -> "auditorium", 76 times, was
#: judged a kind of room; synonyms: fit.REGISTER_DROP).
LEVEL_DROP = {"hyponym": 1.5, "sibling": 1.5}
#: A replacement must be read in the shared sense: that sense is among its first N senses.
DOMINANT_SENSES = {"n": 2, "v": 1, "a": 1}  # hyponyms: their first (issue 24: photo -> "frame")
#: Words whose dominant meaning today is not the one WordNet's (1960s) sense counts make
#: dominant, so a reader takes them in another, often offensive, sense ("Is it a gay
#: day?" for "Is it a sunny day?"); never a replacement.
MEANING_SHIFTED = frozenset({"gay", "queer", "fag", "faggot", "dyke", "cock", "pussy", "ass", "screw", "bang",
                             "intercourse", "ejaculate", "erection", "hooker", "chick"})
#: A noun replacement used at least this share as often as an adjective reads as one (rule 33).
ADJECTIVE_SHARE = 0.5
#: WordNet verb frames without an object: "Something ----s", "Somebody ----s",
#: "Something is ----ing PP", "Somebody ----s PP".
INTRANSITIVE_FRAMES = frozenset({1, 2, 4, 22})
_PERSON, _ANY_PLACE = frozenset({"person"}), Slot()
#: WordNet verb frames after which a prepositional phrase may follow the verb: with no
#: object (1 "Something ----s", 2, 4 "... is ----ing PP", 12 "... to somebody", 13 "... on
#: something", 22 "Somebody ----s PP", 27) or after one (20, 21 "Somebody ----s something
#: PP"). Rule 55: "What numbers appear at the top?" reads appear as "seem" (look.v.02:
#: frames 6, 7, 28 only), and "seem at the top" failed twice.
PP_FRAMES = frozenset({1, 2, 4, 12, 13, 20, 21, 22, 27})
INFINITIVE_FRAME = 28  # WordNet verb frame "Somebody ----s to INFINITIVE"
#: WordNet verb frames without a direct object (wninput(5WN)): "Something ----s", "Somebody ----s PP", ...
OBJECTLESS_FRAMES = frozenset({1, 2, 3, 4, 6, 7, 12, 13, 22, 23, 26, 27, 28, 29, 32, 33, 34, 35})
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

    def __init__(self, wn: Any, stats: Any, vectors: Any = None) -> None:
        self.wn, self.stats, self.vectors = wn, stats, vectors  # vectors: sense_vectors.SenseVectors
        self._cache: dict[tuple[str, str, str, int, bool, bool], QualityChoice] = {}
        self._ancestors: dict[int, frozenset[int]] = {}
        self._pos_counts: dict[str, dict[str, int]] = {}
        self._senses: dict[tuple[str, str], list[int]] = {}
        self._syn: dict[tuple[str, str], frozenset[str]] = {}
        self._rejects: dict[tuple[str, str, int, float, bool], str] = {}
        self._below: dict[tuple[int, int], list[int]] = {}
        self._bases: dict[tuple[str, str], str] = {}  # counted_base, memoized
        self._level_register = 0  # register rejections in the hypernym level being examined

    def counted_base(self, word: str, pos: str, lemma: str | None) -> str | None:
        """Rule 54: `lemma` (lexical.Lexicon.lemma's base form of `word`), unless `word` is a
        noun with several base forms and only another one is ever used in SemCor: "crosses"
        -> cross, not crosse (a lacrosse stick); "lenses" -> lens, "bunches" -> bunch."""
        if pos != "n" or lemma is None:
            return lemma
        key = (word.lower(), lemma)
        if key not in self._bases:
            def used(base: str) -> bool:
                return any(self.wn.count(s, base) for s in self.wn.synsets(base, "n"))
            others = [b for b in self.wn.morphy(key[0], "n") if b != lemma and used(b)]
            self._bases[key] = others[0] if others and not used(lemma) else lemma
        return self._bases[key]

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

    def choose(self, lemma: str, pos: str, relation: str, sense: int, slot: Slot = _ANY_PLACE) -> QualityChoice:
        """The replacement of `lemma` in `sense` for `relation` (rules in the module docstring)
        in a place described by `slot`."""
        key = (lemma, pos, relation, sense, slot)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._choose(lemma, pos, relation, sense, slot)
        return found

    def transitive_senses(self, lemma: str, senses: list[int]) -> list[int]:
        """The verb senses in which `lemma` takes a direct object (WordNet frames)."""
        return [s for s in senses if self.wn.frames(s, lemma) & TRANSITIVE_FRAMES]

    def intransitive_senses(self, lemma: str, senses: list[int]) -> list[int]:
        """The verb senses in which `lemma` has a frame without a direct object (a sense
        WordNet lists no frame for is kept)."""
        return [s for s in senses if not self.wn.frames(s, lemma) or self.wn.frames(s, lemma) & OBJECTLESS_FRAMES]

    # ----------------------------------------------------------------- helpers
    def _choose(self, lemma: str, pos: str, relation: str, sense: int, slot: Slot) -> QualityChoice:
        wn, stats = self.wn, self.stats
        if relation == "synonym" and pos in SENSE_SHARE and \
                sense_share(wn, lemma, sense, self.senses(lemma, pos)) < SENSE_SHARE[pos]:
            return QualityChoice(None, (), "ambiguous")
        own = self.senses(lemma, pos)
        if pos == "n" and len(own) > 1 and not any(wn.count(s, lemma) for s in own):
            return QualityChoice(None, (), "ambiguous")  # no evidence which sense: kite -> "check"
        if pos == "n" and thin_evidence(wn, lemma, sense, own):
            return QualityChoice(None, (), "ambiguous")  # toilet: the room 3 uses, the fixture 2
        if relation == "hypernym" and another_name(wn, sense):
            return QualityChoice(None, (), "synonym")  # guy ("an informal term for a youth or man") -> "man"
        banned = _variants(lemma)
        groups, why = candidate_groups(self.wn, self.ancestors, relation, sense, self._below)
        rejected: Counter = Counter()
        technical = False  # (hypernyms) a parent with an everyday name was passed as too rare
        for level, group in enumerate(groups):
            if relation == "hypernym":
                technical = technical or level > 0 and bool(self._level_register)
                self._level_register = 0
                if beyond_basic_level(wn, sense, group[0], technical, level):
                    rejected["basic_level"] += 1  # photo -> representation -> "creation"
                    continue
            # Hypernyms and cousins (a sibling's second group) are everyday words only.
            floor = BASIC_LEVEL_ZIPF if relation == "hypernym" or level else FREQUENCY_FLOOR
            # Candidates best first (SemCor count in the sense, Zipf, WordNet order); the first
            # that passes every test wins, so the later ones are not examined (nor counted).
            ranked = sorted(((-count, -min(stats.zipf(w) for w in _norm(name).split()), gi, li), synset, name)
                            for gi, synset in enumerate(group)
                            for li, (name, count) in enumerate(zip(wn.lemma_names(synset), wn.lemma_counts(synset))))
            for _rank, synset, name in ranked:
                low = _norm(name)
                if low in banned or banned.intersection(low.split()) and not (
                        relation == "hyponym" and low.split()[-1] in banned):
                    continue  # "sit" -> "sit down" is no change; "game" -> "card game" is a hyponym
                if relation == "hyponym" and synset not in self.senses(name, pos)[:1]:
                    rejected["sense_mismatch"] += 1  # photo -> "frame" (a film frame is its second sense)
                    continue
                if name[:1].isupper():
                    rejected["proper_noun"] += 1  # someone -> "Jew", Chinese -> "Taiwanese"
                    continue
                if pos == "v" and low.split()[0] in EXCLUDED_VERBS:
                    continue  # make -> "do", wear -> "have": auxiliaries are no replacement
                reason = self._reject(name, pos, synset, floor, relation == "hypernym") or relation_misfit(
                    wn, self.ancestors, relation, sense, synset, lemma, name) or self._misfit(lemma, name, pos, relation, synset, slot) \
                    or far_apart(self.vectors, relation, lemma, name, wn.name(synset) in TOP_CATEGORIES, pos)
                if reason:
                    rejected[reason] += 1
                    self._level_register += reason == "register"
                    continue
                repl = Replacement(lemma, name, wn.name(sense), wn.name(synset))
                return QualityChoice(repl, tuple(sorted(rejected.items())))
            if relation == "hypernym" and rejected["dissimilar"]:
                break  # rule 47: a parent of another sense has no better grandparent (hood -> criminal -> "person")
        if not rejected:
            reason = why or "no_replacement"
        else:
            reason = max(sorted(rejected), key=lambda r: rejected[r])
        return QualityChoice(None, tuple(sorted(rejected.items())), reason)

    def _misfit(self, lemma: str, name: str, pos: str, relation: str, synset: int, slot: Slot) -> str:
        """The place's tests (fit.py): frames, number and countability, register, selection."""
        if pos == "v":
            reason = self._frame(lemma, name, synset, slot.transitive)
            if reason or (slot.infinitive and INFINITIVE_FRAME not in self.wn.frames(synset, name)):
                return reason or "verb_frame"  # "say to stop" -> "tell to stop", "need to" -> "require to"
            if slot.prepositional and any(frames and not frames & PP_FRAMES
                                          for frames in (self.wn.frames(synset, lemma), self.wn.frames(synset, name))):
                return "verb_frame"  # rule 55: "appear at the top" -> "seem at the top"
        own_head = relation == "hypernym" and "_" in lemma and name.lower() == lemma.lower().split("_")[-1]
        if self.wn.count(synset, name) == 0 and len(self.senses(name, pos)) > 1 and not own_head:
            return "sense_mismatch"  # a polysemous word never seen in this sense: "cosmetic" scarf, dessert -> "course"
        if pos == "n" and slot.singular and (self._not_singular(name, slot.count is None and (
                slot.kind_of or self.wn.lexname(synset) == "noun.animal")) or (
                slot.count is not None and countable(self.stats, name) != slot.count)):
            return "number"
        rarest = phrase_zipf(self.stats, name.lower().split("_"))
        if relation != "hypernym" and round(slot.zipf - rarest, 2) >= LEVEL_DROP.get(relation, REGISTER_DROP):
            return "register"
        if relation in ("sibling", "hyponym") and "_" in name and self.wn.count(synset, name) == 0 and \
                name.lower().split("_")[-1] != lemma.lower().split("_")[-1]:
            return "sense_mismatch"  # unseen compounds: room -> "rest area" (train station -> coach station is kept)
        if relation == "hypernym":
            if rarest < slot.zipf - HYPERNYM_DROP:
                return "register"
            if read_otherwise(self.senses(name, pos), synset) and not own_head:
                return "sense_mismatch"  # road -> "way", waves -> "movements", luggage -> "case"
        if slot.selected and not self._named(synset, slot.selected):
            return "selection"
        if relation != "synonym" and self._synonyms(lemma, pos) & {name.lower()}:
            return "synonym"  # photo -> "picture", action -> "activity": a lemma of one of its own senses
        if slot.coordinated and self._covers(synset, name, slot.coordinated):
            return "coordination"  # "a man or woman" -> "a person or woman"
        if slot.neuter and (self.wn.lexname(synset) == "noun.person" or self._named(synset, _PERSON)):
            return "agreement"  # "Does the animal have a vegetable in its mouth?" -> "the person ... its"
        return ""

    def _covers(self, synset: int, name: str, other: str) -> bool:
        """Whether the replacement (`name` of `synset`) is the coordinated noun `other` or a
        more general term of one of its senses."""
        if name.lower() == other.lower():
            return True
        return any(synset == s or synset in self.ancestors(s) for s in self.senses(other, "n"))

    def _synonyms(self, lemma: str, pos: str) -> frozenset[str]:
        """Every lemma name of every sense of `lemma` (lower case)."""
        found = self._syn.get((lemma, pos))
        if found is None:
            found = self._syn[(lemma, pos)] = frozenset(
                n.lower() for s in self.senses(lemma, pos) for n in self.wn.lemma_names(s))
        return found

    def _named(self, synset: int, words: frozenset[str]) -> bool:
        """Whether `synset` or one of its ancestors has a lemma among `words`."""
        for sid in (synset, *self.ancestors(synset)):
            if any(n.lower() in words for n in self.wn.lemma_names(sid)):
                return True
        return False

    def _reject(self, name: str, pos: str, synset: int, floor: float, hypernym: bool = False) -> str:
        """The tests of a candidate that do not depend on the place (memoized)."""
        key = (name, pos, synset, floor, hypernym)
        found = self._rejects.get(key)
        if found is None:
            found = self._rejects[key] = self._reject_once(name, pos, synset, floor, hypernym)
        return found

    def _reject_once(self, name: str, pos: str, synset: int, floor: float, hypernym: bool) -> str:
        words = name.lower().split("_")
        if any(self.stats.zipf(w) < floor for w in words):
            return "rare_word"  # first: the cheapest test, and most candidates fail it
        if len(words) > 1 and not self._reads_as_english(words, pos, synset):
            return "multiword"
        if MEANING_SHIFTED.intersection(words):
            return "sense_mismatch"
        if len(words) == 1 and not self.pos_plausible(words[0], pos):
            return "sense_mismatch"  # "being" is read as a verb form, not as organism
        if pos == "n" and (len(words) == 1 or hypernym) and self._adjective_noun(words[0]):
            return "sense_mismatch"  # rule 33: "the male", "the female person": an adjective used as a noun
        if hypernym:
            return ""  # the general word is read in the sense the original word pins down
        if synset not in self.senses(name, pos)[: DOMINANT_SENSES[pos]]:
            return "sense_mismatch"
        return ""

    def _adjective_noun(self, word: str) -> bool:
        """Whether `word`'s SemCor uses as an adjective are at least ADJECTIVE_SHARE of its uses
        as a noun (at least 3): a replacement noun a reader takes for an adjective used as a
        noun ("the males": male 8 adjective, 10 noun uses; person 0, adult 1 of 10)."""
        self.pos_plausible(word, "n")  # fills the counts
        counts = self._pos_counts[word.lower()]
        return counts["a"] >= 3 and counts["a"] >= ADJECTIVE_SHARE * counts["n"]

    def _not_singular(self, name: str, mass_ok: bool = False) -> bool:
        """Whether a noun lemma cannot stand for a singular noun: it is itself a plural form
        (cards), or its plural is itself (gymnastics, fun, furniture, sheep) unless `mass_ok`:
        after "kind of" ("What kind of clothing"), or an animal (zero plurals are mostly
        animal names: "the deer"), when no determiner needs a count noun."""
        head = name.lower().split("_")[-1]
        plural = self.stats.inflect(head, "NNS")
        if plural is None:
            return any(b != head for b in self.wn.morphy(head, "n"))
        return plural == head and not mass_ok

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
        return bool(heads & self.ancestors(synset))

    def ancestors(self, sid: int) -> frozenset[int]:
        """`sid`'s ancestors (every parent, instances too), memoized."""
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
