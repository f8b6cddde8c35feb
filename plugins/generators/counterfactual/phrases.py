"""Phrases for the quality mode: noun compounds, noun phrases, phrasal verbs, and the check
that a question with a phrase deleted still reads as a question.

All of it works on the tagger's Penn tags (computed once per question):

- a *noun run* is a maximal sequence of NN/NNS tokens; its last token is the head, the
  others are modifiers ("traffic light": "traffic" modifies "light");
- a *noun phrase* is a noun run with what precedes it inside the phrase: adjectives,
  numbers, participles, color words, a possessive ("the man's"), and one determiner;
- a *phrasal verb* is a verb followed directly by a particle ("turned on") that WordNet
  lists as one lemma (turn_on).

Deletion candidates (the paper deletes one noun, which leaves "Is this a traffic?"):
a prepositional phrase "IN + NP" ("Is the cat on the table?" -> "Is the cat?" is
rejected by the check below, "Is the cat sitting on the table?" -> "Is the cat
sitting?" is kept), the noun phrase of a wh-determiner ("What kind of shoes is she
wearing?" -> "What is she wearing?"), the direct object of a verb that WordNet also
lists without an object, after a progressive ("Is he flipping the board?" -> "Is he flipping?";
rule 57), and one member of a coordination "NP and/or NP"
("Is this a man or a woman?" -> "Is this a man?"). A subject, object or predicate NP cannot go without breaking
the sentence, so it is never deleted. `reads_as_question` is the check every deletion must
pass (documented in docs/counterfactual.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from .text import Token

__all__ = [
    "NOUNS",
    "PARTICLES",
    "Span",
    "compound_spans",
    "deletion_spans",
    "demonstrative_spans",
    "noun_phrase_start",
    "noun_runs",
    "predicate_spans",
    "reads_as_question",
]

NOUNS = ("NN", "NNS")
#: Words that can be the particle of a phrasal verb (and of a phrasal replacement).
PARTICLES = frozenset("up down on off out in over away back around about through along apart".split())
_MODIFIERS = ("JJ", "JJR", "JJS", "CD", "VBN", "VBG", "NN", "NNS", "NNP")
_DETERMINERS = ("DT", "PRP$", "PDT", "WP$")
_DANGLING = ("IN", "DT", "CC", "TO", "PRP$", "POS", "WDT", "PDT")
_SUBJECTS = ("NN", "NNS", "NNP", "NNPS", "PRP", "EX", "CD")
_PRONOUN_DT = frozenset({"this", "that", "these", "those"})
#: "kind of room" -> "kind" is no phrase: "of NP" after these nouns is never deleted alone.
_CLASSIFIERS = frozenset("kind kinds type types sort sorts variety brand species breed style make model shade "
                         "color colour form manner part piece number amount lot pair group bunch couple".split())
_WH_DETERMINERS = frozenset({"what", "which", "whose"})
_BE = frozenset({"is", "are", "was", "were", "am"})
_AUXILIARIES = frozenset("is are was were be been am have has had do does did".split())
_DO_MODALS = frozenset("do does did can could will would should shall may might must".split())
_PREP_ADVERBS = frozenset({"next", "close", "due", "according", "prior", "ahead", "instead"})
_PREDICATES = ("JJ", "JJR", "JJS", "RB", "RBR", "RBS", "VBN", "VBG", "IN", "RP", "CD")


@dataclass(frozen=True)
class Span:
    """Tokens [first, last] (inclusive) to delete, and the head noun they are about;
    `article`: the index of an indefinite article that goes with them (predicate_spans)."""

    first: int
    last: int
    head: int
    article: int = -1


def noun_runs(tags: Sequence[str]) -> list[tuple[int, int]]:
    """(first, last) of every maximal run of NN/NNS tags."""
    runs, i = [], 0
    while i < len(tags):
        if tags[i] in NOUNS:
            j = i
            while j + 1 < len(tags) and tags[j + 1] in NOUNS:
                j += 1
            runs.append((i, j))
            i = j + 1
        else:
            i += 1
    return runs


def noun_phrase_start(tokens: Sequence[Token], tags: Sequence[str], first: int) -> int:
    """Index of the first token of the noun phrase whose noun run starts at `first`."""
    i = first
    while i > 0:
        prev, tag = tokens[i - 1].text.lower(), tags[i - 1]
        if prev in _WH_DETERMINERS:
            return i  # "Which room" (sometimes tagged NNP): the wh-word is not in the phrase
        if tag in _MODIFIERS and not (tag == "VBG" and (i - 1 == 0 or tags[i - 2] in _SUBJECTS)):
            i -= 1  # (a VBG after its subject is the verb: "Is the girl playing tennis?")
        elif tag == "POS" and i - 2 >= 0 and tags[i - 2] in NOUNS + ("NNP",):
            i -= 2  # "the man's hat": the possessor belongs to the phrase
        elif tag in _DETERMINERS or prev in ("a", "an", "the"):
            return i - 1
        else:
            return i
    return i


def deletion_spans(tokens: Sequence[Token], tags: Sequence[str], intransitive: Callable[[int], bool] | None = None
                   ) -> list[Span]:
    """Prepositional phrases, wh-determiner phrases, coordinated noun phrases, and direct
    objects of verbs that `intransitive(i)` (the verb at token i) says can go without one."""
    spans: list[Span] = []
    for first, last in noun_runs(tags):
        if last + 1 < len(tags) and tags[last + 1] == "POS":
            continue  # a possessor ("the person's"): it belongs to the phrase of its possessed noun
        start = noun_phrase_start(tokens, tags, first)
        of_classifier = start > 1 and tokens[start - 1].text.lower() == "of" and \
            tokens[start - 2].text.lower() in _CLASSIFIERS
        continues = last + 1 < len(tokens) and tokens[last + 1].text.lower() == "of"
        than = start > 1 and tokens[start - 1].text.lower() == "than" and tags[start - 2] in ("JJR", "RBR")
        if start > 0 and tags[start - 1] in ("IN", "TO") and not of_classifier and not continues and \
                (than or tokens[start - 1].text.lower() not in ("that", "if", "whether", "than", "because", "like")) \
                and (tokens[start - 1].text.lower() != "of" or _of_noun(tokens, tags, start - 2)
                     or start > 1 and tags[start - 2] in ("JJ", "RB")):
            # "of NP" only after a determined noun ("the side of the bus") or an adjective
            # or adverb ("afraid of water", "ahead of the train"), not after a participle or bare noun ("made of paper" ->
            # "made?", "part of this meal"); never "in front" of "of NP" (modifiers.py takes
            # "in front of NP" whole); "than NP" after a comparative ("faster than the bus").
            # "next to the plate", "close to the wall": the adverb goes with its preposition.
            pp = start - 2 if start > 1 and tokens[start - 2].text.lower() in _PREP_ADVERBS else start - 1
            spans.append(Span(pp, last, last))
            if pp < start - 1 and tokens[start - 1].text.lower() == "of":
                spans.append(Span(start - 1, last, last))  # "Is the bicycle ahead of the train?" -> "ahead?"
        # "What sport is this?" -> "What is this?"; "What kind of shoes ..." -> "What ...":
        # the noun phrase of a wh-determiner (with its "of NP" complement) goes.
        if start > 0 and tokens[start].text.lower() in ("many", "much") and \
                tokens[start - 1].text.lower() == "how" and start + 1 <= first:
            start += 1  # "How many people are there?" -> "How many are there?"
        if start > 0 and _wh_determiner(tokens, start - 1):
            end = last
            if end + 2 < len(tags) and tokens[end + 1].text.lower() == "of":
                nested = [r for r in noun_runs(tags) if r[0] > end + 1]
                if nested and noun_phrase_start(tokens, tags, nested[0][0]) == end + 2:
                    end = nested[0][1]
            if end + 1 >= len(tokens) or tokens[end + 1].text.lower() != "of":
                spans.append(Span(start, end, last))  # rule 58: not "What branch of military" -> "What of military"
        # The object of a verb that WordNet also lists without an object (frames "Somebody
        # ----s", ...). Rule 57: only after a progressive ("Is he flipping the board?" -> "Is he flipping?"),
        # whose activity reading needs no object, and not before "to" ("teaching the child to
        # ski"): "Did he also buy a beverage?" -> "Did he also buy?" leaves an object missing.
        if start > 0 and tags[start - 1] == "VBG" and intransitive is not None and intransitive(start - 1) and \
                (last + 1 >= len(tags) or tags[last + 1] != "TO"):
            spans.append(Span(start, last, last))
        # "X and NP" -> delete "and NP"; "NP and X" -> delete "NP and".
        ends = last + 1 >= len(tags) or tags[last + 1] in (".", ",") or tags[last + 1].startswith("VB")
        if start > 0 and tags[start - 1] == "CC" and ends:  # not "the zebra in the front (or the zebra) in the back"
            spans.append(Span(start - 1, last, last))
        elif last + 1 < len(tags) and tags[last + 1] == "CC" and last + 2 < len(tags) and \
                tags[last + 2] in _DETERMINERS + _MODIFIERS:
            spans.append(Span(start, last + 1, last))
    return sorted(set(spans), key=lambda s: (s.first, s.last))


def demonstrative_spans(tokens: Sequence[Token], tags: Sequence[str]) -> list[Span]:
    """The modifiers and nouns after a demonstrative determiner, which then stands alone
    ("Is this meal healthy?" -> "Is this healthy?"); not a possessor ("this man's hat")."""
    spans = []
    for first, last in noun_runs(tags):
        if last + 1 < len(tags) and tags[last + 1] == "POS":
            continue
        if last + 1 < len(tokens) and tokens[last + 1].text.lower() == "of":
            continue  # "this piece of furniture": the phrase goes on
        start = noun_phrase_start(tokens, tags, first)
        if start < first and tokens[start].text.lower() in _PRONOUN_DT:
            spans.append(Span(start + 1, last, last))
    return spans


def predicate_spans(tokens: Sequence[Token], tags: Sequence[str]) -> list[Span]:
    """The noun (and its indefinite article) of a be-question's final predicate noun phrase
    after a pronoun subject, whose adjectives then stand as the predicate: "Is this a
    healthy meal?" -> "Is this healthy?", "Are these vintage stoves?" -> "Are these vintage?"."""
    words = [i for i, t in enumerate(tokens) if t.text[:1].isalnum()]
    runs = noun_runs(tags)
    if len(words) < 4 or tokens[0].text.lower() not in _BE or not runs or runs[-1][1] != words[-1]:
        return []
    if not (tags[1] == "PRP" or tokens[1].text.lower() in _PRONOUN_DT):
        return []
    first, last = runs[-1]
    i = first
    while i > 2 and tags[i - 1] == "JJ":
        i -= 1
    if i == first:
        return []
    if i == 2:
        return [Span(first, last, last)]
    if i == 3 and tokens[2].text.lower() in ("a", "an"):
        return [Span(first, last, last, 2)]
    return []


