"""The toy world: vocabulary, scenes of a few objects, and the minimal edits between scenes.

A scene is 2-5 objects on a plain background, each a (noun, color, size) placed in one
cell of a 3x3 grid. Nouns are common WordNet nouns with an easily learnable glyph; colors
are matplotlib named colors (CSS4) drawn with their exact RGB value; sizes are the
adjectives "small" / "large" (WordNet synonyms "little" / "big"), so the counterfactual
suite (Stoikou 2023) finds synonyms, hypernyms, hyponyms and siblings for every word.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Mapping

__all__ = [
    "NOUNS",
    "PLURALS",
    "NOUN_SENSES",
    "COLORS",
    "SIZES",
    "BACKGROUND",
    "FAVORITE_COLOR",
    "GRID",
    "MIN_OBJECTS",
    "MAX_OBJECTS",
    "Obj",
    "Scene",
    "Referent",
    "sample_scene",
    "matches",
    "random_object",
    "where",
    "article",
]

#: Nouns, each drawn as a distinct glyph (see render.py).
NOUNS: tuple[str, ...] = ("ball", "box", "ring", "star", "pyramid", "cross", "bowl", "cup")
PLURALS: Mapping[str, str] = {n: (n + "es" if n.endswith(("x", "ss")) else n + "s") for n in NOUNS}
#: The WordNet 3.0 sense each glyph depicts (all have hypernyms and co-hyponyms; most have
#: hyponyms), for probes that need a sense rather than a word.
NOUN_SENSES: Mapping[str, str] = {
    "ball": "ball.n.01",
    "box": "box.n.01",
    "ring": "ring.n.08",
    "star": "star.n.05",
    "pyramid": "pyramid.n.01",
    "cross": "cross.n.03",
    "bowl": "bowl.n.01",
    "cup": "cup.n.01",
}
#: matplotlib CSS4 named colors (hex copied so generation never imports matplotlib; a
#: test checks them against `matplotlib.colors.CSS4_COLORS`).
COLORS: Mapping[str, str] = {
    "red": "#FF0000",
    "green": "#008000",
    "blue": "#0000FF",
    "yellow": "#FFFF00",
    "orange": "#FFA500",
    "purple": "#800080",
    "brown": "#A52A2A",
    "black": "#000000",
    "white": "#FFFFFF",
    "gray": "#808080",
}
SIZES: tuple[str, ...] = ("small", "large")
#: A plain beige that is none of the object colors (and not the blank-image gray).
BACKGROUND: tuple[int, int, int] = (200, 190, 170)
#: The unbalanced variant draws each noun in its favorite color most of the time, so the
#: color of "the ball" is predictable from the question alone (as in VQA v1).
FAVORITE_COLOR: Mapping[str, str] = {
    "ball": "red",
    "box": "brown",
    "ring": "gray",
    "star": "yellow",
    "pyramid": "orange",
    "cross": "green",
    "bowl": "white",
    "cup": "blue",
}
FAVORITE_SHARE = 0.75
GRID = 3
MIN_OBJECTS, MAX_OBJECTS = 2, 5
#: Balanced scenes repeat a noun this often, so counts above one are common enough for
#: the answer balancer to flatten the counting answers.
CLUMPING = 0.45


@dataclass(frozen=True)
class Obj:
    """One object: what it is and where (cell index on the 3x3 grid, pixel jitter in [0, 1))."""

    noun: str
    color: str
    size: str
    cell: int
    jx: float = 0.5
    jy: float = 0.5

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (the cache's scenes.json)."""
        return {"noun": self.noun, "color": self.color, "size": self.size, "cell": self.cell,
                "jx": self.jx, "jy": self.jy}


@dataclass(frozen=True)
class Scene:
    """The objects of one image, in drawing order."""

    objects: tuple[Obj, ...]

    def free_cells(self) -> list[int]:
        """Grid cells no object occupies (sorted)."""
        used = {o.cell for o in self.objects}
        return [c for c in range(GRID * GRID) if c not in used]

    def replace_object(self, index: int, **changes: Any) -> "Scene":
        """A copy with one object's attributes changed."""
        objs = list(self.objects)
        objs[index] = replace(objs[index], **changes)
        return Scene(tuple(objs))

    def add(self, obj: Obj) -> "Scene":
        """A copy with one more object."""
        return Scene(self.objects + (obj,))

    def remove(self, index: int) -> "Scene":
        """A copy without object `index`."""
        return Scene(self.objects[:index] + self.objects[index + 1:])

    def to_json(self) -> list[dict[str, Any]]:
        """Plain JSON (the cache's scenes.json)."""
        return [o.to_json() for o in self.objects]

    @classmethod
    def from_json(cls, data: list[Mapping[str, Any]]) -> "Scene":
        """Inverse of `to_json`."""
        return cls(tuple(Obj(**dict(o)) for o in data))


#: A description of the objects a question is about: a subset of {"noun", "color", "size"}.
Referent = Mapping[str, str]


def matches(obj: Obj, referent: Referent) -> bool:
    """Whether `obj` fits every attribute the referent names."""
    return all(getattr(obj, key) == value for key, value in referent.items())


def _jitter(rng: random.Random) -> tuple[float, float]:
    # Rounded so the JSON round trip is exact on every platform.
    return round(rng.random(), 3), round(rng.random(), 3)


def random_object(rng: random.Random, cell: int, variant: str, noun: str | None = None,
                  **fixed: str) -> Obj:
    """A new object in `cell`; unspecified attributes drawn by the variant's priors."""
    noun = noun or rng.choice(NOUNS)
    color = fixed.get("color") or _color_for(rng, noun, variant)
    size = fixed.get("size") or rng.choice(SIZES)
    jx, jy = _jitter(rng)
    return Obj(noun, color, size, cell, jx, jy)


def _color_for(rng: random.Random, noun: str, variant: str) -> str:
    if variant == "unbalanced" and rng.random() < FAVORITE_SHARE:
        return FAVORITE_COLOR[noun]
    names = list(COLORS)
    if variant == "unbalanced":
        names.remove(FAVORITE_COLOR[noun])
    return rng.choice(names)


def sample_scene(rng: random.Random, variant: str) -> Scene:
    """A fresh scene: 2-5 objects in distinct cells, drawn by the variant's priors."""
    k = rng.randint(MIN_OBJECTS, MAX_OBJECTS)
    cells = rng.sample(range(GRID * GRID), k)
    objs: list[Obj] = []
    for cell in cells:
        noun = None
        if variant == "balanced" and objs and rng.random() < CLUMPING:
            noun = rng.choice(objs).noun
        objs.append(random_object(rng, cell, variant, noun))
    return Scene(tuple(objs))


def where(obj: Obj) -> str:
    """Where the object is, in words ("on the left", "in the top right", "in the center")."""
    row, col = divmod(obj.cell, GRID)
    vert = ("top", "middle", "bottom")[row]
    horiz = ("left", "middle", "right")[col]
    if vert == "middle" and horiz == "middle":
        return "in the center"
    if vert == "middle":
        return f"on the {horiz}"
    if horiz == "middle":
        return f"at the {vert}"
    return f"in the {vert} {horiz}"


def article(phrase: str) -> str:
    """'a' or 'an' for the phrase that follows."""
    return "an" if phrase[:1] in "aeiou" else "a"
