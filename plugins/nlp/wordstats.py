"""Word frequencies (wordfreq) and inflections (lemminflect) of WordNet's vocabulary, prebuilt.

The quality-controlled counterfactual generator asks two questions of every replacement:
is it a common English word (wordfreq's Zipf frequency: log10 of occurrences per billion
words, so 3.0 = once per million), and what is its surface form for a Penn tag
(lemminflect, a maintained inflection library)? Importing both libraries and loading
their data costs about 1.5 s, so the answers for WordNet's whole vocabulary are computed
once (about 3 s) and cached with `marshal` in the harness cache:

    <cache>/resources/wordstats-<folder>-<key>.marshal

`<folder>` names the WordNet folder; the key holds the WordNet index file (whose name holds
the WordNet files' sizes and times), the wordfreq and lemminflect versions and the format
version; older files of the same folder are removed. Words outside that vocabulary are looked up live (same values, slower).
"""

from __future__ import annotations

import importlib.metadata as md
from pathlib import Path
from typing import Any

from harness.errors import ResourceError
from harness.paths import cache_dir

from .indexfiles import cache_name, marshal_file, older_versions
from .wordnet_corpus import wordnet_folder
from .wordnet_index import index_path, wordnet_index

__all__ = ["WordStats", "word_stats", "library_versions", "NOUN_FORMS", "VERB_FORMS"]

CACHE_VERSION = 3
#: The Penn tags whose forms are tabulated (the base forms are the lemma itself).
NOUN_FORMS = ("NNS",)
VERB_FORMS = ("VBZ", "VBD", "VBN", "VBG")


def library_versions() -> dict[str, str]:
    """The installed wordfreq and lemminflect versions ("missing" for one not installed): the word
    statistics depend on them (their cache key; the counterfactual probe's quality-mode key)."""
    out = {}
    for dist in ("wordfreq", "lemminflect"):
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            out[dist] = "missing"
    return out


class WordStats:
    """Zipf frequency of a word and lemminflect's form of a lemma for a tag."""

    def __init__(self, zipf: dict[str, float], forms: dict[str, dict[str, str]]) -> None:
        self._zipf, self._forms = zipf, forms

    def zipf(self, word: str) -> float:
        """wordfreq's English Zipf frequency of `word` (lower-cased); 0 when unseen."""
        low = word.lower()
        value = self._zipf.get(low)
        if value is None:
            from wordfreq import zipf_frequency  # heavy: wordfreq loads its word lists on import

            value = self._zipf[low] = zipf_frequency(low, "en")
        return value

    def vocabulary(self, min_zipf: float = 0.0) -> list[str]:
        """The prebuilt vocabulary's words with Zipf >= `min_zipf`, sorted."""
        return sorted(w for w, z in self._zipf.items() if z >= min_zipf)

    def inflect(self, word: str, tag: str) -> str | None:
        """lemminflect's first form of the one-word lemma `word` for Penn `tag` (NN/NNS,
        VB/VBP/VBZ/VBD/VBN/VBG, JJ), or None when lemminflect does not know the word."""
        if tag in ("NN", "JJ", "VB", "VBP"):
            return word
        pos = "n" if tag.startswith("N") else "v"
        key = f"{pos}:{word.lower()}"
        if key not in self._forms:
            self._forms[key] = _lemminflect(word.lower(), pos)
        return self._forms[key].get(tag)


def _lemminflect(word: str, pos: str) -> dict[str, str]:
    # getInflection per tag, not getAllInflections: the latter leaves out forms equal to
    # another tag's (no VBN "acted" for "act"). No out-of-vocabulary guessing.
    from lemminflect import getInflection

    found = {t: getInflection(word, t, inflect_oov=False) for t in (NOUN_FORMS if pos == "n" else VERB_FORMS)}
    return {t: forms[0] for t, forms in found.items() if forms}


def _build(wn: Any) -> tuple[dict[str, float], dict[str, dict[str, str]]]:
    from wordfreq import zipf_frequency  # heavy: wordfreq loads its word lists on import

    forms: dict[str, dict[str, str]] = {}
    heads = {("n", lemma.split("_")[-1].lower()) for lemma in wn.lemmas("n")}
    heads |= {("v", lemma.split("_")[0].lower()) for lemma in wn.lemmas("v")}
    for pos, word in sorted(heads):
        forms[f"{pos}:{word}"] = _lemminflect(word, pos)  # {} when lemminflect does not know it
    words: set[str] = set()
    for pos in ("n", "v", "a"):
        for lemma in wn.lemmas(pos):
            words.update(lemma.lower().split("_"))
    for found in forms.values():
        words.update(found.values())
    return {w: zipf_frequency(w, "en") for w in sorted(words)}, forms


def _cache_path(index_file: Path, folder: Path) -> Path:
    """Where the tables for the WordNet in `folder` (index file `index_file`) are cached."""
    name = cache_name("wordstats", str(folder.resolve()),
                      {"version": CACHE_VERSION, "index": index_file.name, **library_versions()})
    return cache_dir("resources") / name


_LOADED: dict[str, WordStats] = {}


def word_stats(target: Path | str | None = None) -> WordStats:
    """The tables for the installed WordNet (cached per process and on disk). Needs the
    `wordfreq` and `lemminflect` packages the first time (ResourceError otherwise)."""

    wn = wordnet_index(target)
    folder = wordnet_folder(target)
    path = _cache_path(index_path(folder), folder)
    key = str(path)
    if key in _LOADED:
        return _LOADED[key]

    def build() -> tuple[Any, Any]:
        if "missing" in library_versions().values():
            raise ResourceError("the quality counterfactual mode needs wordfreq and lemminflect: "
                                "pip install 'wordfreq>=3.0,<4' 'lemminflect>=0.2.3,<0.3'")
        return _build(wn)

    zipf, forms = marshal_file(path, build, valid=lambda d: isinstance(d, (tuple, list)) and len(d) == 2,
                               older=older_versions(path.name))
    stats = WordStats(zipf, forms)
    _LOADED[key] = stats
    return stats
