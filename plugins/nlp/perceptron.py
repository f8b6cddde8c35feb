"""The averaged-perceptron POS tagger without importing NLTK (which alone takes about 3 s).

The algorithm is NLTK's `PerceptronTagger.tag` (features, normalization, tag dictionary,
arg-max with the alphabetic tie-break), reimplemented in a few lines and tested to give the
same tags as NLTK. The weights are the installed JSON files
(`taggers/averaged_perceptron_tagger_eng/`, see tagger.py), read once and cached with
`marshal` (plain dicts) in the harness cache:

    <cache>/resources/pos-tagger-<key>.marshal

keyed by the format version and (name, size, mtime) of the JSON files, so a re-installed
tagger builds a new cache; stale files are removed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.cache.files import marshal_file
from harness.digest import digest
from harness.errors import ResourceError
from harness.paths import cache_dir

from .base import candidate_roots, quick_state, resolve_target

__all__ = ["FastPerceptronTagger", "fast_tagger", "tagger_folder", "NOT_INSTALLED", "TAGGER_DIR", "TAGGER_FILES"]

NOT_INSTALLED = "the English POS tagger is not installed; run `harness resources install`"
#: NLTK >= 3.9 finds the English tagger here (nltk/tag/perceptron.py, `param_files`).
TAGGER_DIR = "taggers/averaged_perceptron_tagger_eng"
TAGGER_FILES = tuple(
    f"averaged_perceptron_tagger_eng.{part}.json" for part in ("weights", "tagdict", "classes")
)

CACHE_VERSION = 1
_START = ["-START-", "-START2-"]
_END = ["-END-", "-END2-"]


class FastPerceptronTagger:
    """Penn Treebank tags from averaged-perceptron weights (NLTK's algorithm)."""

    def __init__(self, weights: dict[str, dict[str, float]], tagdict: dict[str, str], classes: list[str]) -> None:
        self.weights, self.tagdict = weights, tagdict
        self.classes = sorted(classes)
        self._class_set = frozenset(self.classes)
        self._classes_desc = self.classes[::-1]
        self._memo: dict[tuple[str, ...], list[tuple[str, str]]] = {}

    def _best(self, scores: dict[str, float]) -> str:
        """NLTK's `max(classes, key=lambda c: (scores[c], c))`, without scanning every class:
        the best scored class, or the alphabetically last unscored class (score 0) when that
        beats it."""
        best_label, best = "", (float("-inf"), "")
        for label, score in scores.items():
            if label in self._class_set and (score, label) > best:
                best_label, best = label, (score, label)
        if best[0] <= 0.0:
            for label in self._classes_desc:
                if label not in scores:
                    if (0.0, label) > best:
                        best_label = label
                    break
        return best_label

    @staticmethod
    def normalize(word: str) -> str:
        """NLTK's normalization: hyphenated words, years, digits, lower case."""
        if "-" in word and word[0] != "-":
            return "!HYPHEN"
        if word.isdigit() and len(word) == 4:
            return "!YEAR"
        if word and word[0].isdigit():
            return "!DIGITS"
        return word.lower()

    def tag(self, tokens: list[str]) -> list[tuple[str, str]]:
        """[(token, tag)] for a tokenized sentence (memoized: datasets repeat questions)."""
        key = tuple(tokens)
        found = self._memo.get(key)
        if found is None:
            if len(self._memo) > 200_000:
                self._memo.clear()
            found = self._memo[key] = self._tag(list(tokens))
        return list(found)

    def _tag(self, tokens: list[str]) -> list[tuple[str, str]]:
        prev, prev2 = _START
        out: list[tuple[str, str]] = []
        context = _START + [self.normalize(w) for w in tokens] + _END
        weights = self.weights
        for i, word in enumerate(tokens):
            tag = self.tagdict.get(word)
            if not tag:
                j = i + 2
                feats = (
                    "bias", "i suffix " + word[-3:], "i pref1 " + (word[0] if word else ""),
                    "i-1 tag " + prev, "i-2 tag " + prev2, f"i tag+i-2 tag {prev} {prev2}",
                    "i word " + context[j], f"i-1 tag+i word {prev} {context[j]}",
                    "i-1 word " + context[j - 1], "i-1 suffix " + context[j - 1][-3:],
                    "i-2 word " + context[j - 2], "i+1 word " + context[j + 1],
                    "i+1 suffix " + context[j + 1][-3:], "i+2 word " + context[j + 2],
                )  # fmt: skip
                scores: dict[str, float] = {}
                for feat in feats:  # a repeated feature counts twice, as in NLTK's dict of counts
                    w = weights.get(feat)
                    if w:
                        for label, weight in w.items():
                            scores[label] = scores.get(label, 0.0) + weight
                tag = self._best(scores)
            out.append((word, tag))
            prev2, prev = prev, tag
        return out


def tagger_folder(target: Path | str | None = None) -> Path:
    """The installed tagger folder (no nltk import), or ResourceError naming the install command."""
    for root in candidate_roots(resolve_target(target)):
        folder = root / TAGGER_DIR
        if all((folder / name).is_file() for name in TAGGER_FILES):
            return folder
    raise ResourceError(NOT_INSTALLED)


def _cache_path(folder: Path) -> Path:
    stats = [[n, (folder / n).stat().st_size, (folder / n).stat().st_mtime_ns] for n in TAGGER_FILES]
    key = digest({"version": CACHE_VERSION, "folder": str(folder.resolve()), "files": stats})[:16]
    return cache_dir("resources") / f"pos-tagger-{key}.marshal"


def _load(folder: Path) -> FastPerceptronTagger:
    def build() -> tuple[Any, Any, Any]:  # from the JSON files
        params: list[Any] = []
        for name in TAGGER_FILES:
            with open(folder / name, encoding="utf-8") as fh:
                params.append(json.load(fh))
        return (params[0], params[1], sorted(params[2]))

    data = marshal_file(_cache_path(folder), build, valid=lambda d: isinstance(d, tuple) and len(d) == 3,
                        older="pos-tagger-*.marshal")
    return FastPerceptronTagger(*data)


_LOADED: dict[str, FastPerceptronTagger] = {}
_FOUND: dict[tuple[Any, ...], str] = {}


def fast_tagger(target: Path | str | None = None) -> FastPerceptronTagger:
    """The installed tagger (cached per process and on disk)."""
    state = quick_state(target)
    key = _FOUND.get(state)
    if key is None or key not in _LOADED:
        folder = tagger_folder(target)
        key = _FOUND[state] = str(folder)
        if key not in _LOADED:
            _LOADED[key] = _load(folder)
    return _LOADED[key]
