"""Corrections of the tagger's Penn tags in the quality mode, made once per question before
any kind looks at it (issue 16; docs/counterfactual.md, rules 14 and 21).

The averaged-perceptron tagger often calls a predicate adjective or the adjective of a
noun phrase a noun ("Is the sky cloudy/NN?", "Is it a cloudy/NN day?", "Is the dog
afraid/NN of water?"), which made "cloudy day" an unlisted compound (no site, no
deletion); and it calls a noun after a determiner an adjective when nothing follows
("the boy in the middle/JJ"). WordNet settles both:

- an -ing word tagged NN right after a noun is a verb (VBG) when WordNet's SemCor counts
  make it one ("What is the man drinking/NN?"), and so is one that ends an inverted
  be-question's subject when its noun reading names an act, event, process or message
  ("Is the elephant walking/NN in a herd?", `_progressive`, rule 48);
- a word tagged NN that WordNet knows as an adjective base form (not a comparative:
  "cozier") and not as a noun is an adjective (JJ): "cloudy", "noisy", "afraid", "functional", "frozen" (not an -ing form of a verb:
  "a professional sporting event" stays a compound);
- a word tagged JJ right after a determiner, with no noun or adjective after it, that
  WordNet knows as a noun is a noun (NN): "in the middle", "on the left";
- in a do-question with no verb after "do/does/did", a word tagged NN right after a noun,
  before a preposition, particle, determiner or the end, that is a verb base form WordNet's
  counts allow is the main verb (VB): "Does the hand belong/NN to a man?", "Did this man
  jump/NN in the air?";
- a past participle between a determiner, possessive, adjective, adverb or number and a
  noun is an adjective (JJ): "a well organized room", "an organized event" (issue 24: as a
  verb it became "a well formed room"); it is a site of synonym_adj when WordNet lists it as
  an adjective, and no verb site;
- a base-form verb (VB, VBP) that a noun phrase opens, right after an article or a
  possessive or after adjectives (and numbers) that one opens, is a noun (NN) when WordNet
  knows it as one: "What color is the small cross/VB?" (as a verb it became "the small cut
  through"); not after "do" or a modal, which wait for the verb ("Does the light/JJ
  say to stop?"), nor after a demonstrative ("Does this look ...");
- a noun with a zero plural (lemminflect's plural is the word itself: sheep, deer, moose)
  tagged NN is plural (NNS) where its number shows: after "are"/"were" and the noun
  phrase's determiners and adjectives, before "are"/"were", or after "many" ("What are the
  sheep doing?" became "What are the goat doing?"; issue 24, seventh round's judge), and
  so is one of `ZERO_PLURALS`, whose -s plural lemminflect lists first ("fish": review of
  the ninth round; the quality mode's `zero_plural` holds them);
- a word tagged IN that ends the question after a noun is a noun (NN) when WordNet knows it
  as a noun with SemCor uses (not "at", "despite", "till": none) and not as an adverb or
  adjective (not "around", "over", "inside"): "What is around the bears neck/IN?" lost
  "around the bears" and became "What is neck?" (fifteenth round; rule 60);
- a word tagged NN that WordNet knows only as the plural of another noun (its base forms do
  not include the word itself) is plural (NNS): "What are the giraffes/NN doing?" became
  "What are the animal doing?" (issue 24, ninth round; rule 45); not "glasses", "pants"
  or "bus", which are base forms themselves.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .text import Token

__all__ = ["retag"]

_AFTER_NOUN = ("NN", "NNS", "NNP", "NNPS", "JJ", "JJR", "JJS", "VBG", "CD")


def retag(wn: Any, plausible: Callable[[str, str], bool], tokens: Sequence[Token], tags: list[str],
          zero_plural: Callable[[str], bool] = lambda word: False) -> list[str]:
    """`tags` with the corrections of the module docstring (a new list when any applies);
    `plausible(word, pos)` is the SemCor-count test of quality_mode.tag_plausible,
    `zero_plural(word)` whether a noun's plural is the word itself."""
    words = [t.text.lower() for t in tokens]
    # First the base-form verbs an article opens ("the small cross/VB"): the rules below read
    # the next word's tag ("small" stays an adjective before a noun).
    opened = [i for i, tag in enumerate(tags) if tag in ("VB", "VBP") and words[i].isalpha()
              and _opened_noun_phrase(words, tags, i) and words[i] in wn.morphy(words[i], "n")]
    if opened:
        tags = [("NN" if i in opened else tag) for i, tag in enumerate(tags)]
    progressive = _progressive(wn, plausible, words, tags)
    if progressive:  # rule 48: "Is the elephant walking/NN in a herd?"
        tags = [("VBG" if i in progressive else "NN" if i + 1 in progressive and tag == "JJ" else tag)
                for i, tag in enumerate(tags)]  # the subject's JJ a noun; an NNS stays plural
    out = tags
    # a do-question whose main verb the tagger missed: no verb after "do/does/did"
    first_verb = words[0] in ("do", "does", "did") and not any(
        t.startswith("VB") or t == "MD" for t in tags[1:])
    for i in range(len(tags)):
        word, tag = tokens[i].text, tags[i]
        low = words[i]
        new = tag
        if tag == "NN" and i > 0 and tags[i - 1] in ("NN", "NNS") and low.endswith("ing") and \
                not plausible(word, "n") and plausible(word, "v"):
            new = "VBG"  # "the man drinking", "the girl playing"
        elif tag == "NN" and low.isalpha() and not wn.morphy(low, "n") and low in wn.morphy(low, "a") and \
                not (low.endswith("ing") and wn.morphy(low, "v")):
            new = "JJ"  # "Is the sky cloudy?", "a noisy environment"
        elif tag == "JJ" and i > 0 and tags[i - 1] == "DT" and (i + 1 >= len(tags) or tags[i + 1] not in _AFTER_NOUN) \
                and wn.morphy(low, "n") and low.isalpha():
            new = "NN"  # "the boy in the middle", "on the left"
        elif tag == "NN" and first_verb and i > 1 and tags[i - 1] in ("NN", "NNS") and low in wn.morphy(low, "v") \
                and plausible(word, "v") and (i + 1 >= len(tags) or tags[i + 1] in ("IN", "TO", "RP", "DT", ".")):
            new = "VB"  # "Does the hand belong/NN to a man?", "Did this man jump/NN in the air?"
        elif tag == "IN" and i > 0 and tags[i - 1] in ("NN", "NNS") and (i + 1 == len(tags) or tags[i + 1] == ".") \
                and low.isalpha() and not wn.morphy(low, "r") and not wn.morphy(low, "a") \
                and any(wn.count(s, low) for s in wn.synsets(low, "n")):
            new = "NN"  # rule 60: "What is around the bears neck/IN?"
        if tag == "NN" and low.isalpha() and _plural_here(words, tags, i) and low in wn.morphy(low, "n") \
                and zero_plural(low):  # a WordNet noun's forms are prebuilt (word_stats): no lemminflect call
            new = "NNS"  # "What are the sheep doing?", "How many deer are there?"
        elif new == "NN" and low.isalpha() and low.endswith("s") and low not in wn.morphy(low, "n") and \
                wn.morphy(low, "n"):
            new = "NNS"  # rule 45: "What are the giraffes/NN doing?"
        if tag == "VBN" and 0 < i < len(tags) - 1 and tags[i + 1] in ("NN", "NNS") and \
                tags[i - 1] in ("DT", "PRP$", "JJ", "RB", "CD", "POS"):
            new = "JJ"  # "a well organized room", "the parked car": a participle used as an adjective
        if i and new.startswith("VB"):
            first_verb = False
        if new != tag:
            out = out[:i] + [new] + out[i + 1:] if out is tags else out
            out[i] = new
    return out


