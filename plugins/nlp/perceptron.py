"""The averaged-perceptron POS tagger without importing NLTK (which alone takes about 3 s).

The algorithm is NLTK's `PerceptronTagger.tag` (features, normalization, tag dictionary,
arg-max with the alphabetic tie-break), reimplemented in a few lines and tested to give the
same tags as NLTK. The weights are the installed JSON files
(`taggers/averaged_perceptron_tagger_eng/`, see tagger.py), read once and cached with
`marshal` (plain dicts) in the harness cache:

    <cache>/resources/pos-tagger-<folder>-<key>.marshal

keyed by the folder and by the format version and (name, size, mtime) of the JSON files, so
a re-installed tagger builds a new cache; stale files of the same folder are removed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.errors import ResourceError
from harness.paths import cache_dir

from .base import candidate_roots, check_cached, folder_stamps, is_file, quick_state, resolve_target
from .indexfiles import cache_name, marshal_file, older_versions

__all__ = ["FastPerceptronTagger", "check_folder", "complete", "fast_tagger", "tagger_folder", "NOT_INSTALLED", "TAGGER_DIR", "TAGGER_FILES"]

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


def complete(folder: Path) -> bool:
    """Whether `folder` holds the three JSON files."""
    return all(is_file(folder / name) for name in TAGGER_FILES)


def tagger_folder(target: Path | str | None = None) -> Path:
    """The installed tagger folder (no nltk import), or ResourceError naming the install command."""
    roots = candidate_roots(resolve_target(target))
    for root in roots:
        folder = root / TAGGER_DIR
        if complete(folder):
            return folder
    for root in roots:
        if is_file(root / (TAGGER_DIR + ".zip")):
            raise ResourceError(f"the English POS tagger is installed only as NLTK's {root / (TAGGER_DIR + '.zip')}; "
                                "unzip it in place, or run `harness resources install`")
    raise ResourceError(NOT_INSTALLED)


def _cache_path(folder: Path) -> Path:
    stats = folder_stamps(folder, TAGGER_FILES, "run `harness resources install`")
    name = cache_name("pos-tagger", str(folder.resolve()), {"version": CACHE_VERSION, "files": stats})
    return cache_dir("resources") / name


def _read(folder: Path) -> tuple[Any, Any, Any]:
    """The three JSON files, or ResourceError naming the one that is not tagger data."""
    params: list[Any] = []
    for name, kind in zip(TAGGER_FILES, (dict, dict, list)):
        path = folder / name
        try:
            with open(path, encoding="utf-8") as fh:
                value = json.load(fh)
        except (OSError, ValueError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            raise ResourceError(f"{path}: unreadable tagger weights ({exc}); "
                                "run `harness resources install` (it rewrites a copy of its own)") from None
        if not isinstance(value, kind):
            raise ResourceError(f"{path}: not tagger weights (a JSON {kind.__name__} expected); "
                                "run `harness resources install` (it rewrites a copy of its own)")
        params.append(value)
    return (params[0], params[1], sorted(params[2]))


def _load(folder: Path) -> FastPerceptronTagger:
    path = _cache_path(folder)
    data = marshal_file(path, lambda: _read(folder), valid=lambda d: isinstance(d, tuple) and len(d) == 3,
                        older=older_versions(path.name))
    return FastPerceptronTagger(*data)


def check_folder(folder: Path) -> str:
    """"" when the tagger files in `folder` load (their cache file exists, or building it
    succeeds, which caches it), else the problem."""
    try:
        cache_file = _cache_path(folder)
    except ResourceError as exc:
        return str(exc)
    return check_cached(cache_file, lambda: _load(folder))


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
