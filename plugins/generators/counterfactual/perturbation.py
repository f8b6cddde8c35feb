"""The counterfactual generator's record (`Perturbation`) and the views its two modes have of
each other: the quality mode (quality_mode.py, deletion.py) reads the paper mode's generator
(`PerturberView`), deletion reads the quality mode (`QualityView`). Declared here, below both,
so neither imports the other's module for a type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from .colors import ColorSpace
from .kinds import Kind
from .lexical import Lexicon

__all__ = ["Perturbation", "PerturberView", "QualityView"]


@dataclass(frozen=True)
class Perturbation:
    """One counterfactual question: q -> q* with the substituted concept X -> Y.

    `replaced` / `replacement` are surface words ("dogs" -> "canines"; replacement is ""
    for deletions); `source` / `target` the concepts (WordNet lemma or color name);
    `detail` the evidence (synsets "dog.n.01 -> canine.n.02", or "ΔE2000=100.0").
    """

    kind: str
    question: str
    counterfactual: str
    position: int
    replaced: str
    replacement: str
    source: str
    target: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return dict(self.__dict__)


class PerturberView(Protocol):
    """What the quality mode uses of its `generator.Perturber`."""

    wn: Any
    lexicon: Lexicon
    colors: ColorSpace
    kinds: tuple[Kind, ...]

    def pick(self, kind: Kind, question: str, usable: Sequence[Perturbation]) -> Perturbation: ...

    def color_choice(self, low: str, kind: Kind, exclude: tuple[str, ...] = ()) -> tuple[str, float] | None: ...

    def is_site(self, kind: Kind, word: str, tag: str) -> bool: ...


class QualityView(Protocol):
    """What deletion (deletion.py) uses of its `quality_mode.QualityMode`."""

    p: PerturberView
    wn: Any
    lex: Any

    def tag_plausible(self, word: str, pos: str) -> bool: ...

    def agrees(self, tokens: Any, tags: Any) -> bool: ...

    def _noun_site(self, word: str, tag: str) -> bool: ...

    def _noun_position(self, tokens: list[Any], tags: list[str], first: int) -> bool: ...
