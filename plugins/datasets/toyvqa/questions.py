"""Question families over toy scenes, the variants' question priors, and complementary edits.

Every question is (family, referent, template): the referent names the objects it is about
(a subset of noun / color / size), the family says what is asked about them, and the
answer follows from the scene alone (`answer`). Templates start with official VQA
question-type prefixes; `question_type` is the longest official prefix, as in VQA
(`harness.metrics.question_type`).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass
from typing import Mapping

from harness.metrics import question_type

from .world import (
    COLORS,
    MAX_OBJECTS,
    NOUNS,
    PLURALS,
    SIZES,
    Obj,
    Referent,
    Scene,
    article,
    matches,
    random_object,
)

__all__ = [
    "FAMILIES",
    "ANSWER_TYPES",
    "TEMPLATES",
    "Question",
    "answer",
    "choose_questions",
    "complement",
    "parse",
    "answer_question",
    "unique_referents",
]

FAMILIES = ("existence", "counting", "color", "object")
ANSWER_TYPES: Mapping[str, str] = {
    "existence": "yes/no", "counting": "number", "color": "other", "object": "other",
}
FAMILY_WEIGHTS = (0.35, 0.25, 0.2, 0.2)
#: Unbalanced (VQA v1-like) priors: "is there a ..." is mostly asked about things that are
#: there; counting is mostly asked about nouns in the picture.
UNBALANCED_YES = 0.85
UNBALANCED_COUNT_PRESENT = 0.9

#: template key -> (family, format). {a} is the article, {d} the singular descriptor, {dp}
#: the plural one, {adj} the adjectives joined by "and".
TEMPLATES: Mapping[str, tuple[str, str]] = {
    "is_there": ("existence", "Is there {a} {d}?"),
    "do_you_see": ("existence", "Do you see {a} {d}?"),
    "are_there_any": ("existence", "Are there any {dp}?"),
    "how_many": ("counting", "How many {dp} are there?"),
    "how_many_picture": ("counting", "How many {dp} are in the picture?"),
    "what_color": ("color", "What color is the {d}?"),
    "color_of": ("color", "What is the color of the {d}?"),
    "what_is": ("object", "What is the {d}?"),
    "what_kind": ("object", "What kind of object is {adj}?"),
}

@dataclass(frozen=True)
class Question:
    """One question about a scene (its answer depends on the scene, see `answer`)."""

    family: str
    referent: tuple[tuple[str, str], ...]
    template: str
    text: str
    question_type: str
    answer_type: str

    @property
    def ref(self) -> dict[str, str]:
        return dict(self.referent)


def _descriptor(ref: Referent, plural: bool) -> str:
    words = [ref[k] for k in ("size", "color") if k in ref]
    noun = ref.get("noun")
    if noun:
        words.append(PLURALS[noun] if plural else noun)
    else:
        words.append("objects" if plural else "object")
    return " ".join(words)


def make_question(family: str, ref: Referent, template: str) -> Question:
    """Render a (family, referent, template) as a Question."""
    fam, fmt = TEMPLATES[template]
    if fam != family:
        raise ValueError(f"template {template!r} is not a {family} template")
    d = _descriptor(ref, plural=False)
    adj = " and ".join(ref[k] for k in ("size", "color") if k in ref)
    text = fmt.format(a=article(d), d=d, dp=_descriptor(ref, plural=True), adj=adj)
    return Question(family, tuple(sorted(ref.items())), template, text, question_type(text),
                    ANSWER_TYPES[family])


def answer(scene: Scene, family: str, ref: Referent) -> str:
    """The true answer of a family/referent question on a scene."""
    hits = [o for o in scene.objects if matches(o, ref)]
    if family == "existence":
        return "yes" if hits else "no"
    if family == "counting":
        return str(len(hits))
    if len(hits) != 1:
        raise ValueError(f"{family} question about {dict(ref)} needs a unique referent")
    return hits[0].color if family == "color" else hits[0].noun


# ----------------------------------------------------------------------- candidates


def unique_referents(scene: Scene, keys: tuple[str, ...]) -> list[dict[str, str]]:
    """Referents built from `keys` that pick out exactly one object."""
    counts = Counter(tuple(getattr(o, k) for k in keys) for o in scene.objects)
    return [dict(zip(keys, vals, strict=True)) for vals, n in counts.items() if n == 1]


def _random_referent(rng: random.Random) -> dict[str, str]:
    ref = {"noun": rng.choice(NOUNS)}
    form = rng.random()
    if form < 0.5:
        ref["color"] = rng.choice(list(COLORS))
    elif form < 0.7:
        ref["size"] = rng.choice(SIZES)
    return ref


def _present_referent(rng: random.Random, obj: Obj) -> dict[str, str]:
    form = rng.random()
    if form < 0.3:
        return {"noun": obj.noun}
    if form < 0.8:
        return {"color": obj.color, "noun": obj.noun}
    return {"size": obj.size, "noun": obj.noun}


def _candidates(scene: Scene, family: str, rng: random.Random) -> list[dict[str, str]]:
    """Every referent the balanced variant may ask about for a family on this scene."""
    if family == "existence":
        refs = [_present_referent(rng, o) for o in scene.objects]
        for _ in range(8):
            ref = _random_referent(rng)
            if not any(matches(o, ref) for o in scene.objects):
                refs.append(ref)
        return refs
    if family == "counting":
        colors = sorted({o.color for o in scene.objects})
        return [{"noun": n} for n in NOUNS] + [{"color": c} for c in colors]
    if family == "color":
        return unique_referents(scene, ("noun",)) + unique_referents(scene, ("size", "noun"))
    return unique_referents(scene, ("color",)) + unique_referents(scene, ("size", "color"))


def _unbalanced_referent(scene: Scene, family: str, rng: random.Random) -> dict[str, str] | None:
    """A referent drawn by the skewed, VQA v1-like question priors."""
    if family == "existence":
        if rng.random() < UNBALANCED_YES:
            return _present_referent(rng, rng.choice(scene.objects))
        for _ in range(20):
            ref = _random_referent(rng)
            if not any(matches(o, ref) for o in scene.objects):
                return ref
        return None
    if family == "counting":
        if rng.random() < UNBALANCED_COUNT_PRESENT:
            obj = rng.choice(scene.objects)
            return {"noun": obj.noun} if rng.random() < 0.7 else {"color": obj.color}
        absent = [n for n in NOUNS if not any(o.noun == n for o in scene.objects)]
        return {"noun": rng.choice(absent)} if absent else None
    cands = _candidates(scene, family, rng)
    return rng.choice(cands) if cands else None


def _template_for(family: str, rng: random.Random) -> str:
    return rng.choice([k for k, (fam, _) in TEMPLATES.items() if fam == family])


def choose_questions(scene: Scene, rng: random.Random, variant: str, n: int,
                     tally: Counter[tuple[str, str]]) -> list[Question]:
    """Up to `n` questions with distinct texts about one scene.

    Unbalanced: referents follow skewed priors. Balanced: among the candidate referents, the
    answer asked about is the one least used so far in the split for that family (`tally`,
    updated here), which flattens the answer distribution per question type.
    """
    chosen: list[Question] = []
    seen: set[str] = set()
    for _ in range(n * 4):
        if len(chosen) == n:
            break
        family = rng.choices(FAMILIES, weights=FAMILY_WEIGHTS)[0]
        if variant == "unbalanced":
            ref = _unbalanced_referent(scene, family, rng)
        else:
            by_answer: dict[str, list[dict[str, str]]] = {}
            for cand in _candidates(scene, family, rng):
                by_answer.setdefault(answer(scene, family, cand), []).append(cand)
            if not by_answer:
                continue
            low = min(tally[(family, a)] for a in by_answer)
            pick = rng.choice(sorted(a for a in by_answer if tally[(family, a)] == low))
            ref = rng.choice(by_answer[pick])
        if ref is None:
            continue
        q = make_question(family, ref, _template_for(family, rng))
        if q.text in seen:
            continue
        seen.add(q.text)
        tally[(family, answer(scene, family, ref))] += 1
        chosen.append(q)
    return chosen


# ---------------------------------------------------------------- complementary edits


def _other(rng: random.Random, key: str, value: str) -> str:
    pool = {"noun": NOUNS, "color": tuple(COLORS), "size": SIZES}[key]
    return rng.choice([v for v in pool if v != value])


def _unmatch(scene: Scene, index: int, ref: Referent, rng: random.Random) -> Scene:
    """Change one of the referent's attributes of object `index` so it no longer matches."""
    key = rng.choice(sorted(ref))
    return scene.replace_object(index, **{key: _other(rng, key, ref[key])})


