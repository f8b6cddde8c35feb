"""Word senses in context: a simplified extended Lesk over WordNet glosses (quality mode).

The paper mode takes the most frequent sense that offers a replacement, whatever the
question says, which turns "praying" into "begging" and "cold" into "stale". The quality
mode picks ONE sense from the question (and, when given, its human answers) and then uses
that sense only — no falling back to another sense when it has no usable replacement.

Method (Lesk 1986, simplified as in Kilgarriff & Rosenzweig 2000, extended with the
hypernyms' lemmas in the spirit of Banerjee & Pedersen 2002):

- context = the base forms of the content words of the question other than the target
  word, plus those of the answers (function words dropped);
- signature of a sense = the base forms of the content words of its definition and
  example sentences and of the lemma names of the sense and its hypernyms (not its
  hyponyms: "professional tennis" under sport.n.02, the occupation, drew every "What
  sport ..." question with the answer "tennis" to that sense);
- only senses with a SemCor count for the lemma compete (plus the first sense, and all
  senses when none is counted): rare senses such as toilet -> "gutter: misfortune" never win;
- score = the weighted size of context ∩ signature, each shared word weighing
  max(0, 7 - Zipf frequency) (wordfreq), so "tennis" says more than "play";
- the most frequent sense (WordNet's order) is kept unless another sense scores at least
  LESK_MARGIN more: on WordNet's own example sentences (leave-one-out, common polysemous
  lemmas) that margin beats the most frequent sense while changing few senses in VQA
  questions (figures in docs/counterfactual.md).

How often it departs from the most frequent sense, and whether it is right then, is
measured in `benchmarks/perturb_throughput.py --measure` and docs/counterfactual.md.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Sequence

from .text import FUNCTION_WORDS

__all__ = ["LESK_MARGIN", "SenseChooser", "content_bases"]

#: How much more (weighted overlap) another sense needs to replace the most frequent one.
LESK_MARGIN = 3.0

_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")
#: Words too general to count as evidence of a sense (they occur in thousands of glosses).
_GENERIC = frozenset(
    "something someone thing things one ones used use using make made other kind type part "
    "especially usually often also very more most such being any very".split()
) | FUNCTION_WORDS


def content_bases(text: str, wn: Any) -> set[str]:
    """Base forms of the content words of `text` (noun, then verb, then adjective base)."""
    out: set[str] = set()
    for word in _WORD.findall(text.lower()):
        if word in _GENERIC or len(word) < 3:
            continue
        for pos in ("n", "v", "a"):
            bases = wn.morphy(word, pos)
            if bases:
                out.add(bases[0])
                break
        else:
            out.add(word)
    return out - _GENERIC


class SenseChooser:
    """Chooses a sense of a lemma given a context; signatures are computed once per sense."""

    def __init__(self, wn: Any, zipf: Any = None, margin: float = LESK_MARGIN) -> None:
        self.wn, self.margin = wn, margin
        self._zipf = zipf or (lambda word: 0.0)
        self._signature: dict[int, frozenset[str]] = {}
        self._weight: dict[str, float] = {}
        self._candidates: dict[tuple[str, tuple[int, ...]], list[int]] = {}

    def signature(self, sid: int) -> frozenset[str]:
        """The content-word base forms that describe sense `sid` (see the module docstring)."""
        sig = self._signature.get(sid)
        if sig is None:
            wn = self.wn
            text = [wn.definition(sid), *wn.examples(sid)]
            for rel in (sid, *wn.hypernyms(sid)):
                text.extend(name.replace("_", " ") for name in wn.lemma_names(rel))
            sig = self._signature[sid] = frozenset(content_bases(" ".join(text), wn))
        return sig

    def weight(self, word: str) -> float:
        """How telling a shared word is: max(0, 7 - its Zipf frequency) (words outside the
        prebuilt vocabulary count as rare: weight 7)."""
        w = self._weight.get(word)
        if w is None:
            w = self._weight[word] = max(0.0, 7.0 - self._zipf(word))
        return w

    def candidates(self, lemma: str, senses: Sequence[int]) -> list[int]:
        """The senses that compete: the first, and those with a SemCor count for `lemma`."""
        key = (lemma, tuple(senses))
        found = self._candidates.get(key)
        if found is None:
            low = lemma.lower()
            counted = [s for i, s in enumerate(senses) if i == 0 or self.wn.count(s, low) > 0]
            found = self._candidates[key] = counted if len(counted) > 1 or not senses else list(senses[:1])
        return found

    def choose(self, lemma: str, senses: Sequence[int], context: Iterable[str] | Callable[[], Iterable[str]]
               ) -> tuple[int, float]:
        """(chosen sense, its weighted overlap with the context); `senses` in WordNet order.
        `context` may be a function, called only when several senses compete."""
        pool = self.candidates(lemma, senses)
        if len(pool) == 1:
            return pool[0], 0.0
        ctx = set(context() if callable(context) else context)
        if not ctx:
            return pool[0], 0.0
        scores = [sum(self.weight(w) for w in ctx & self.signature(s)) for s in pool]
        best = max(range(len(pool)), key=lambda i: (scores[i], -i))
        if scores[best] - scores[0] >= self.margin:
            return pool[best], scores[best]
        return pool[0], scores[0]
