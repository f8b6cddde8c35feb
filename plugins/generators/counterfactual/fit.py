"""Does a replacement fit its place in the question? Quality-mode rules added after judging
the first blind sample of VQA-X val (issue 16; figures in docs/counterfactual.md).

Each rule answers one fault seen in the judged rows:

- **register** (synonyms): a synonym may be at most REGISTER_DROP Zipf (10x) rarer than
  the word it replaces: "used for" -> "applied for", "live" -> "inhabit", "sunny" ->
  "cheery" change the register, not only the word;
- **sense share** (synonyms): a polysemous word is replaced only when the sense chosen in
  context carries at least SENSE_SHARE of its SemCor count: "holding" is keep.v.01 in
  23% of SemCor ("keeping a toy"), "special" is particular.s.01 in 44% ("a particular
  event"); a sense that rarely wins is too weak a guess to build a synonym on;
- **countability**: after a determiner that needs a count noun or a mass noun to follow
  (COUNT_DETERMINERS: a, this, what, which, ...; not "the", a possessive or "kind of"), a
  singular noun and its replacement are both countable or both mass nouns, judged by
  wordfreq: a noun is countable when its plural is at most PLURAL_DROP Zipf rarer than its
  singular (dogs/dog -0.3, kitchens/kitchen -1.3; footballs/football -2.4,
  entertainments/entertainment -1.8, bowling has no plural): "What sport is this?" never
  becomes "What bowling/entertainment is this?";
- **selection**: when a verb of the question names the noun in the gloss of its most
  frequent sense (play.v.01 "participate in games or sport"), the replacement must be a
  kind of something that gloss names: "What sport is being played?" may become "What
  athletic game is being played?", not "What activity is being played?";
- **frame nouns**: "kind", "type", "sort", "variety" before "of" frame the question
  ("What kind of fruit is this?"); replacing them ("What category of fruit") asks the same
  question, so they are no sites;
- **verb form**: a verb whose surface form is not lemminflect's form for its tag is
  re-tagged with the tag whose form it is ("Does the sign prohibit ...", tagged VBZ, is
  VB: "forbid", not "forbids"), or skipped when no tag fits; a base-form verb right after
  a content verb is a tagger error ("Does this room need repair?", "look sleep");
  "according" (to) is a preposition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from .senses import content_bases
from .text import Token

__all__ = [
    "AXIS_NOUNS",
    "FRAME_NOUNS",
    "PLURAL_DROP",
    "REGISTER_DROP",
    "SENSE_SHARE",
    "Selection",
    "Slot",
    "after_kind_of",
    "bare_noun",
    "count_context",
    "countable",
    "frame_noun",
    "infinitive_follows",
    "passive",
    "phrase_zipf",
    "preposition_follows",
    "sense_share",
    "verb_slot",
    "verb_tag",
]

#: A synonym may be at most this much rarer (wordfreq Zipf; 1.0 = 10 times) than the word.
REGISTER_DROP = 1.0
#: A noun is countable when its plural is at most this much rarer (Zipf) than its singular.
PLURAL_DROP = 1.5
#: Least share of a polysemous word's SemCor count the chosen sense needs (synonyms), and
#: the least total count that makes the share evidence. Verbs spread their counts over more
#: fine-grained senses (hold: 36 senses) than adjectives, hence the lower verb share.
SENSE_SHARE = {"v": 0.3, "a": 0.5}
SENSE_EVIDENCE = 3
#: Determiners after which count and mass nouns do not mix ("a sport", "what sport").
COUNT_DETERMINERS = frozenset("a an another each every one this that what which whose either neither".split())
_MODIFIER_TAGS = ("JJ", "JJR", "JJS", "VBN", "VBG", "CD")
#: Nouns that frame a "What kind of X" question rather than name something in the image.
FRAME_NOUNS = frozenset("kind kinds type types sort sorts variety varieties".split())
#: Indefinite pronouns the tagger calls nouns ("Is this someone's home?"): never sites.
PRONOUN_NOUNS = frozenset("someone somebody anyone anybody everyone everybody nobody something anything "
                          "everything nothing".split())
#: Sides of space: after "the" and a preposition they make a complex preposition with it
#: ("on the left", "in the middle"), a place relative to the viewer rather than a thing.
AXIS_NOUNS = frozenset("left right middle center centre front back top bottom".split())
_SPATIAL_PREPOSITIONS = frozenset("on to in at from of toward towards".split())
#: -ing forms that are prepositions before "to" ("according to the light").
_PREPOSITIONAL = frozenset("according owing pertaining relating".split())
#: Verbs a bare base-form verb may follow ("help clean", "let go", "make sure").
_BARE_VERB_HOSTS = frozenset("do does did let help make go come please".split())
_VERB_TAGS = ("VB", "VBZ", "VBD", "VBN", "VBG")


def countable(stats: Any, noun: str) -> bool:
    """Whether the head of `noun` (a lemma, '_' or ' ' between words) is a count noun:
    lemminflect knows a plural other than the noun itself, and wordfreq sees it at most
    PLURAL_DROP Zipf less often than the singular."""
    head = noun.lower().replace("_", " ").split()[-1]
    plural = stats.inflect(head, "NNS")
    if plural is None or plural == head:
        return False
    return stats.zipf(plural) >= stats.zipf(head) - PLURAL_DROP


@dataclass(frozen=True)
class Slot:
    """What the place of the replaced word asks of a replacement (part of the memo key)."""

    #: verbs: the question uses the verb with a direct object.
    transitive: bool = False
    #: verbs: a to-infinitive follows ("need to shave"): Y needs WordNet frame 28 in T.
    infinitive: bool = False
    #: verbs: a preposition follows ("appear at the top"): the verb and Y need a frame in T
    #: that takes a prepositional phrase (quality.PP_FRAMES; rule 55).
    prepositional: bool = False
    #: nouns: a singular (NN): the replacement must be a countable singular.
    singular: bool = False
    #: singular nouns: whether the original is a count noun (fit.countable), else None.
    count: bool | None = None
    #: wordfreq Zipf of the original lemma (fit.phrase_zipf).
    zipf: float = 0.0
    #: words of a verb's gloss that name the noun (fit.Selection); empty: no restriction.
    selected: frozenset[str] = frozenset()
    #: nouns: "it", "its" or "itself" follows in the question: the replacement is no person.
    neuter: bool = False
    #: nouns: the lemma of the noun coordinated with this one ("man or woman"), or "".
    coordinated: str = ""
    #: nouns: "kind/type/sort/variety of" comes before the phrase ("What kind of hat").
    kind_of: bool = False


def count_context(tokens: Sequence[Token], tags: Sequence[str], first: int) -> bool:
    """Whether the noun phrase ending in the noun run that starts at `first` has a
    determiner of COUNT_DETERMINERS (adjectives and numbers in between are skipped)."""
    i = first
    while i > 0 and tags[i - 1] in _MODIFIER_TAGS:
        i -= 1
    return i > 0 and tokens[i - 1].text.lower() in COUNT_DETERMINERS


def after_kind_of(tokens: Sequence[Token], tags: Sequence[str], first: int) -> bool:
    """Whether "kind/type/sort/variety of" comes right before the noun phrase whose noun run
    starts at `first` (adjectives and numbers in between are skipped)."""
    i = first
    while i > 0 and tags[i - 1] in _MODIFIER_TAGS:
        i -= 1
    return i > 1 and tokens[i - 1].text.lower() == "of" and tokens[i - 2].text.lower() in FRAME_NOUNS


def bare_noun(tokens: Sequence[Token], tags: Sequence[str], first: int) -> bool:
    """A singular noun with no determiner, possessive, number, quantifier or wh-word
    in its phrase ("Is it winter?", "someone's home"): a replacement would need one."""
    i = first
    while i > 0 and tags[i - 1] in ("JJ", "JJR", "JJS", "VBN", "VBG", "NN", "NNS"):
        i -= 1
    if i == 0:
        return True
    prev, tag = tokens[i - 1].text.lower(), tags[i - 1]
    return not (tag in ("DT", "PRP$", "CD", "POS", "PDT", "WDT", "WP", "WP$") or prev in (
        "what", "which", "whose", "many", "much", "some", "any", "no", "each", "every", "another", "this",
        "that", "these", "those", "of"))


def phrase_zipf(stats: Any, words: Sequence[str]) -> float:
    """wordfreq's estimate for a phrase: the frequencies combine as 1/f = sum(1/f_i), so a
    two-word name is rarer than its rarer word ("seed plants" 4.2: seed 4.5, plants 4.7)."""
    if len(words) == 1:
        return stats.zipf(words[0])
    return -math.log10(sum(10.0 ** -stats.zipf(w) for w in words))


def sense_share(wn: Any, lemma: str, sense: int, senses: Sequence[int]) -> float:
    """Share of `lemma`'s SemCor count that `sense` carries (1.0 for a monosemous lemma or
    one with fewer than SENSE_EVIDENCE counted uses)."""
    if len(senses) < 2:
        return 1.0
    total = sum(wn.count(s, lemma) for s in senses)
    if total < SENSE_EVIDENCE:
        return 1.0
    return wn.count(sense, lemma) / total


#: Words tagged IN that open no prepositional phrase after a verb ("look like", "seem as if").
_NOT_PREPOSITIONS = frozenset("like as than that if whether because so".split())


def infinitive_follows(tokens: Sequence[Token], tags: Sequence[str], last: int) -> bool:
    """Whether a to-infinitive follows the verb ending at `last` ("need to shave": Slot.infinitive)."""
    return last + 2 < len(tags) and tokens[last + 1].text.lower() == "to" and tags[last + 2] == "VB"


def preposition_follows(tokens: Sequence[Token], tags: Sequence[str], last: int) -> bool:
    """Whether a preposition follows the verb ending at `last` ("appear at the top": Slot.prepositional)."""
    return last + 1 < len(tags) and tags[last + 1] == "IN" and tokens[last + 1].text.lower() not in _NOT_PREPOSITIONS


#: Words before a participle that make it a passive ("is closed", "got hit").
_PASSIVE_AUXILIARIES = frozenset("is are was were be been being am 's get gets got".split())


def passive(tokens: Sequence[Token], tags: Sequence[str], first: int) -> bool:
    """Whether the verb at `first` is a participle after a form of be or get: a passive, whose
    object comes before it ("Is the store closed?")."""
    return tags[first] in ("VBN", "VBD") and any(t.text.lower() in _PASSIVE_AUXILIARIES for t in tokens[:first])


def verb_slot(tokens: Sequence[Token], tags: Sequence[str], first: int, last: int, transitive: bool, zipf: float,
              verb: bool) -> Slot:
    """The Slot of a verb (`verb`) or an adjective from `first` to `last`: for a verb, whether a
    to-infinitive or a preposition follows it; not the preposition after a passive, which opens
    the agent or an adjunct ("closed for the day": any transitive sense takes it)."""
    return Slot(transitive=transitive, zipf=zipf, infinitive=verb and infinitive_follows(tokens, tags, last),
                prepositional=verb and not passive(tokens, tags, first) and preposition_follows(tokens, tags, last))


def frame_noun(tokens: Sequence[Token], i: int) -> bool:
    """Whether token i is "kind"/"type"/"sort"/"variety" followed by "of", an indefinite
    pronoun the tagger took for a noun ("someone"), or a side of space in a complex
    preposition ("on the left", "in the middle", "at the top of")."""
    word = tokens[i].text.lower()
    if word in AXIS_NOUNS and i > 1 and tokens[i - 1].text.lower() == "the" and \
            tokens[i - 2].text.lower() in _SPATIAL_PREPOSITIONS:
        return True  # "bending to the left or right" -> "to the post or right"
    if word in AXIS_NOUNS and i > 1 and tokens[i - 1].text.lower() in ("or", "and") and \
            frame_noun(tokens, i - 2):
        return True  # ... and its coordinated side: "to the left or right" -> not "left or post"
    return word in PRONOUN_NOUNS or (word in FRAME_NOUNS and i + 1 < len(tokens) and tokens[i + 1].text.lower() == "of")


def verb_tag(stats: Any, word: str, lemma: str, tag: str, tokens: Sequence[Token], tags: Sequence[str],
             i: int) -> str | None:
    """The Penn tag whose lemminflect form of `lemma` is `word` (the tagger's `tag` first),
    or None when the word is no verb here (module docstring, "verb form")."""
    low = word.lower()
    if low in _PREPOSITIONAL and i + 1 < len(tokens) and tokens[i + 1].text.lower() == "to":
        return None
    # After do-support, "need" tagged MD is the main verb: "Does this room need repair?".
    after_verb = tags[i - 1] in _VERB_TAGS + ("VBP",) or (tags[i - 1] == "MD" and tokens[0].text.lower() in (
        "do", "does", "did")) if i > 0 else False
    if tag in ("VB", "VBP") and after_verb and tokens[i - 1].text.lower() not in _BARE_VERB_HOSTS and \
            not _is_auxiliary(tokens[i - 1].text):
        return None
    for candidate in (tag, "VB", "VBZ", "VBD", "VBN", "VBG"):
        form = lemma.lower() if candidate in ("VB", "VBP") else stats.inflect(lemma, candidate)
        if form == low:
            return "VBP" if candidate == "VB" and tag == "VBP" else candidate
    return None


def _is_auxiliary(word: str) -> bool:
    return word.lower() in ("be", "been", "being", "is", "are", "was", "were", "am", "have", "has", "had")


class Selection:
    """The nouns a verb's most frequent sense names in its gloss (play -> game, sport)."""

    def __init__(self, wn: Any) -> None:
        self.wn = wn
        self._gloss: dict[str, frozenset[str]] = {}

    def named(self, verb_lemma: str) -> frozenset[str]:
        """Content-word base forms of the gloss of the verb's first sense."""
        found = self._gloss.get(verb_lemma)
        if found is None:
            senses = self.wn.synsets(verb_lemma, "v")
            found = frozenset(content_bases(self.wn.definition(senses[0]), self.wn)) if senses else frozenset()
            self._gloss[verb_lemma] = found
        return found

    def for_noun(self, noun_lemma: str, verb_lemmas: Sequence[str]) -> frozenset[str]:
        """The words of the glosses (of the question's verbs) that name `noun_lemma`; empty
        when no verb names it (then the noun is free)."""
        out: frozenset[str] = frozenset()
        for verb in verb_lemmas:
            named = self.named(verb)
            if noun_lemma in named:
                out |= named
        return out
