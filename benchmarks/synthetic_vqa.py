"""Synthetic VQA-format data for benchmarks/real_suites_scale.py: the vocabulary, questions
with the official question-type prefixes and 10 human answers, the VQA v1 / v2 files and results
file, and the Visual7W telling file (docs/real-data.md)."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from decoys_generate import COLORS, MATERIALS, OBJECTS, PLACES

from harness.metrics import answer_type, question_type
from vqa_harness_plugins.nlp import wordnet_index

PEOPLE = ("man", "woman", "boy", "girl", "child", "person", "player", "skier", "surfer", "lady")
ADJECTIVES = ("big", "small", "large", "tall", "short", "old", "young", "new", "wet", "empty", "full", "open",
              "dirty", "clean", "long", "happy", "hot", "cold", "wooden", "bright", "dark")
SPORTS = ("tennis", "baseball", "soccer", "frisbee", "skiing", "surfing", "skateboarding", "snowboarding")
ROOMS = ("kitchen", "bathroom", "bedroom", "living room", "office", "dining room")
ANIMALS = ("dog", "cat", "horse", "cow", "sheep", "bird", "elephant", "giraffe", "zebra", "bear")
TIMES = ("daytime", "night", "morning", "evening", "afternoon", "noon")
REASONS = ("to catch the ball", "it is raining", "to stay warm", "he is hungry", "for fun", "to cross the street",
           "it is sunny", "to get to work")
DOINGS = ("walking", "sitting", "standing", "eating", "riding", "running", "playing", "looking", "surfing",
          "skiing", "talking", "smiling", "waiting")
VERB_OBJECTS = {
    "riding": ("horse", "bike", "skateboard", "surfboard", "bus", "motorcycle", "elephant", "train"),
    "holding": ("umbrella", "phone", "racket", "bat", "cup", "kite", "bag", "book", "glass", "remote"),
    "eating": ("pizza", "sandwich", "cake", "banana", "apple", "donut", "salad", "orange"),
    "carrying": ("bag", "umbrella", "surfboard", "box", "basket", "backpack", "suitcase"),
    "throwing": ("frisbee", "ball"),
    "wearing": ("hat", "jacket", "shirt", "helmet", "tie", "glasses", "coat", "scarf"),
}
NUMBERS = tuple(str(i) for i in range(11))
POPULAR = ("yes", "no", "1", "2", "3", "white", "red", "blue", "black", "tennis", "dog", "nothing", "pizza")


# ------------------------------------------------------------------------------ vocabulary
class Vocab:
    """Objects: common COCO-like words (80%) and a tail of concrete WordNet nouns (20%)."""
    def __init__(self) -> None:
        self.tail: tuple[str, ...] = ()
        try:

            wn = wordnet_index()
            keep = {"noun.artifact", "noun.animal", "noun.food", "noun.plant", "noun.object", "noun.person",
                    "noun.body"}
            self.tail = tuple(sorted({n for s in range(len(wn)) if wn.pos(s) == "n" and wn.lexname(s) in keep
                                      for n, c in zip(wn.lemma_names(s), wn.lemma_counts(s))
                                      if c > 0 and n.isalpha() and n.islower()}))
        except Exception as exc:  # the resources are optional here: common words only
            print(f"(no WordNet tail of nouns: {exc}; common objects only)")

    def obj(self, rng: random.Random) -> str:
        return rng.choice(self.tail) if self.tail and rng.random() < 0.2 else rng.choice(OBJECTS)


def plural(word: str) -> str:
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def others(pool: Sequence[str], main: str, k: int = 4, rng: random.Random | None = None) -> tuple[str, ...]:
    rest = [w for w in pool if w != main]
    return tuple(rng.sample(rest, min(k, len(rest)))) if rng else tuple(rest[:k])


def situate(question: str, rng: random.Random, vocab: Vocab, p: float) -> str:
    """With probability `p`, a place phrase before the question mark ("... next to the
    bench?"), so that most questions are distinct, as human-written ones are."""
    if rng.random() >= p:
        return question
    phrase = rng.choice(("on the left", "on the right", "in the background", f"next to the {vocab.obj(rng)}",
                         f"near the {vocab.obj(rng)}", f"in the {rng.choice(PLACES)}", f"behind the {vocab.obj(rng)}",
                         f"in front of the {rng.choice(OBJECTS)}", "in this picture"))
    return f"{question[:-1]} {phrase}?"


def vqa_question(rng: random.Random, vocab: Vocab) -> tuple[str, str, tuple[str, ...]]:
    """(question, main answer, plausible other answers); about 38% yes/no, 12% number, 50%
    other, as in VQA v2 val; half carry a place phrase."""
    q, main, alts = _vqa_question(rng, vocab)
    return situate(q, rng, vocab, 0.5), main, alts


def _vqa_question(rng: random.Random, vocab: Vocab) -> tuple[str, str, tuple[str, ...]]:
    o, p = vocab.obj(rng), rng.choice(PEOPLE)
    r = rng.random()
    if r < 0.38:
        verb = rng.choice(tuple(VERB_OBJECTS))
        q = rng.choice((f"Is the {o} {rng.choice(COLORS)}?", f"Is the {p} {verb} a {rng.choice(VERB_OBJECTS[verb])}?",
                        f"Is there a {rng.choice(ADJECTIVES)} {o} in the picture?",
                        f"Are there any {plural(o)} on the {rng.choice(OBJECTS)}?",
                        f"Does the {o} look {rng.choice(ADJECTIVES)}?",
                        f"Is this a {rng.choice(ADJECTIVES)} {o}?", f"Is the {p} {rng.choice(DOINGS)}?"))
        main = "yes" if rng.random() < 0.55 else "no"
        return q, main, ("no" if main == "yes" else "yes",)
    if r < 0.50:
        q = rng.choice((f"How many {plural(o)} are there?", f"How many people are {rng.choice(DOINGS)}?",
                        f"How many {plural(o)} are on the {rng.choice(OBJECTS)}?"))
        main = rng.choice(NUMBERS[:6] if rng.random() < 0.8 else NUMBERS)
        n = int(main)
        return q, main, tuple(str(x) for x in (n - 1, n + 1, n + 2) if x >= 0)
    kind = rng.randrange(10)
    if kind == 0:
        q, pool = f"What color is the {o}?", COLORS
    elif kind == 1:
        q, pool = f"What is the {p} holding?", VERB_OBJECTS["holding"]
    elif kind == 2:
        q, pool = f"What is the {p} doing?", DOINGS
    elif kind == 3:
        q, pool = f"What is on the {o}?", OBJECTS
    elif kind == 4:
        q = f"Where is the {rng.choice(ADJECTIVES)} {o}?"
        pool = (*(f"on the {w}" for w in ("table", "ground", "wall", "shelf")), *PLACES)
    elif kind == 5:
        q, pool = rng.choice(("What sport is being played?", f"What sport is the {p} playing?")), SPORTS
    elif kind == 6:
        q, pool = "What room is this?", ROOMS
    elif kind == 7:
        q, pool = f"What is the {o} made of?", MATERIALS
    elif kind == 8:
        q, pool = f"What animal is on the {o}?", ANIMALS
    else:
        q, pool = f"Why is the {p} {rng.choice(DOINGS)}?", REASONS
    main = rng.choice(pool)
    return q, main, others(pool, main, 4, rng)


def human_answers(rng: random.Random, main: str, alts: Sequence[str], agree: float = 0.75) -> list[str]:
    return [main if rng.random() < agree or not alts else rng.choice(alts) for _ in range(10)]


def majority(answers: Sequence[str]) -> str:
    counts = Counter(answers)
    return max(answers, key=lambda a: (counts[a], -answers.index(a)))


def dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        json.dump(data, f)


# ------------------------------------------------------------------------------ VQA v1 / v2
def write_vqa(data: Path, n_v1: int, n_v2: int, vocab: Vocab, seed: int = 0) -> list[tuple[int, str, tuple]]:
    """VQA v1 val (OpenEnded, MultipleChoice with 18 choices, annotations) and VQA v2 val
    (questions, annotations, complementary pairs); v1's questions are v2's under the same
    ids (3 per image), the others complement one v1 question each. Returns (qid, label,
    other plausible answers) of every v2 question, for the results file."""

    rng = random.Random(seed)
    n_images = max(1, -(-n_v1 // 3))
    images = rng.sample(range(1, 600_000), n_images)
    next_k: dict[int, int] = {}

    def qid_on(image: int) -> int:
        k = next_k.get(image, 0)
        next_k[image] = k + 1
        return image * 1000 + k

    def annotation(qid: int, image: int, text: str, answers: list[str]) -> dict[str, Any]:
        return {"question_id": qid, "image_id": image, "question_type": question_type(text),
                "answer_type": answer_type(answers), "multiple_choice_answer": majority(answers),
                "answers": [{"answer": a, "answer_confidence": rng.choice(("yes", "yes", "maybe")), "answer_id": j + 1}
                            for j, a in enumerate(answers)]}

    questions, annotations, choices, keys = [], [], [], []
    for i in range(n_v1):
        image = images[i // 3]
        text, main, alts = vqa_question(rng, vocab)
        qid = qid_on(image)
        ann = annotation(qid, image, text, human_answers(rng, main, alts))
        questions.append({"image_id": image, "question": text, "question_id": qid})
        annotations.append(ann)
        label = ann["multiple_choice_answer"]
        mc = [label] + [a for a in dict.fromkeys((*alts, *POPULAR, main)) if a != label]
        while len(mc) < 18:
            extra = rng.choice((*OBJECTS, *COLORS, *NUMBERS, *DOINGS))
            if extra not in mc:
                mc.append(extra)
        mc = mc[:18]
        rng.shuffle(mc)
        choices.append(mc)
        keys.append((qid, label, tuple(dict.fromkeys((main, *alts)))))
    meta = {"data_type": "mscoco", "data_subtype": "val2014", "license": {"name": "synthetic", "url": ""}}
    v1 = data / "vqa1"
    dump(v1 / "OpenEnded_mscoco_val2014_questions.json",
         {"info": {}, "task_type": "Open-Ended", **meta, "questions": questions})
    dump(v1 / "MultipleChoice_mscoco_val2014_questions.json",
         {"info": {}, "task_type": "Multiple-Choice", **meta, "num_choices": 18,
          "questions": [{**q, "multiple_choices": c} for q, c in zip(questions, choices)]})
    dump(v1 / "mscoco_val2014_annotations.json", {"info": {}, **meta, "annotations": annotations})
    del choices

    pairs = []
    sources = rng.sample(range(n_v1), n_v2 - n_v1)
    for src in sources:
        base, ann0 = questions[src], annotations[src]
        image = rng.choice(images)
        while image == base["image_id"] and len(images) > 1:
            image = rng.choice(images)
        _, label0, pool = keys[src]
        alts = [a for a in pool if a != label0] or [rng.choice(POPULAR)]
        main = rng.choice(alts)
        qid = qid_on(image)
        ann = annotation(qid, image, base["question"], human_answers(rng, main, [label0, *alts]))
        questions.append({"image_id": image, "question": base["question"], "question_id": qid})
        annotations.append(ann)
        keys.append((qid, ann["multiple_choice_answer"], tuple(dict.fromkeys((main, label0, *alts)))))
        pairs.append([ann0["question_id"], qid] if rng.random() < 0.5 else [qid, ann0["question_id"]])
    distinct = len({q["question"] for q in questions})
    print(f"  VQA v2 val: {distinct:,} distinct question texts of {len(questions):,} "
          f"({distinct / len(questions):.0%}); "
          f"{len(pairs):,} complementary pairs")
    order = sorted(range(len(questions)), key=lambda j: questions[j]["question_id"])
    v2 = data / "vqa2"
    dump(v2 / "v2_OpenEnded_mscoco_val2014_questions.json",
         {"info": {}, "task_type": "Open-Ended", **meta, "questions": [questions[j] for j in order]})
    dump(v2 / "v2_mscoco_val2014_annotations.json",
         {"info": {}, **meta, "annotations": [annotations[j] for j in order]})
    dump(v2 / "v2_mscoco_val2014_complementary_pairs.json", pairs)
    return keys


def write_vqa_results(path: Path, keys: Sequence[tuple[int, str, tuple]], accuracy: float = 0.6, seed: int = 1) -> None:
    """The official results format: the label with probability `accuracy`, else another
    plausible answer."""
    rng = random.Random(seed)
    dump(path, [{"question_id": qid, "answer": label if rng.random() < accuracy else rng.choice(pool)}
                for qid, label, pool in keys])


# ------------------------------------------------------------------------------ Visual7W
#: Visual7W telling question types and their approximate shares.
V7W_TYPES = {"what": 0.47, "where": 0.14, "when": 0.04, "who": 0.10, "why": 0.07, "how": 0.18}


def v7w_qa(rng: random.Random, vocab: Vocab, t: str) -> tuple[str, str, list[str]]:
    """(question, answer, 3 human decoys of the same kind) of type `t`, in the release's style."""
    o, p = vocab.obj(rng), rng.choice(PEOPLE)
    if rng.random() < 0.5:
        o = f"{rng.choice(ADJECTIVES)} {o}"
    if t == "what":
        kind = rng.randrange(4)
        if kind == 0:
            q, pool = f"What color is the {o}?", [c.capitalize() + "." for c in COLORS]
        elif kind == 1:
            q, pool = f"What is the {p} holding?", [f"A {w}." for w in VERB_OBJECTS["holding"]]
        elif kind == 2:
            q, pool = f"What is on the {o}?", [f"A {rng.choice(ADJECTIVES)} {w}." for w in rng.sample(OBJECTS, 8)]
        else:
            q, pool = f"What is the {o} made of?", [m.capitalize() + "." for m in MATERIALS]
    elif t == "where":
        q = rng.choice((f"Where is the {o}?", "Where was this photo taken?", f"Where is the {p} standing?"))
        pool = [f"On the {w}." for w in rng.sample(OBJECTS, 4)] + [f"In the {w}." for w in rng.sample(PLACES, 4)]
    elif t == "when":
        q = rng.choice(("When was this photo taken?", f"When is the {p} {rng.choice(DOINGS)}?"))
        pool = ["During the day.", "At night.", "In the morning.", "In the evening.", "In winter.", "In summer.",
                "In the afternoon.", "At sunset."]
    elif t == "who":
        q = rng.choice((f"Who is {rng.choice(DOINGS)}?", f"Who is holding the {o}?", f"Who is on the {o}?"))
        pool = [f"A {rng.choice(ADJECTIVES)} {w}." for w in PEOPLE] + [f"The {w}." for w in PEOPLE]
    elif t == "why":
        q = f"Why is the {p} {rng.choice(DOINGS)}?"
        pool = [x[0].upper() + x[1:] + "." for x in REASONS] + [f"To hold the {w}." for w in rng.sample(OBJECTS, 3)]
    else:
        if rng.random() < 0.6:
            q = f"How many {plural(o)} are there?"
            pool = ["One.", "Two.", "Three.", "Four.", "Five.", "Six.", "Seven.", "None."]
        else:
            q = rng.choice(("How is the weather?", f"How does the {o} look?"))
            pool = ["Sunny.", "Cloudy.", "Rainy.", "Clear.", "Snowy.", "Bright.", "Dark.", "Foggy."]
    pool = list(dict.fromkeys(pool))
    answer = rng.choice(pool)
    decoys = rng.sample([a for a in pool if a.lower() != answer.lower()], 3)
    return situate(q, rng, vocab, 0.85), answer, decoys


def write_visual7w(data: Path, sizes: dict[str, int], vocab: Vocab, seed: int = 0) -> int:
    """dataset_v7w_telling.json with `sizes` QA pairs per split, 2-4 per image, of distinct
    types on one image (what, where, when, who, why, how)."""
    rng = random.Random(seed)
    images, qa_id, image_id = [], 0, 2_300_000
    for split, n in sizes.items():
        left = n
        while left > 0:
            k = min(left, rng.randint(2, 4))
            left -= k
            image_id += 1
            pairs = []
            types: list[str] = []
            while len(types) < k:
                t = rng.choices(tuple(V7W_TYPES), weights=tuple(V7W_TYPES.values()))[0]
                if t not in types:
                    types.append(t)
            for t in types:
                qa_id += 1
                q, a, decoys = v7w_qa(rng, vocab, t)
                pairs.append({"qa_id": qa_id, "image_id": image_id, "question": q, "answer": a,
                              "multiple_choices": decoys, "type": t})
            images.append({"image_id": image_id, "filename": f"v7w_{image_id}.jpg", "split": split, "qa_pairs": pairs})
    texts = [qa["question"] for img in images for qa in img["qa_pairs"]]
    test = [qa["question"] for img in images if img["split"] == "test" for qa in img["qa_pairs"]]
    print(f"  Visual7W: {len(images):,} images; distinct question texts {len(set(texts)) / len(texts):.0%} "
          f"(test {len(set(test)) / max(1, len(test)):.0%})")
    dump(data / "visual7w" / "dataset_v7w_telling.json", {"images": images, "dataset": "v7w"})
    return qa_id


# ------------------------------------------------------------------------------ e-ViL
