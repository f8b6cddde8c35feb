"""Simulated annotators: 10 answers per question, 3 explanations, multiple-choice decoys.

Answers show the surface variation of real VQA answers ("2", "two", "Two.", "Yes", "a ball")
that the official normalization folds together, variation it does not fold ("dark red",
"circle"), and a little genuine disagreement (more for counting), while the consensus
always stays the true answer.
"""

from __future__ import annotations

import random
from typing import Mapping

from harness.metrics import normalize_answer

from .questions import Question
from .world import COLORS, NOUNS, PLURALS, Obj, Scene, article, matches, where

__all__ = ["human_answers", "explanations", "choices", "ODD_DECOYS", "TARGET_POOLS", "N_ANSWERS"]

N_ANSWERS = 10
N_EXPLANATIONS = 3
N_DECOYS = 3

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten")
#: Share of annotators giving a genuinely different answer, per family.
ERROR_RATE: Mapping[str, float] = {
    "existence": 0.04, "counting": 0.12, "color": 0.05, "object": 0.05,
}
#: Colors people confuse with each other (a wrong answer is drawn from these).
CONFUSABLE: Mapping[str, tuple[str, ...]] = {
    "red": ("orange", "brown"), "orange": ("yellow", "red"), "yellow": ("orange", "white"),
    "green": ("blue", "gray"), "blue": ("purple", "green"), "purple": ("blue", "brown"),
    "brown": ("red", "orange"), "black": ("gray", "purple"), "white": ("gray", "yellow"),
    "gray": ("white", "black"),
}
#: What some people call the glyph instead of its noun (not folded by normalization).
SHAPE_WORDS: Mapping[str, tuple[str, ...]] = {
    "ball": ("circle", "sphere"), "box": ("square", "cube"), "ring": ("donut", "circle"),
    "star": ("star shape",), "pyramid": ("triangle",), "cross": ("plus", "plus sign"),
    "bowl": ("dish", "half circle"), "cup": ("mug",),
}
SHADES = ("dark", "light", "bright")

#: Candidate-answer pools per answer type: the targets that occur, and odd answers that
#: never do (the "human-style" original decoys of the multiple-choice task).
TARGET_POOLS: Mapping[str, tuple[str, ...]] = {
    "yes/no": ("yes", "no"),
    "number": tuple(str(i) for i in range(6)),
    "color": tuple(COLORS),
    "noun": NOUNS,
}
ODD_DECOYS: Mapping[str, tuple[str, ...]] = {
    "yes/no": ("maybe", "not sure", "sometimes", "unknown"),
    "number": ("6", "7", "8", "9", "10", "12"),
    "color": ("teal", "magenta", "cyan", "beige", "maroon", "navy", "olive", "lavender"),
    "noun": ("vase", "bell", "arrow", "moon", "key", "leaf", "hat", "fish"),
}
#: Chance that an original decoy is odd rather than another plausible answer. This is the
#: deliberate shortcut of Chao et al. 2018: the target is recognisable from the candidates.
ODD_SHARE = 0.6


def _surface(rng: random.Random, text: str, family: str) -> str:
    """One way a person might type `text` (mostly the plain lower-case form, as in VQA)."""
    if family == "counting":
        n = int(text)
        word = NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else text
        if n == 0 and rng.random() < 0.1:
            return "none"
        return rng.choices((text, word, word.capitalize(), text + ".", word.capitalize() + "."),
                           weights=(0.7, 0.15, 0.08, 0.04, 0.03))[0]
    if family == "object" and rng.random() < 0.12:
        text = rng.choice((article(text) + " " + text, "the " + text))
    r = rng.random()
    if r < 0.05:
        return text[:1].upper() + text[1:]
    if r < 0.08:
        return text + "."
    if r < 0.09:
        return text[:1].upper() + text[1:] + "."
    return text


def _alternative(rng: random.Random, truth: str, family: str) -> str:
    """A genuinely different answer (a mistake or an unfolded synonym)."""
    if family == "existence":
        return "no" if truth == "yes" else "yes"
    if family == "counting":
        n = int(truth)
        return str(n + 1) if n == 0 or rng.random() < 0.5 else str(n - 1)
    if family == "color":
        if rng.random() < 0.5:
            return f"{rng.choice(SHADES)} {truth}"
        return rng.choice(CONFUSABLE[truth])
    if rng.random() < 0.6:
        return rng.choice(SHAPE_WORDS[truth])
    return rng.choice([n for n in NOUNS if n != truth])