def compound_spans(tokens: Sequence[Token], tags: Sequence[str], head_is_kind: Callable[[int, int], bool]
                   ) -> list[Span]:
    """The modifier nouns of a noun compound that has a determiner or modifier before it,
    when `head_is_kind(first, last)` says the head names a kind of the compound ("a train
    station" -> "a station"; "Is it night time?", with nothing before, is left alone)."""
    spans = []
    for first, last in noun_runs(tags):
        if first == last or noun_phrase_start(tokens, tags, first) == first:
            continue
        if last + 1 < len(tags) and tags[last + 1] == "POS":
            continue
        if head_is_kind(first, last):
            spans.append(Span(first, last - 1, last - 1))
    return spans


def _of_noun(tokens: Sequence[Token], tags: Sequence[str], i: int) -> bool:
    """Whether token i is a noun with a determiner or modifier of its own ("the side")."""
    if i < 0 or tags[i] not in NOUNS:
        return False
    first = i
    while first > 0 and tags[first - 1] in NOUNS:
        first -= 1
    return noun_phrase_start(tokens, tags, first) < first


def _base_verb_first(words: Sequence[tuple[str, str]]) -> bool:
    """Whether the first verb after the auxiliary is a base form (VB, or VBP) that no "to"
    precedes: "Did this in the air to attain ...?" has none."""
    for k in range(1, len(words)):
        tag = words[k][1]
        if tag.startswith("VB") or tag == "MD":
            return tag in ("VB", "VBP") and words[k - 1][1] != "TO"
    return False