def _add_matching(scene: Scene, ref: Referent, rng: random.Random) -> Scene | None:
    free = scene.free_cells()
    if len(scene.objects) >= MAX_OBJECTS or not free:
        return None
    obj = random_object(rng, rng.choice(free), "balanced", ref.get("noun"),
                        **{k: v for k, v in ref.items() if k != "noun"})
    return scene.add(obj)


def _make_match(scene: Scene, ref: Referent, rng: random.Random) -> Scene | None:
    others = [i for i, o in enumerate(scene.objects) if not matches(o, ref)]
    if not others:
        return None
    return scene.replace_object(rng.choice(others), **dict(ref))


def complement(scene: Scene, q: Question, rng: random.Random) -> tuple[Scene, str]:
    """A minimally edited copy of `scene` on which `q` has a different answer, and the edit.

    Existence: remove the property from every match, or add/convert one object. Counting:
    one object more or fewer (added, removed or converted). Color: recolor the referent.
    Object: change the referent's noun. Positions of untouched objects never change.
    """
    ref = q.ref
    old = answer(scene, q.family, ref)
    hits = [i for i, o in enumerate(scene.objects) if matches(o, ref)]
    options: list[tuple[str, Scene | None]] = []
    if q.family == "existence":
        if hits:
            edited = scene
            for i in hits:
                edited = _unmatch(edited, i, ref, rng)
            options.append(("change", edited))
        else:
            options += [("add", _add_matching(scene, ref, rng)),
                        ("change", _make_match(scene, ref, rng))]
    elif q.family == "counting":
        options += [("add", _add_matching(scene, ref, rng)),
                    ("change", _make_match(scene, ref, rng))]
        if hits:
            i = rng.choice(hits)
            if len(scene.objects) > 1:
                options.append(("remove", scene.remove(i)))
            options.append(("change", _unmatch(scene, i, ref, rng)))
    else:
        key = "color" if q.family == "color" else "noun"
        i = hits[0]
        new_value = _other(rng, key, getattr(scene.objects[i], key))
        options.append(("change", scene.replace_object(i, **{key: new_value})))
    options = [(kind, s) for kind, s in options if s is not None]
    kind, edited = rng.choice(options)
    if answer(edited, q.family, ref) == old:  # pragma: no cover - guarded by construction
        raise AssertionError(f"complement of {q.text!r} kept the answer {old!r}")
    return edited, kind