def human_answers(rng: random.Random, truth: str, family: str) -> tuple[str, ...]:
    """10 simulated answers whose normalized majority (at least 6 of 10) is `truth`."""
    rate = ERROR_RATE[family]
    for _ in range(50):
        answers = tuple(
            _alternative(rng, truth, family) if rng.random() < rate
            else _surface(rng, truth, family)
            for _ in range(N_ANSWERS)
        )
        if sum(normalize_answer(a) == truth for a in answers) >= 6:
            return answers
    return (truth,) * N_ANSWERS  # pragma: no cover - 50 failures in a row are ~impossible


# ------------------------------------------------------------------------ explanations


def _count_phrase(n: int, ref: Mapping[str, str]) -> str:
    words = [ref[k] for k in ("size", "color") if k in ref]
    noun = ref.get("noun")
    if n == 1:
        words.append(noun or "object")
        return "one " + " ".join(words)
    words.append(PLURALS[noun] if noun else "objects")
    return ("no" if n == 0 else NUMBER_WORDS[n]) + " " + " ".join(words)


def _desc(ref: Mapping[str, str]) -> str:
    words = [ref[k] for k in ("size", "color") if k in ref]
    return " ".join(words + [ref.get("noun", "object")])


def _full(obj: Obj) -> str:
    return f"{obj.size} {obj.color} {obj.noun}"


def _templates(scene: Scene, q: Question, truth: str) -> list[str]:
    ref = q.ref
    hits = [o for o in scene.objects if matches(o, ref)]
    d = _desc(ref)
    if q.family == "existence":
        if hits:
            o = hits[0]
            return [
                f"because there is {article(_full(o))} {_full(o)} {where(o)}",
                f"{article(d)} {d} can be seen {where(o)}",
                f"the picture shows {article(_full(o))} {_full(o)}",
                f"there is {article(o.color)} {o.color} {o.noun} {where(o)}",
            ]
        same = [o for o in scene.objects if "noun" in ref and o.noun == ref["noun"]]
        out = [
            f"because there is no {d} in the picture",
            f"none of the objects is {article(d)} {d}",
            f"I do not see any {_count_phrase(2, ref).split(' ', 1)[1]}",
        ]
        if same:
            o = same[0]
            out.append(f"the only {o.noun} is {o.size} and {o.color}" if len(same) == 1
                       else f"the {PLURALS[o.noun]} in the picture are not {d.rsplit(' ', 1)[0]}")
        else:
            out.append(f"the picture has no {PLURALS[ref['noun']]} at all")
        return out
    if q.family == "counting":
        n = int(truth)
        phrase = _count_phrase(n, ref)
        verb = "is" if n == 1 else "are"
        return [
            f"there {verb} {phrase}",
            f"because I count {phrase}",
            f"{phrase} {verb} in the image",
            f"the picture shows {phrase}",
        ]
    o = hits[0]
    if q.family == "color":
        return [
            f"because the {d} is {truth}",
            f"the {o.noun} {where(o)} is {truth}",
            f"the {d} has a {truth} color",
            f"it is {article(truth)} {truth} {o.noun}",
        ]
    return [
        f"because the {d} is {article(truth)} {truth}",
        f"the {d} {where(o)} is {article(truth)} {truth}",
        f"the only {d} in the picture is {article(truth)} {truth}",
        f"it is shaped like {article(truth)} {truth}",
    ]


def explanations(rng: random.Random, scene: Scene, q: Question, truth: str) -> tuple[str, ...]:
    """3 distinct reference explanations for the true answer, in e-ViL/VQA-X style."""
    return tuple(rng.sample(_templates(scene, q, truth), N_EXPLANATIONS))


# ---------------------------------------------------------------------- multiple choice


def _pool_key(family: str) -> str:
    return {"existence": "yes/no", "counting": "number", "color": "color", "object": "noun"}[family]


def choices(rng: random.Random, truth: str, family: str) -> tuple[str, ...]:
    """The target and 3 original decoys, shuffled (odd decoys give the target away)."""
    key = _pool_key(family)
    common = [a for a in TARGET_POOLS[key] if a != truth]
    odd = list(ODD_DECOYS[key])
    decoys: list[str] = []
    while len(decoys) < N_DECOYS:
        pool = odd if (rng.random() < ODD_SHARE or not common) else common
        pick = rng.choice(pool)
        pool.remove(pick)
        decoys.append(pick)
    out = [truth, *decoys]
    rng.shuffle(out)
    return tuple(out)
