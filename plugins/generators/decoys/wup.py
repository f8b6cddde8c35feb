"""WUP similarity of answers (Chao et al. 2018, supplementary Eq. 3-4), fast and memoized.

Word level (Eq. 3): the maximum Wu-Palmer score over all pairs of NOUN and ADJECTIVE
synsets of the two words (WordNet 3.0 through NLTK, lemmatized by NLTK's morphy).
Sequence level (Eq. 4, "max" instead of Malinowski & Fritz's "min"):

    WUP(S1, S2) = max( prod_{w1 in S1} max_{w2 in S2} WUP(w1, w2),
                       prod_{w2 in S2} max_{w1 in S1} WUP(w1, w2) )

so "a cute cat" vs "cat" scores 1 (the paper's example). A word with no noun/adjective
synset matches only itself (1 if equal, else 0), as in Malinowski & Fritz's WUPS code.

`Synset.wup_similarity` costs ~0.4 ms per synset pair, far too slow for 200,000 questions,
so the score is recomputed here from per-synset ancestor tables with exactly NLTK 3.x's
rules (LCS chosen by min_depth, ties by name; depth = LCS max_depth + 1; path lengths by
shortest hypernym paths; a simulated root whenever a non-noun synset is involved). A test
checks it against `wup_similarity` on many pairs. Results are memoized per synset pair,
word pair and answer pair.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["WupScorer", "sequence_wup", "tokens"]

_ROOT = "*ROOT*"
_POS = ("n", "a", "s")


def tokens(answer: str) -> tuple[str, ...]:
    """Words of a normalized answer (whitespace split; underscores are WordNet's spaces)."""
    return tuple(answer.split())


def sequence_wup(a: tuple[str, ...], b: tuple[str, ...], word: Callable[[str, str], float]) -> float:
    """Supplementary Eq. 4 for two word sequences, given a word-level similarity."""
    if not a or not b:
        return 1.0 if a == b else 0.0
    prod_a = 1.0
    for w1 in a:
        prod_a *= max(word(w1, w2) for w2 in b)
    prod_b = 1.0
    for w2 in b:
        prod_b *= max(word(w1, w2) for w1 in a)
    return max(prod_a, prod_b)


class _SynsetInfo:
    __slots__ = ("name", "noun", "dist", "ancestors", "max_dist")

    def __init__(self, name: str, noun: bool, dist: dict[str, int]) -> None:
        self.name = name
        self.noun = noun
        self.dist = dist  # ancestor name -> shortest hypernym distance (self included, 0)
        self.ancestors = frozenset(dist)
        self.max_dist = max(dist.values())


class WupScorer:
    """Memoized WUP similarity over a WordNet corpus reader (`vqa_harness_plugins.nlp.wordnet()`)."""

    def __init__(self, wn: Any) -> None:
        self.wn = wn
        self._info: dict[str, _SynsetInfo] = {}
        self._depth: dict[str, tuple[int, int]] = {}  # name -> (min_depth, max_depth)
        self._word_synsets: dict[str, tuple[str, ...]] = {}
        self._words: dict[tuple[str, str], float] = {}
        self._answers: dict[tuple[str, str], float] = {}

    # ----------------------------------------------------------------- synsets
    def _synset_info(self, synset: Any) -> _SynsetInfo:
        name = synset.name()
        info = self._info.get(name)
        if info is None:
            dist: dict[str, int] = {}
            frontier, d = [synset], 0
            while frontier:  # breadth first: the first visit is the shortest distance
                nxt = []
                for s in frontier:
                    n = s.name()
                    if n in dist:
                        continue
                    dist[n] = d
                    if n not in self._depth:
                        self._depth[n] = (s.min_depth(), s.max_depth())
                    nxt.extend(s.hypernyms() + s.instance_hypernyms())
                frontier, d = nxt, d + 1
            info = _SynsetInfo(name, synset.pos() == "n", dist)
            self._info[name] = info
        return info

    def synsets(self, word: str) -> tuple[str, ...]:
        """Names of the noun and adjective synsets of `word` (memoized)."""
        found = self._word_synsets.get(word)
        if found is None:
            try:
                found_list = [s for s in self.wn.synsets(word) if s.pos() in _POS]
            except Exception:  # odd characters make morphy raise; such a word has no synset
                found_list = []
            for s in found_list:
                self._synset_info(s)
            found = tuple(s.name() for s in found_list)
            self._word_synsets[word] = found
        return found

    def synset_wup(self, a: str, b: str) -> float:
        """NLTK's `wup_similarity` (simulate_root=True) between two synset names; 0 for None."""
        for name in (a, b):
            if name not in self._info:
                self._synset_info(self.wn.synset(name))
        return self._compute(self._info[a], self._info[b])

    def _compute(self, s1: _SynsetInfo, s2: _SynsetInfo) -> float:
        need_root = not (s1.noun and s2.noun)
        common = s1.ancestors & s2.ancestors
        candidates = list(common)
        if need_root:
            candidates.append(_ROOT)
        if not candidates:
            return 0.0

        def min_depth(n: str) -> int:
            return 0 if n == _ROOT else self._depth[n][0]

        best = max(min_depth(n) for n in candidates)
        subsumers = sorted(n for n in candidates if min_depth(n) == best)
        subsumer = s1.name if s1.name in subsumers else subsumers[0]
        depth = (0 if subsumer == _ROOT else self._depth[subsumer][1]) + 1
        len1 = self._path(s1, subsumer, need_root)
        len2 = self._path(s2, subsumer, need_root)
        if len1 is None or len2 is None:
            return 0.0
        return (2.0 * depth) / (len1 + depth + len2 + depth)

    def _path(self, s: _SynsetInfo, target: str, root: bool) -> int | None:
        # NLTK's shortest_path_distance(s, target) with optional simulated root.
        if s.name == target:
            return 0
        d1 = dict(s.dist)
        if root:
            d1[_ROOT] = s.max_dist + 1
        if target == _ROOT:
            d2 = {_ROOT: 0}
        else:
            t = self._info.get(target)
            if t is None:
                synset = self.wn.synset(target)
                t = self._synset_info(synset)
            d2 = dict(t.dist)
            if root:
                d2[_ROOT] = t.max_dist + 1
        best = min((d + d2[n] for n, d in d1.items() if n in d2), default=None)
        return best

    # ------------------------------------------------------------------ words
    def word(self, w1: str, w2: str) -> float:
        """Supplementary Eq. 3: max WUP over noun/adjective synset pairs of two words."""
        if w1 == w2:
            return 1.0
        key = (w1, w2) if w1 <= w2 else (w2, w1)
        value = self._words.get(key)
        if value is None:
            s1, s2 = self.synsets(key[0]), self.synsets(key[1])
            value = 0.0
            for a in s1:
                for b in s2:
                    v = self._compute(self._info[a], self._info[b])
                    if v > value:
                        value = v
                        if value >= 1.0:
                            break
            self._words[key] = value
        return value

    def answers(self, a: str, b: str) -> float:
        """Supplementary Eq. 4 between two normalized answers (memoized per pair)."""
        if a == b:
            return 1.0
        key = (a, b) if a <= b else (b, a)
        value = self._answers.get(key)
        if value is None:
            value = sequence_wup(tokens(a), tokens(b), self.word)
            self._answers[key] = value
        return value