# ---------------------------------------------------------------------------- oracle

#: Words a counterfactual edit may bring in that still name something in this world.
SYNONYMS: Mapping[str, str] = {"little": "small", "big": "large", "grey": "gray"}
_SINGULAR = {p: n for n, p in PLURALS.items()}

_PATTERNS: tuple[tuple[str, str, bool, re.Pattern[str]], ...] = (
    ("existence", "d", False, re.compile(r"^(?:is there|do you see) (?:a|an) (.+)$")),
    ("existence", "d", True, re.compile(r"^are there any (.+)$")),
    ("counting", "d", True, re.compile(r"^how many (.+?) (?:are there|are in the picture)$")),
    ("color", "d", False, re.compile(r"^(?:what color is the|what is the color of the) (.+)$")),
    ("object", "d", False, re.compile(r"^what is the (.+)$")),
    ("object", "adj", False, re.compile(r"^what kind of object is (.+)$")),
)


def _parse_descriptor(phrase: str, plural: bool, adjectives_only: bool) -> dict[str, str] | None:
    words = [SYNONYMS.get(w, w) for w in phrase.split() if w != "and"]
    if not words:
        return None
    ref: dict[str, str] = {}
    if not adjectives_only:
        head = words.pop()
        if head in (("objects",) if plural else ("object", "thing", "one")):
            pass
        elif plural and head in _SINGULAR:
            ref["noun"] = _SINGULAR[head]
        elif not plural and head in NOUNS:
            ref["noun"] = head
        else:
            return None
    for w in words:
        key = "color" if w in COLORS else "size" if w in SIZES else None
        if key is None or key in ref:
            return None
        ref[key] = w
    return ref


def parse(text: str) -> tuple[str, dict[str, str]] | None:
    """(family, referent) of a question in this world's language, or None if it is not one.

    Accepts the templates and the WordNet synonyms in `SYNONYMS`, so counterfactual edits
    that keep the meaning inside the world (little/big, grey) can be answered.
    """
    t = re.sub(r"\s+", " ", text.strip().lower().rstrip("?").strip())
    for family, kind, plural, pattern in _PATTERNS:
        m = pattern.match(t)
        if not m:
            continue
        ref = _parse_descriptor(m.group(1), plural, adjectives_only=kind == "adj")
        if ref is None:
            continue
        if family == "object" and ("noun" in ref or not ref):
            continue
        if family in ("existence", "color") and "noun" not in ref:
            continue
        return family, ref
    return None


def answer_question(scene: Scene, text: str) -> str | None:
    """The true answer of any question in the toy language on `scene`, or None.

    None when the question is outside the language or asks about a referent that is not
    unique (color/object questions).
    """
    parsed = parse(text)
    if parsed is None:
        return None
    family, ref = parsed
    try:
        return answer(scene, family, ref)
    except ValueError:
        return None
