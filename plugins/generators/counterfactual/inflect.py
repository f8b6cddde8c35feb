"""Surface forms: a replacement lemma inflected like the word it replaces.

Only forms that can be produced reliably are produced; otherwise None, and the question
is skipped for that perturbation (counted as "inflection"). Rules:

- irregular forms come from WordNet's own exception lists (noun.exc, verb.exc, read in
  reverse: base -> forms); they also hold every doubled-consonant form (stop -> stopped,
  run -> running), so a regular rule is used only for verbs WordNet lists no form for;
- past tense vs. past participle cannot be told apart in verb.exc ("saw see", "seen see"):
  a verb with two irregular past forms is skipped for VBD/VBN;
- every produced form is checked by running WordNet's `morphy` back on it: it must lead to
  the lemma again, else None;
- multi-word lemmas ("pick_up", "hot_dog") inflect the verb's first word or the noun's
  last word and become spaced words ("picks up", "hot dogs").
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["EVERYDAY_PLURALS", "Inflector", "NOUN_TAGS", "VERB_TAGS"]

NOUN_TAGS = ("NN", "NNS")
#: Plurals in everyday use that lemminflect does not give (quality mode, rule 50): it lists
#: only "persons" for person, which blind judges called unnatural ("these athletes" ->
#: "these persons", issue 24's eleventh round; "the persons", the fifth round).
EVERYDAY_PLURALS = {"person": "people"}
VERB_TAGS = ("VB", "VBP", "VBZ", "VBD", "VBN", "VBG")
_CONSONANT_Y = re.compile(r"[^aeiou]y$")
_SIBILANT = ("s", "x", "z", "ch", "sh")


class Inflector:
    """Plural nouns and verb tenses from lemmas, checked against the WordNet index (paper mode)."""

    def __init__(self, wn: Any) -> None:
        self.wn = wn
        self._forms: dict[str, dict[str, list[str]]] = {"n": {}, "v": {}}
        for pos in ("n", "v"):
            # NLTK keeps the exception lists as form -> [bases]; we need base -> [forms].
            for form, bases in wn.exceptions[pos].items():
                for base in bases:
                    self._forms[pos].setdefault(base, []).append(form)
        self._cache: dict[tuple[str, str], str | None] = {}

    # ------------------------------------------------------------------ public
    def inflect(self, lemma: str, tag: str) -> str | None:
        """`lemma` (WordNet name, '_' for spaces) in the form Penn tag `tag` asks for."""
        key = (lemma, tag)
        if key not in self._cache:
            self._cache[key] = self._inflect(lemma, tag)
        return self._cache[key]

    # ----------------------------------------------------------------- helpers
    def _inflect(self, lemma: str, tag: str) -> str | None:
        words = lemma.split("_")
        if tag in ("NN", "JJ", "VB", "VBP"):
            return " ".join(words)
        if tag == "NNS":
            head = self._plural(words[-1])
            return None if head is None else " ".join(words[:-1] + [head])
        if tag in ("VBZ", "VBG", "VBD", "VBN"):
            head = self._verb(words[0], tag)
            return None if head is None else " ".join([head] + words[1:])
        return None

    def _checks(self, form: str, base: str, pos: str) -> bool:
        return base in self.wn.morphy(form, pos)

    def _plural(self, base: str) -> str | None:
        irregular = [f for f in self._forms["n"].get(base.lower(), []) if f != base.lower()]
        if len(irregular) == 1:
            return irregular[0]
        if len(irregular) > 1:
            return None  # octopi/octopuses: no single reliable form
        low = base.lower()
        if low.endswith(_SIBILANT):
            form = base + "es"
        elif _CONSONANT_Y.search(low):
            form = base[:-1] + "ies"
        else:
            form = base + "s"
        return form if self._checks(form.lower(), low, "n") else None

    def _verb(self, base: str, tag: str) -> str | None:
        low = base.lower()
        forms = self._forms["v"].get(low, [])
        if tag == "VBG":
            irregular = [f for f in forms if f.endswith("ing")]
        elif tag == "VBZ":
            irregular = [f for f in forms if f.endswith("s") and not f.endswith("ss")]
        else:
            irregular = [f for f in forms if not f.endswith("ing") and not (f.endswith("s") and f != low)]
        if len(irregular) == 1:
            return irregular[0]
        if len(irregular) > 1:
            return None  # saw/seen, swam/swum: tense cannot be restored reliably
        if tag == "VBZ":
            if low.endswith(_SIBILANT + ("o",)):
                form = low + "es"
            elif _CONSONANT_Y.search(low):
                form = low[:-1] + "ies"
            else:
                form = low + "s"
        elif tag == "VBG":
            if low.endswith("ie"):
                form = low[:-2] + "ying"
            elif low.endswith("e") and not low.endswith(("ee", "ye", "oe")) and len(low) > 2:
                form = low[:-1] + "ing"
            else:
                form = low + "ing"
        else:  # VBD / VBN, regular
            if low.endswith("e"):
                form = low + "d"
            elif _CONSONANT_Y.search(low):
                form = low[:-1] + "ied"
            else:
                form = low + "ed"
        return form if self._checks(form, low, "v") else None
