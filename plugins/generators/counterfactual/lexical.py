"""WordNet relations for the lexical perturbations, with one documented choice rule.

Choice (deterministic, no randomness):

1. the word's lemma is found with WordNet's `morphy` for the part of speech (for an
   inflected tag, a base form other than the word itself is preferred: "glasses" -> glass);
2. senses are visited in WordNet's order, i.e. most frequent sense first (sense numbers
   follow the SemCor tag counts); the first sense that yields any candidate is used;
3. among that sense's candidates the lemma with the highest WordNet lemma count wins;
   ties go to the synset first by name (hyponyms, siblings), then to WordNet's lemma
   order (the synset's head word first). NLTK returns related synsets in set order,
   which changes between processes, so nothing here relies on it;
4. the word itself and its inflections are never candidates (case-insensitive, '_' = ' '),
   nor multi-word lemmas that contain them ("sit" -> "sit down").

Relations: synonyms = other lemmas of the same synset (adjective synsets include
satellites); hypernym = lemmas of the sense's *first-listed* immediate hypernym, its
primary parent in WordNet (instance hypernym when it has none): dog.n.01 has two
parents, canine and domestic_animal, and Table 1's "dog -> canine" is the first;
hyponym = lemmas of its immediate hyponyms (not instances: those are proper names);
sibling = lemmas of the other hyponyms of that same first-listed parent ("dog -> wolf"),
or of its other instances when the word's sense is an instance ("America" -> Canada).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Replacement", "Lexicon", "RELATIONS", "EXCLUDED_VERBS"]

RELATIONS = ("synonym", "hypernym", "hyponym", "sibling")
#: Auxiliaries and copulas: their synonyms ("is" -> "exist") break the question.
EXCLUDED_VERBS = frozenset({"be", "do", "have", "can", "will", "shall", "may", "must", "get"})


@dataclass(frozen=True)
class Replacement:
    """A chosen replacement lemma Y for lemma X, and the synsets that justify it."""

    source_lemma: str
    target_lemma: str  # WordNet lemma name ('_' for spaces)
    source_synset: str
    target_synset: str


class Lexicon:
    """Cached WordNet lookups (on `vqa_harness_plugins.nlp.wordnet_index`): lemma of a word, and the
    paper-mode replacement per (lemma, pos, relation)."""

    def __init__(self, wn: Any) -> None:
        self.wn = wn
        self._lemma: dict[tuple[str, str, bool], str | None] = {}
        self._repl: dict[tuple[str, str, str], Replacement | None] = {}

    def lemma(self, word: str, pos: str, inflected: bool) -> str | None:
        """WordNet base form of `word` for pos 'n'/'v'/'a', or None if WordNet lacks it."""
        key = (word, pos, inflected)
        if key not in self._lemma:
            low = word.lower()
            bases = self.wn.morphy(low, pos)
            if inflected:
                bases = [b for b in bases if b != low] or bases
            self._lemma[key] = bases[0] if bases else None
        return self._lemma[key]

    def replacement(self, lemma: str, pos: str, relation: str) -> Replacement | None:
        """The chosen replacement (rule in the module docstring), or None."""
        key = (lemma, pos, relation)
        if key not in self._repl:
            self._repl[key] = self._choose(lemma, pos, relation)
        return self._repl[key]

    def first_parent(self, sense: int) -> tuple[int, ...]:
        """(the first hypernym listed in WordNet's data file,) else (the first instance
        hypernym,), or (). NLTK keeps pointers in sets whose order changes between
        processes; the index keeps the data file's order."""
        wn = self.wn
        return (wn.hypernyms(sense) or wn.instance_hypernyms(sense))[:1]

    # ----------------------------------------------------------------- helpers
    def _choose(self, lemma: str, pos: str, relation: str) -> Replacement | None:
        wn = self.wn
        banned = _variants(lemma)
        for sense in wn.synsets(lemma, pos):
            if relation == "synonym":
                groups = [sense]
            elif relation == "hypernym":
                groups = list(self.first_parent(sense))
            elif relation == "hyponym":
                groups = sorted(wn.hyponyms(sense), key=wn.name)
            elif relation == "sibling":
                # An instance (united_states.n.01) has instance siblings (Canada, Mexico).
                parents = self.first_parent(sense)
                instance = any(sense in wn.instance_hyponyms(p) for p in parents)
                groups = sorted((s for p in parents
                                 for s in (wn.instance_hyponyms(p) if instance else wn.hyponyms(p))
                                 if s != sense), key=wn.name)
            else:
                raise ValueError(f"unknown relation {relation!r}")
            best: tuple[tuple[int, int, int], int, str] | None = None
            for gi, synset in enumerate(groups):
                for li, (lem, count) in enumerate(zip(wn.lemma_names(synset), wn.lemma_counts(synset))):
                    name = _norm(lem)
                    # "sit" -> "sit down" is the same word, not a substitution.
                    if name in banned or banned.intersection(name.split()):
                        continue
                    rank = (-count, gi, li)
                    if best is None or rank < best[0]:
                        best = (rank, synset, lem)
            if best is not None:
                return Replacement(lemma, best[2], wn.name(sense), wn.name(best[1]))
        return None


def _norm(name: str) -> str:
    return name.replace("_", " ").lower()


def _variants(lemma: str) -> set[str]:
    """The lemma and its regular inflections (the word itself and its forms are banned)."""
    low = _norm(lemma)
    forms = {low, low + "s", low + "es", low + "ed", low + "d", low + "ing"}
    if low.endswith("y"):
        forms |= {low[:-1] + "ies", low[:-1] + "ied"}
    if low.endswith("e"):
        forms.add(low[:-1] + "ing")
    return forms