#: Nouns whose plural is mostly the word itself, though lemminflect lists the -s form first
#: ("fishes"), so that lemminflect alone misses them ("What color are the fish?"); the
#: quality mode's `zero_plural` counts them.
ZERO_PLURALS = frozenset({"fish", "aircraft", "salmon", "shrimp", "bison", "buffalo", "squid", "tuna", "cod"})
_PLURAL_BE = frozenset({"are", "were"})
_NOUN_PHRASE = frozenset({"DT", "PRP$", "JJ", "JJR", "JJS", "CD", "VBN", "NN"})


_ARTICLES = frozenset({"a", "an", "the"})


def _opened_noun_phrase(words: Sequence[str], tags: Sequence[str], i: int) -> bool:
    """Whether the word at `i` follows an article or a possessive, directly or after
    adjectives and numbers only ("the small", "his two big"), and no "do" or modal before
    it waits for a base-form verb ("Does the light/JJ say to stop?")."""
    if any(w in ("do", "does", "did") or t == "MD" for w, t in zip(words[:i], tags[:i])):
        return False
    j = i - 1
    while j >= 0 and tags[j] in ("JJ", "JJR", "JJS", "CD"):
        j -= 1
    return j >= 0 and (words[j] in _ARTICLES or tags[j] in ("PRP$", "POS"))


