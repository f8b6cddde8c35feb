"""Visual7W-style "telling" questions on toyvqa scenes, for the toy decoy benchmark.

Chao et al. 2018 measure decoys on Visual7W, whose telling questions (what / where / how
many ...) have no yes/no answers and many distinct targets, each a small share of all
targets. The Eq. 2 shortcut only vanishes under that condition: an answer that is the
target of a large share of the questions (like toyvqa's "yes") is rarely a decoy, because
it cannot be a decoy of its own questions, so IoU/QoU decoys cannot make it neutral.

So `toyvqa-mc` asks its own questions about toyvqa's scenes and images:
- three families from toyvqa's question language: `color` ("What color is the ball?"),
  `object` ("What is the red object?") and `counting` ("How many stars are there?");
- up to `QUESTIONS_PER_SCENE` questions per scene (distinct texts), so every image offers
  enough other targets for 3 IoU decoys;
- families taken in turn and, within a family, the answer least used so far in the split
  (toyvqa's balancing rule), which flattens the targets (8 nouns, 10 colors, counts 0-5);
- original decoys drawn by toyvqa's simulated annotators (`humans.choices`): mostly odd
  answers that are never targets, the "human-style" shortcut the paper measures.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Mapping

from harness.seeding import seeded_random
from harness.types import Example
from vqa_harness_plugins.datasets.toyvqa import humans
from vqa_harness_plugins.datasets.toyvqa.questions import (
    TEMPLATES,
    Question,
    answer,
    make_question,
    unique_referents,
)
from vqa_harness_plugins.datasets.toyvqa.world import NOUNS, Scene

__all__ = ["TELLING_FAMILIES", "QUESTIONS_PER_SCENE", "TELLING_VERSION", "telling_questions", "telling_examples"]

TELLING_FAMILIES = ("color", "object", "counting")
QUESTIONS_PER_SCENE = 7
#: Bump when the questions or decoys below change (part of the decoy cache key).
TELLING_VERSION = "1"


def _referents(scene: Scene, family: str) -> list[dict[str, str]]:
    """What a family may ask about on this scene (unique referents for color / object)."""
    if family == "counting":
        return [{"noun": n} for n in NOUNS]
    if family == "color":
        return unique_referents(scene, ("noun",)) + unique_referents(scene, ("size", "noun"))
    return unique_referents(scene, ("color",)) + unique_referents(scene, ("size", "color"))


def _options(scene: Scene) -> dict[str, list[tuple[str, tuple[tuple[str, str], ...], str, Question]]]:
    """Per family, every askable (answer, referent, template, question), in a fixed order."""
    out = {}
    for family in TELLING_FAMILIES:
        templates = sorted(t for t, (fam, _) in TEMPLATES.items() if fam == family)
        out[family] = [(answer(scene, family, ref), tuple(sorted(ref.items())), t, make_question(family, ref, t))
                       for ref in _referents(scene, family) for t in templates]
    return out


def telling_questions(scene: Scene, rng: random.Random, tally: Counter[tuple[str, str]],
                      n: int = QUESTIONS_PER_SCENE) -> list[tuple[Question, str]]:
    """Up to `n` (question, answer) pairs with distinct texts; updates `tally`."""
    out: list[tuple[Question, str]] = []
    seen: set[str] = set()
    options = _options(scene)
    start = rng.randrange(len(TELLING_FAMILIES))
    for k in range(n * 3):
        if len(out) == n:
            break
        family = TELLING_FAMILIES[(start + k) % len(TELLING_FAMILIES)]
        open_ = [o for o in options[family] if o[3].text not in seen]
        if not open_:
            continue
        low = min(tally[(family, o[0])] for o in open_)
        ans, _, _, q = rng.choice(sorted((o for o in open_ if tally[(family, o[0])] == low), key=lambda o: o[:3]))
        seen.add(q.text)
        tally[(family, ans)] += 1
        out.append((q, ans))
    return out


def telling_examples(scenes: Mapping[str, Scene], images: Mapping[str, str], *, split: str,
                     seed: int) -> list[Example]:
    """Examples for every scene (sorted by image id), MC fields in meta."""
    q_rng, human_rng, mc_rng = (seeded_random("toyvqa-mc", TELLING_VERSION, split, seed, part)
                                for part in ("questions", "humans", "choices"))
    tally: Counter[tuple[str, str]] = Counter()
    out: list[Example] = []
    for image_id in sorted(scenes):
        scene = scenes[image_id]
        for j, (q, truth) in enumerate(telling_questions(scene, q_rng, tally)):
            cands = humans.choices(mc_rng, truth, q.family)
            out.append(Example(
                id=f"{image_id}-t{j}",
                question=q.text,
                image_id=image_id,
                image=images.get(image_id, ""),
                answers=humans.human_answers(human_rng, truth, q.family),
                answer_type=q.answer_type,
                question_type=q.question_type,
                choices=cands,
                label=truth,
                meta={"family": q.family, "referent": q.ref, "template": q.template, "mc_target": truth,
                      "decoys": {"orig": [c for c in cands if c != truth]}},
            ))
    return out
