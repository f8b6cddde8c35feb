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
from pathlib import Path
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
    """Cached WordNet lookups: lemma of a word, and replacement per (lemma, pos, relation)."""

    def __init__(self, wn: Any) -> None:
        self.wn = wn
        self._lemma: dict[tuple[str, str, bool], str | None] = {}
        self._repl: dict[tuple[str, str, str], Replacement | None] = {}
        self._parents: dict[tuple[str, int], list[Any]] = {}
        self._counts: dict[str, int] | None = None

    def lemma(self, word: str, pos: str, inflected: bool) -> str | None:
        """WordNet base form of `word` for pos 'n'/'v'/'a', or None if WordNet lacks it."""
        key = (word, pos, inflected)
        if key not in self._lemma:
            low = word.lower()
            bases = self.wn._morphy(low, pos)
            if inflected:
                bases = [b for b in bases if b != low] or bases
            self._lemma[key] = bases[0] if bases else None
        return self._lemma[key]

    def count(self, lem: Any) -> int:
        """`lem.count()` (SemCor tag count) from a table read once from index.sense:
        NLTK binary-searches that file on every call, which dominated generation time."""
        if self._counts is None:
            self._counts = _read_counts(self.wn)
        return self._counts.get(lem.key(), 0)

    def replacement(self, lemma: str, pos: str, relation: str) -> Replacement | None:
        """The chosen replacement (rule in the module docstring), or None."""
        key = (lemma, pos, relation)
        if key not in self._repl:
            self._repl[key] = self._choose(lemma, pos, relation)
        return self._repl[key]

    # ----------------------------------------------------------------- helpers
    def _choose(self, lemma: str, pos: str, relation: str) -> Replacement | None:
        banned = _variants(lemma)
        for sense in self.wn.synsets(lemma, pos):
            if relation == "synonym":
                groups = [sense]
            elif relation == "hypernym":
                groups = self._first_parent(sense)
            elif relation == "hyponym":
                groups = sorted(sense.hyponyms(), key=_name)
            elif relation == "sibling":
                # An instance (united_states.n.01) has instance siblings (Canada, Mexico).
                instance = sense in sum((p.instance_hyponyms() for p in self._first_parent(sense)), [])
                groups = sorted((s for parent in self._first_parent(sense)
                                 for s in (parent.instance_hyponyms() if instance else parent.hyponyms())
                                 if s != sense), key=_name)
            else:
                raise ValueError(f"unknown relation {relation!r}")
            best: tuple[tuple[int, int, int], Any, Any] | None = None
            for gi, synset in enumerate(groups):
                for li, lem in enumerate(synset.lemmas()):
                    name = _norm(lem.name())
                    # "sit" -> "sit down" is the same word, not a substitution.
                    if name in banned or banned.intersection(name.split()):
                        continue
                    rank = (-self.count(lem), gi, li)
                    if best is None or rank < best[0]:
                        best = (rank, synset, lem)
            if best is not None:
                return Replacement(lemma, best[2].name(), sense.name(), best[1].name())
        return None


    def _first_parent(self, sense: Any) -> list[Any]:
        """[the first hypernym listed in WordNet's data file] (else the first instance
        hypernym), or []. NLTK keeps pointers in a set, whose order changes from one
        process to the next, so the order is read from the data line itself."""
        key = (sense.pos(), sense.offset())
        if key not in self._parents:
            data = self.wn._data_file(sense.pos())
            data.seek(sense.offset())
            fields = data.readline().split()
            i = 4 + 2 * int(fields[3], 16)  # offset, lex_filenum, ss_type, w_cnt, words
            found: dict[str, list[tuple[str, int]]] = {"@": [], "@i": []}
            for _ in range(int(fields[i])):
                symbol, offset, pos = fields[i + 1], int(fields[i + 2]), fields[i + 3]
                if symbol in found:
                    found[symbol].append((pos, offset))
                i += 4
            first = (found["@"] or found["@i"])[:1]
            self._parents[key] = [self.wn.synset_from_pos_and_offset(p, o) for p, o in first]
        return self._parents[key]


def _read_counts(wn: Any) -> dict[str, int]:
    """sense key -> tag count from index.sense (plain file read when it is a folder)."""
    counts: dict[str, int] = {}
    root = getattr(wn.root, "path", None)
    path = Path(root) / "index.sense" if root else None
    fh = open(path, encoding="utf-8") if path is not None and path.is_file() else wn.open("index.sense")
    with fh:
        for line in fh:
            key, _offset, _number, tag_count = line.split()
            counts[key] = int(tag_count)
    return counts


def _name(synset: Any) -> str:
    return synset.name()


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
