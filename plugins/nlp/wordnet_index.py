"""WordNet 3.0 as a prebuilt in-memory index: loads in a fraction of a second, no NLTK import.

NLTK's `WordNetCorpusReader` reads every index file and the sense map at construction
(several seconds, plus about 3 s to import nltk itself). The counterfactual generator only
needs lemma -> senses, morphy, a few pointer types, lemma counts, glosses and depths, so the
installed WordNet files (`corpora/wordnet`, found as `vqa_harness_plugins.nlp.wordnet` finds them)
are parsed once into plain tuples and lists and written with `marshal` to the harness cache:

    <cache>/resources/wordnet-index-<folder>-<key>.marshal

`<folder>` is a digest of the source folder's path, the key a digest of the index format
version and of (name, size, mtime) of every source file, so a changed or re-installed WordNet
builds a new index; stale index files of the same folder are removed (never those of another
installed WordNet).
`marshal` holds only plain data written by this module into the user's own cache folder.

Semantics follow NLTK's reader exactly where the generator relies on them (tested against
it): `morphy` is NLTK's `_morphy`, `synsets` its `synsets` (adjective satellites included),
synset names (`dog.n.01`), lemma sense keys, pointers in the order of the data file (NLTK
keeps them in sets), `max_depth` / `min_depth` over hypernyms and instance hypernyms.
Lemma counts come from `index.sense`; they differ from NLTK's `Lemma.count()` (read from
`cntlist.rev`) for 83 lemmas of WordNet 3.0, all adjective satellites, see docs/resources.md.
"""

from __future__ import annotations

import re
from array import array
from pathlib import Path
from typing import Any

from .base import quick_state
from .wordnet_build import SOURCE_FILES, build_index, check_folder, index_path, load_data  # noqa: F401
from .wordnet_corpus import wordnet_folder
from .wordnet_format import INDEX_VERSION

__all__ = ["INDEX_VERSION", "WordNetIndex", "check_folder", "index_path", "load_index", "wordnet_index"]

_SUBSTITUTIONS = {
    "n": [("s", ""), ("ses", "s"), ("ves", "f"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
          ("shes", "sh"), ("men", "man"), ("ies", "y")],
    "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
          ("ing", "")],
    "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "r": [],
}  # fmt: skip