def _wh_determiner(tokens: Sequence[Token], i: int) -> bool:
    """Whether token i is "what"/"which"/"whose" or the "many"/"much" of "how many/much"."""
    word = tokens[i].text.lower()
    if word in _WH_DETERMINERS:
        return True
    return word in ("many", "much") and i > 0 and tokens[i - 1].text.lower() == "how"


def reads_as_question(tokens: Sequence[Token], tags: Sequence[str], original_first: str,
                      original_last: str = "") -> bool:
    """The simple parse check for a shortened question (tokens/tags of the result):

    1. it starts with the same word as the original (a wh-word or an auxiliary);
    2. it still has a verb (any VB* or MD tag, or a form of be/do/have);
    3. after its first word it still has something to ask about: a noun, a pronoun,
       "there", a number or a demonstrative (this/that/these/those), unless the first word
       is a wh-pronoun that can be the subject itself ("What is being played?");
    4. it has at least three words;
    5. its last word before the final punctuation cannot end a phrase (not IN, DT other
       than this/that/these/those, CC, TO, a possessive, PDT or WDT): nothing dangles;
    6. a question opened by a form of "be" with no other verb keeps a predicate: "there",
       an adjective, adverb, participle, preposition or number, or a second noun phrase
       ("Is the cat on the table?" -> "Is the cat?" fails);
    7. a question opened by do/does/did or a modal keeps a verb in its base form (VB, or
       VBP, which the tagger often gives it there) as its first verb, not after "to":
       "Does this man like horseback riding?" -> "Does this man riding?" fails, and so does
       "Did this in the air to attain ...?";
    8. a question opened by "what/which/who are/were" keeps a subject right after the verb:
       "What kind of flowers are in the vase?" -> "What are in the vase?" fails;
    9. "which" keeps its noun ("Which holds a fork?" fails), and a demonstrative does not end
       it after a preposition or verb unless it did before ("... is in this?" fails);
    10. "why" with a form of "be" and no other verb keeps a predicate after the subject, as
       in 6: "Why is the cow on a leash?" -> "Why is the cow?" fails (rule 53), while "Where
       is the cow?" and "How is the man?" ask for the predicate themselves.
    (In 6, a demonstrative followed by a noun or adjective is a determiner, not a phrase:
    "Are these animals in a zoo?" -> "Are these animals?" fails.)"""
    words = [(t.text, tag) for t, tag in zip(tokens, tags) if t.text[:1].isalnum() or t.text.startswith("'")]
    if len(words) < 3 or words[0][0].lower() != original_first.lower():
        return False
    if not any(tag.startswith("VB") or tag == "MD" for _, tag in words):
        return False
    if words[0][0].lower() not in ("what", "who", "which") and not any(
            tag in _SUBJECTS or w.lower() in _PRONOUN_DT for w, tag in words[1:]):
        return False
    last = words[-1][0].lower()
    if words[-1][1] in _DANGLING and last not in _PRONOUN_DT and last != original_last.lower():
        return False
    if words[-1][0].lower() in _AUXILIARIES:
        return False
    if words[0][0].lower() in _DO_MODALS and not _base_verb_first(words):
        return False
    why_be = words[0][0].lower() == "why" and words[1][0].lower() in _BE  # 10: "Why is the cow?"
    if (words[0][0].lower() in _BE or why_be) and \
            not any(tag.startswith("VB") or tag == "MD" for _, tag in words[1 + why_be:]):
        words = words[why_be:]
        phrases = len(noun_runs([tag for _, tag in words]))
        phrases += sum(1 for k, (w, tag) in enumerate(words[1:], 1) if tag == "PRP" or (
            w.lower() in _PRONOUN_DT and tag == "DT" and (k + 1 == len(words) or words[k + 1][1] not in _MODIFIERS)))
        return phrases >= 2 or any(tag in _PREDICATES or tag == "EX" for _, tag in words[1:])
    if words[0][0].lower() == "which" and (words[1][1].startswith("VB") or words[1][1] == "MD"):
        return False  # "Which hand holds a fork?" -> "Which holds a fork?": which of what? (issue 24)
    if last in _PRONOUN_DT and len(words) > 3 and words[-2][1] in ("IN", "RP", "VB", "VBG") and \
            last != original_last.lower():
        return False  # "What kind of floor is in this room?" -> "... is in this?" (issue 24)
    if words[0][0].lower() in ("what", "which", "who") and words[1][0].lower() in ("are", "were") and (
            len(words) < 3 or words[2][1] not in _DETERMINERS + _MODIFIERS + ("PRP", "EX")):
        return False  # "What are in the vase?": a plural verb with no plural subject left
    return True
