"""Third-round quality rules for nouns (issue 16; docs/counterfactual.md, rules 17-19): which
ancestor may stand for a word, when a word's sense is too uncertain to build on, and what a
member of a coordination may become.

Each rule answers faults seen in the second round's judged sample of VQA-X val:

- **past a technical parent** (`basic_level`): the walk up from a word passes over parents
  whose names are rare words (canine, carnivore, placental: dog -> animal); but once it
  has passed a parent with an everyday name that was too rare *relative to the word*
  (rule 11: photo -> "representation"), what lies above is a category of that technical
  parent, not of the word ("creation"); only the root of a lexicographer file (noun.Tops:
  person, animal, plant, food) still names what the word is (man -> "male" is passed
  over, person is kept);
- **same lexicographer file** (`basic_level`): an ancestor in another lexicographer file
  than the word's sense (other than noun.Tops) names another kind of thing: right (an
  attribute) -> "thought", inning (time) -> "part", toothpaste (artifact) -> "preparation";
- **thin sense evidence** (`ambiguous`): a noun whose senses split its few SemCor uses
  (the chosen sense has fewer than SENSE_EVIDENCE_MIN uses and another sense has any) is
  skipped: the counts of the 1960s Brown corpus cannot tell which sense a photo question
  means (toilet: the room 3 uses, the fixture 2; match: the lighter 4, the contest 1;
  banana: the plant 1, the fruit 1);
- **coordination** (`coordination`): in "X or Y" / "X and Y" a replacement of X that is Y
  or a more general term of Y loses the contrast the question asks about ("a man or
  woman" -> "a person or woman", "a male or female" -> "an animal or female").
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .text import Token

__all__ = ["MANY_SENSES", "MAX_STEPS", "SENSE_EVIDENCE_MIN", "TOPS", "beyond_basic_level", "coordinated",
           "read_otherwise", "thin_evidence"]

#: A polysemous noun's chosen sense needs this many SemCor uses when another sense has any.
SENSE_EVIDENCE_MIN = 5
TOPS = "noun.Tops"
#: An ancestor more than this many steps above the word (other than a noun.Tops root) is
#: too general to stand for it: window -> "supporting structure", lid -> "animal tissue".
MAX_STEPS = 2
#: A hypernym lemma with this many senses or more is read in one of its first two.
MANY_SENSES = 10
_NOUN_TAGS = ("NN", "NNS")
_DETERMINERS = frozenset("a an the this that these those his her their its my your our".split())


def beyond_basic_level(wn: Any, sense: int, ancestor: int, past_technical: bool, level: int) -> bool:
    """Whether `ancestor` of `sense`, `level` + 1 steps up, is no basic-level stand-in for
    it: another lexicographer file than the sense's, more than MAX_STEPS up, or anything
    once the walk has passed a technical parent; noun.Tops roots always stand (module
    docstring)."""
    lexname = wn.lexname(ancestor)
    if lexname == TOPS:
        return False
    return past_technical or level >= MAX_STEPS or lexname != wn.lexname(sense)


def read_otherwise(senses: Sequence[int], synset: int) -> bool:
    """Whether a hypernym lemma with `senses` (WordNet order) is read in another meaning than
    `synset`: it has at least MANY_SENSES senses and `synset` is not among its first two
    (the caller exempts the head of the word's own compound: traffic light -> "light")."""
    return len(senses) >= MANY_SENSES and synset not in senses[:2]


def thin_evidence(wn: Any, lemma: str, sense: int, senses: Sequence[int]) -> bool:
    """Whether the SemCor counts of a polysemous noun are too few to trust `sense` over the
    others: it has fewer than SENSE_EVIDENCE_MIN uses and another sense has at least one."""
    if len(senses) < 2:
        return False
    own = wn.count(sense, lemma)
    return own < SENSE_EVIDENCE_MIN and any(wn.count(s, lemma) for s in senses if s != sense)


def coordinated(tokens: Sequence[Token], tags: Sequence[str], first: int, last: int,
                lemma: Callable[[str, str], str | None]) -> str:
    """The lemma of the noun coordinated with tokens[first..last] by "and"/"or" ("a man or
    (a) woman" -> "woman" for "man", "man" for "woman"), or ""."""
    after = last + 1
    if after < len(tokens) and tokens[after].text.lower() in ("and", "or"):
        j = after + 1
        while j < len(tokens) and (tokens[j].text.lower() in _DETERMINERS or tags[j] in ("JJ", "CD")):
            j += 1
        while j + 1 < len(tokens) and tags[j] in _NOUN_TAGS and tags[j + 1] in _NOUN_TAGS:
            j += 1  # the head of "a man or a tennis player"
        if j < len(tokens) and tags[j] in _NOUN_TAGS:
            return lemma(tokens[j].text, tags[j]) or ""
    j = first - 1
    while j >= 0 and (tokens[j].text.lower() in _DETERMINERS or tags[j] in ("JJ", "CD")):
        j -= 1
    if j >= 1 and tokens[j].text.lower() in ("and", "or") and tags[j - 1] in _NOUN_TAGS:
        return lemma(tokens[j - 1].text, tags[j - 1]) or ""
    return ""