class WordNetIndex:
    """Read-only WordNet 3.0: synsets are ints (`sid`), everything else plain strings/tuples."""

    def __init__(self, data: dict[str, Any]) -> None:
        # Large integer tables travel as array bytes: loading them creates no Python objects.
        self.lexnames: list[str] = data["lexnames"]
        self._lemma_data: dict[str, tuple[str, bytes, bytes]] = data["lemmas"]
        self._lemma_maps: dict[str, tuple[dict[str, int], array, array]] = {}
        self.exceptions: dict[str, dict[str, list[str]]] = data["exc"]
        s = data["syn"]
        self._name: list[str] = s["name"]
        self._pos: str = s["pos"]
        self._lex = _ints(s["lex"])
        self._words: list[tuple[str, ...]] = s["words"]
        self._counts: list[tuple[int, ...]] = s["counts"]
        self._ptr, self._ptr_off = _ints(s["ptr"]), _ints(s["ptr_off"])
        self._gloss: list[str] = s["gloss"]
        self._maxd, self._mind = _ints(s["maxd"]), _ints(s["mind"])
        self._frames: list[tuple[int, ...]] = s["frames"]
        self._by_name: dict[str, int] | None = None
        self._morphy_cache: dict[tuple[str, str], list[str]] = {}

    def _map(self, pos: str) -> tuple[dict[str, int], array, array]:
        """lemma -> row, and the flat sense table of `pos` (built on first use)."""
        found = self._lemma_maps.get(pos)
        if found is None:
            keys, flat, off = self._lemma_data[pos]
            found = self._lemma_maps[pos] = ({k: i for i, k in enumerate(keys.split("\n"))}, _ints(flat), _ints(off))
        return found

    def lemmas(self, pos: str) -> list[str]:
        """Every lemma of `pos` in index-file order ('_' for spaces)."""
        return list(self._map(pos)[0])

    def _senses(self, pos: str, lemma: str) -> tuple[int, ...]:
        rows, flat, off = self._map(pos)
        i = rows.get(lemma)
        return () if i is None else tuple(flat[off[i]:off[i + 1]])

    # ------------------------------------------------------------------ lookup
    def __len__(self) -> int:
        return len(self._name)

    def morphy(self, form: str, pos: str) -> list[str]:
        """Base forms of `form` that WordNet lists for `pos` (NLTK's `_morphy`, exceptions first)."""
        key = (form, pos)
        found = self._morphy_cache.get(key)
        if found is None:
            p = "a" if pos == "s" else pos
            exc = self.exceptions[p]
            forms = exc[form] if form in exc else [form[: -len(old)] + new for old, new in _SUBSTITUTIONS[p]
                                                     if form.endswith(old)]
            index = self._map(p)[0]
            found = list(dict.fromkeys(f for f in [form, *forms] if f in index))
            self._morphy_cache[key] = found
        return found

    def synsets(self, lemma: str, pos: str) -> list[int]:
        """Senses of `lemma` (any inflected form) for pos n/v/a/r, most frequent first (NLTK
        order; 'a' includes adjective satellites); pos 's' gives the satellites only, as NLTK."""
        if pos == "s":
            return [sid for sid in self.synsets(lemma, "a") if self._pos[sid] == "s"]
        return [sid for form in self.morphy(lemma.lower(), pos) for sid in self._senses(pos, form)]

    def has_lemma(self, lemma: str, pos: str) -> bool:
        """Whether `lemma` (base form, '_' for spaces) is a WordNet lemma of `pos`."""
        return lemma.lower() in self._map("a" if pos == "s" else pos)[0]

    def synset(self, name: str) -> int:
        """The sid of a synset name like 'dog.n.01' (KeyError if unknown)."""
        if self._by_name is None:
            self._by_name = {n: i for i, n in enumerate(self._name)}
        return self._by_name[name]

    # ------------------------------------------------------------------ synset fields
    def name(self, sid: int) -> str:
        """NLTK's synset name, e.g. 'dog.n.01'."""
        return self._name[sid]

    def pos(self, sid: int) -> str:
        """'n', 'v', 'a', 's' (adjective satellite) or 'r'."""
        return self._pos[sid]

    def lexname(self, sid: int) -> str:
        """The lexicographer file, e.g. 'noun.animal'."""
        return self.lexnames[self._lex[sid]]

    def lemma_names(self, sid: int) -> tuple[str, ...]:
        """Lemma names in WordNet's order ('_' for spaces, case as in WordNet)."""
        return self._words[sid]

    def lemma_counts(self, sid: int) -> tuple[int, ...]:
        """SemCor tag count of each lemma (index.sense), aligned with `lemma_names`."""
        return self._counts[sid]

    def count(self, sid: int, lemma: str) -> int:
        """Tag count of `lemma` in synset `sid` (0 when it is not a lemma of it)."""
        low = lemma.lower()
        for name, n in zip(self._words[sid], self._counts[sid]):
            if name.lower() == low:
                return n
        return 0

    def _group(self, sid: int, group: int) -> tuple[int, ...]:
        k = 5 * sid + group
        return tuple(self._ptr[self._ptr_off[k]:self._ptr_off[k + 1]])

    def hypernyms(self, sid: int) -> tuple[int, ...]:
        """Immediate hypernyms in data-file order (the first is the primary parent)."""
        return self._group(sid, 0)

    def instance_hypernyms(self, sid: int) -> tuple[int, ...]:
        return self._group(sid, 1)

    def hyponyms(self, sid: int) -> tuple[int, ...]:
        return self._group(sid, 2)

    def instance_hyponyms(self, sid: int) -> tuple[int, ...]:
        return self._group(sid, 3)

    def similar_tos(self, sid: int) -> tuple[int, ...]:
        return self._group(sid, 4)

    def definition(self, sid: int) -> str:
        """The gloss without its example sentences."""
        return re.sub(r'["].*?["]', "", self._gloss[sid]).strip().strip("; ")

    def examples(self, sid: int) -> list[str]:
        """The quoted example sentences of the gloss."""
        return re.findall(r'"([^"]*)"', self._gloss[sid])

    def frames(self, sid: int, lemma: str) -> frozenset[int]:
        """WordNet's verb frame numbers (1-35, wninput(5WN)) of `lemma` in verb synset `sid`:
        the frames of the whole synset plus those listed for that lemma."""
        low = lemma.lower()
        names = [n.lower() for n in self._words[sid]]
        pairs = self._frames[sid]
        out = set()
        for k in range(0, len(pairs), 2):
            frame, word = pairs[k], pairs[k + 1]
            if word == 0 or (word <= len(names) and names[word - 1] == low):
                out.add(frame)
        return frozenset(out)

    def max_depth(self, sid: int) -> int:
        """Length of the longest hypernym path to a root (entity.n.01 has 0)."""
        return self._maxd[sid]

    def min_depth(self, sid: int) -> int:
        """Length of the shortest hypernym path to a root."""
        return self._mind[sid]


def _ints(data: bytes) -> array:
    """An array('i') over bytes written by `build_index`."""
    out = array("i")
    out.frombytes(data)
    return out



# ---------------------------------------------------------------------- cache
def load_index(folder: Path) -> WordNetIndex:
    """The index for `folder`: read from the cache, or built, written atomically and read
    (ResourceError naming the file and line when a WordNet file is damaged)."""
    return WordNetIndex(load_data(folder))


_LOADED: dict[str, WordNetIndex] = {}
_FOUND: dict[tuple[Any, ...], str] = {}


def wordnet_index(target: Path | str | None = None) -> WordNetIndex:
    """The WordNet index of the installed WordNet (cached per process and on disk), or
    ResourceError naming `harness resources install` when WordNet is not installed."""

    state = quick_state(target)
    key = _FOUND.get(state)
    if key is None or key not in _LOADED:
        folder = wordnet_folder(target)
        key = _FOUND[state] = str(folder)
        if key not in _LOADED:
            _LOADED[key] = load_index(folder)
    return _LOADED[key]