_BE = frozenset({"is", "are", "was", "were"})
#: What follows a progressive participle that ends its subject ("walking in", "entering or", "playing?").
_AFTER_PARTICIPLE = frozenset({"IN", "TO", "RP", "CC", "DT", "PRP$", "."})
#: Lexicographer files of a verbal noun (walk, playing, bending, advertising), not of a thing
#: named by an -ing word (building, clothing, painting, landing, evening).
_VERBAL_NOUN = frozenset({"noun.act", "noun.event", "noun.process", "noun.communication"})


def _progressive(wn: Any, plausible: Callable[[str, str], bool], words: Sequence[str], tags: Sequence[str]
                 ) -> frozenset[int]:
    """Rule 48 (eleventh round): the -ing words that end an inverted be-question's subject,
    which the tagger called nouns ("Is the elephant walking/NN in a herd?", "What sport is
    the athlete/JJ playing/NN?"): right after "is/are/was/were", a determiner, adjectives and
    one noun (a JJ that WordNet knows only as a noun counts: it becomes NN); before a
    preposition, particle, conjunction, determiner or the end; no verb after the be-word;
    a verb form whose counts allow it, and whose noun reading, if any, names an act, event,
    process or message (not "Is the hotel building in town?")."""
    found = set()
    for i in range(3, len(words)):
        low, prev = words[i], words[i - 1]
        if tags[i] not in ("NN", "JJ") or not low.endswith("ing") or not low.isalpha() or \
                (i + 1 < len(tags) and tags[i + 1] not in _AFTER_PARTICIPLE) or \
                not (tags[i - 1] in ("NN", "NNS") or tags[i - 1] == "JJ" and wn.morphy(prev, "n") and not wn.morphy(prev, "a")):
            continue
        j = i - 2
        while j >= 0 and tags[j] in ("JJ", "CD"):
            j -= 1
        if j < 1 or tags[j] not in ("DT", "PRP$") or words[j - 1] not in _BE or \
                any(t.startswith("VB") for t in tags[j:]) or not wn.morphy(low, "v") or not plausible(low, "v"):
            continue
        nouns = [s for s in wn.synsets(low, "n") if low in wn.lemma_names(s)]
        if not nouns or wn.lexname(nouns[0]) in _VERBAL_NOUN:
            found.add(i)
    return frozenset(found)


def _plural_here(words: Sequence[str], tags: Sequence[str], i: int) -> bool:
    """Whether the noun at `i` is plural by its context (`words`: the question's tokens in
    lower case): "many" right before it, "are"/"were" right after it, or "are"/"were" before
    it with only its noun phrase's words between."""
    if i > 0 and words[i - 1] == "many" or i + 1 < len(words) and words[i + 1] in _PLURAL_BE:
        return True
    j = i - 1
    while j >= 0 and tags[j] in _NOUN_PHRASE and words[j] not in _PLURAL_BE:
        j -= 1
    return j >= 0 and words[j] in _PLURAL_BE
