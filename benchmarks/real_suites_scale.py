"""One real-data suite per paper at the official full sizes, with a fast model: time and memory.

    python benchmarks/real_suites_scale.py [--scale 1.0] [--only goyal,chao,kayser,stoikou]
                                           [--chao-suite decoys-visual7w|decoys-vqa2] [--keep DIR]

Generates synthetic files in the official formats (no images; sizes are the official
ones times `--scale`), then runs each suite in a fresh process with its own empty cache
and prints wall seconds, CPU seconds (user + system of the process and the processes it
waited for), peak resident memory, the number of model calls and of result rows, and the
machine's load (`uptime`) before and after:

- Goyal: `--suite goyal` with `predictions:path=answers.json,trained_on=vqa2` (answers read
  from an official results file; a pretrained model, so no train files are needed and the
  cells BU and BB are filled; UB and BB differ only in training data and run once).
  VQA v1 val (121,512 questions, with the MultipleChoice file's 18 choices, which the docs
  ask users to download although `goyal` does not read them) and VQA v2 val (214,354
  questions: the v1 val questions under the same ids, plus 92,842 complementary questions,
  each paired with one v1 question: same text, another image, another answer). One results
  file covers both, since the v1 ids are v2 ids.
- Chao: `--suite decoys-visual7w` (default): Chao Table 3 is on Visual7W, the suite users
  run for the paper. The telling file holds 139,868 QA pairs (train 69,817, val 28,020, test
  42,031); no released decoy file, so the decoys are generated — for test (the scored split)
  and for train too, where the Eq. 2 audit counts its answer frequencies (train is in the
  same file). `--chao-suite decoys-vqa2` runs VQA v2 val instead (generated decoys on 214,354
  questions; no train file, so the audit counts on val).
- Kayser: `--suite e-vil` with `predictions:path=answers.jsonl` (answer + explanation per
  example id): e-SNLI-VE test 17,901 rows, VQA-X test 1,968, VCR val 26,534; only the test
  files (a pretrained model needs no train file). The NLG metrics dominate: METEOR (one Java
  process) and BERTScore (MiniLM on the CPU) over the correctly answered examples.
- Stoikou: `--suite counterfactual-vqa2` on VQA v2 val (214,354 questions). The `predictions`
  model cannot answer changed questions, so a model registered inline answers (below).
  Generating the perturbations dominates.

Chao and Stoikou need a model that answers any question / scores any candidate list, and
no built-in model is both fast and free of training data: `hash-answer` (defined here)
answers with a word of the question's form (yes/no, a number, a color, else a common
answer) picked by a CRC32 of the question, and scores each candidate by a CRC32 of question
and candidate — constant time per call, and unlike a constant answer its answer changes
when the question changes. It is registered through `harness.testing` in a
child process (`python -c "import real_suites_scale as m; m.child(SUITE, DATA, OUT)"`) that
runs the suite as `harness run` would (`harness.run.run_models`), measured like the CLI runs.

The texts are synthetic but shaped like the real ones: VQA questions from templates with
the official question-type prefixes over common COCO objects plus a tail of 3,631 concrete
WordNet nouns (so the counterfactual generator keeps meeting new words, as on real data),
colors, adjectives and verbs; 10 human answers each (about 75% agreement); Visual7W answers
as the release writes them ("On the table."), 3 human decoys of the same kind; e-SNLI-VE
hypotheses and explanations as short English sentences; VCR token lists with object
references. The predicted explanations are the reference with about a third of its words
changed. The harness's own readers check every file (a file they reject fails the run).
About half of the VQA v2 question texts are distinct and 70-85% of the Visual7W ones (the
script prints the shares; Visual7W images hold 2-4 questions of distinct types): the QoU
decoy search grows with the square of the distinct texts, so these shares matter.

After each run the script prints the run's per-probe seconds (manifest `timings`) and, for
the decoy suites, the generator's statistics per generated split (IoU / QoU / fill-in
seconds, short sets), read from the run's cache.

Develop with a small `--scale` (e.g. 0.01); the full sizes take a while (see docs/real-data.md).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from balanced_vqa_load import N_QUESTIONS  # noqa: E402
from decoys_generate import COLORS, MATERIALS, OBJECTS, PLACES  # noqa: E402
from harness_proc import Measured, run_python, uptime  # noqa: E402

from harness.api import Model  # noqa: E402

#: Official sizes.
V1_VAL, V2_VAL = 121_512, N_QUESTIONS  # VQA v1 val, VQA v2 val (214,354)
V7W_SPLITS = {"train": 69_817, "val": 28_020, "test": 42_031}  # Visual7W telling: 139,868 QA pairs
ESNLIVE_TEST, VQAX_TEST, VCR_VAL = 17_901, 1_968, 26_534
PAPERS = ("goyal", "chao", "kayser", "stoikou")

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
            from vqa_harness_plugins.nlp import wordnet_index

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
    from harness.metrics import answer_type, question_type

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
def scene(rng: random.Random) -> tuple[str, str, str, str]:
    verb = rng.choice(tuple(VERB_OBJECTS))
    return rng.choice(PEOPLE), verb, rng.choice(VERB_OBJECTS[verb]), rng.choice(PLACES)


def esnlive_row(rng: random.Random, label: str) -> tuple[str, str]:
    """(hypothesis, explanation) for a gold label, as short English sentences."""
    p, verb, o, place = scene(rng)
    adj = rng.choice(ADJECTIVES)
    if label == "entailment":
        return rng.choice(((f"A {p} is {verb} a {o}.", f"A {adj} {p} {verb} a {o} is a {p} {verb} a {o}."),
                           (f"Someone is {verb} something.", f"If the {p} is {verb} a {o} in the {place} then "
                                                             f"someone is {verb} something."),
                           (f"A person is outside near the {place}.", f"The {p} is at the {place} so a person "
                                                                      "is there.")))
    if label == "neutral":
        reason = rng.choice(("to stay warm", "for fun", "for a friend", "to get to work", "for a photo",
                             "to win a prize"))
        return (f"The {p} is {verb} a {o} {reason}.",
                rng.choice((f"Not every {p} {verb} a {o} is doing it {reason}.",
                            f"We cannot tell from the picture why the {p} is {verb} the {o}.",
                            f"Just because the {p} has a {o} does not mean it is {reason}.")))
    verb2 = rng.choice([v for v in VERB_OBJECTS if v != verb])
    o2 = rng.choice(VERB_OBJECTS[verb2])
    return rng.choice(((f"The {p} is {verb2} a {o2}.", f"The {p} cannot be {verb} a {o} and {verb2} a {o2} at the "
                                                        "same time."),
                       (f"Nobody is {verb} anything.",
                        f"If someone is {verb} a {o} then somebody is {verb} something."),
                       ("The person is asleep in bed.", f"A {p} who is {verb} a {o} in the {place} is not asleep "
                                                        "in bed.")))


def write_esnlive(data: Path, n: int, seed: int = 0) -> None:
    import csv

    rng = random.Random(seed)
    path = data / "esnlive" / "esnlive_test.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["", "pairID", "Flickr30kID", "hypothesis", "gold_label", "explanation"])
        row = 0
        while row < n:
            image = f"{rng.randrange(10**9, 10**10)}.jpg"
            for caption in range(rng.randint(1, 2)):
                for label in rng.sample(("entailment", "neutral", "contradiction"), rng.randint(1, 3)):
                    if row >= n:
                        break
                    hyp, expl = esnlive_row(rng, label)
                    w.writerow([row, f"{image}#{caption}r1{label[0]}", image, hyp, label, expl])
                    row += 1


def vqax_explanations(rng: random.Random, question: str, main: str) -> list[str]:
    p, verb, o, place = scene(rng)
    return [rng.choice((f"the {o} in the picture is {main}", f"because the {p} is {verb} a {o} near the {place}",
                        f"you can see a {rng.choice(COLORS)} {o} and it is {main}",
                        f"the {p} is {rng.choice(DOINGS)} in the {place}"))
            for _ in range(3)]


def write_vqax(data: Path, n: int, vocab: Vocab, seed: int = 0) -> None:
    rng = random.Random(seed)
    out: dict[str, Any] = {}
    images = rng.sample(range(1, 600_000), max(1, n))
    for i in range(n):
        image = images[i]
        text, main, alts = vqa_question(rng, vocab)
        answers = human_answers(rng, main, alts)
        out[str(image * 1000 + rng.randrange(3))] = {
            "question": text, "answers": [{"answer": a, "answer_confidence": "yes", "answer_id": j + 1}
                                          for j, a in enumerate(answers)],
            "explanation": vqax_explanations(rng, text, majority(answers)), "image_id": image,
            "image_name": f"COCO_val2014_{image:012d}.jpg"}
    dump(data / "vqax" / "vqaX_test.json", out)


VCR_OBJECTS = ("car", "chair", "cup", "dog", "bottle", "tie", "handbag", "book", "wineglass", "umbrella")


def write_vcr(data: Path, n: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    path = data / "vcr" / "val.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            objects = ["person"] * rng.randint(2, 4) + rng.sample(VCR_OBJECTS, rng.randint(0, 3))
            a, b = rng.sample(range(sum(o == "person" for o in objects)), 2)
            thing = rng.randrange(len(objects))
            verb = rng.choice(DOINGS)
            question = rng.choice(([["Why", "is", [a], verb, "?"],
                                    ["What", "is", [a], "going", "to", "do", "next", "?"],
                                    ["How", "does", [a], "feel", "about", [b], "?"],
                                    ["What", "is", [a], "doing", "with", [thing], "?"]]))
            answers = [[[rng.choice((a, b))], "is", rng.choice(DOINGS), "because", *rng.choice(REASONS).split(), "."]
                       for _ in range(4)]
            rationales = [[[rng.choice((a, b))], "is", "looking", "at", [rng.choice((a, b, thing))], "and",
                           *f"the {rng.choice(OBJECTS)} is {rng.choice(ADJECTIVES)}".split(), "."] for _ in range(4)]
            movie = f"{1000 + i % 300}_Movie_{i % 300}"
            f.write(json.dumps({"movie": movie, "objects": objects, "question": question, "answer_choices": answers,
                                "answer_label": rng.randrange(4), "rationale_choices": rationales,
                                "rationale_label": rng.randrange(4), "img_fn": f"lsmdc_{movie}/{movie}_{i:06d}.jpg",
                                "annot_id": f"val-{i}", "answer_likelihood": "likely"}) + "\n")


def paraphrase(text: str, rng: random.Random) -> str:
    """The reference with about a third of its words dropped or replaced (a model's
    explanation overlaps its reference only partly)."""
    words = []
    for w in text.split():
        r = rng.random()
        if r < 0.15:
            continue
        words.append(rng.choice((*OBJECTS, *ADJECTIVES, *DOINGS)) if r < 0.33 else w)
    return " ".join(words) or text


def write_evil_answers(data: Path, path: Path, seed: int = 1) -> int:
    """JSON lines {id, answer, explanation} for the three test files, read back with the
    harness's readers (ids, rendered VCR choices): the label with about the published
    models' accuracy (e-SNLI-VE 0.75, VQA-X 0.75, VCR 0.6), else another candidate."""
    from vqa_harness_plugins.datasets.e_vil.loaders import read_esnlive, read_vcr, read_vqax

    rng = random.Random(seed)
    count = 0
    with path.open("w", encoding="utf-8") as f:
        for reader, file, acc in ((read_esnlive, data / "esnlive" / "esnlive_test.csv", 0.75),
                                  (read_vqax, data / "vqax" / "vqaX_test.json", 0.75),
                                  (read_vcr, data / "vcr" / "val.jsonl", 0.6)):
            for ex in reader(file, None):
                wrong = [c for c in ex.choices if c != ex.label] or [a for a in POPULAR if a not in ex.answers]
                answer = ex.label if rng.random() < acc else rng.choice(wrong)
                f.write(json.dumps({"id": ex.id, "answer": answer,
                                    "explanation": paraphrase(ex.explanations[0], rng)}) + "\n")
                count += 1
    return count


# ------------------------------------------------------------------------------ the inline model
ANSWERS = tuple(dict.fromkeys((*POPULAR, *COLORS, *NUMBERS[:6], *DOINGS[:6], *OBJECTS[:20])))


YES_NO = ("is", "are", "does", "do", "can", "was", "has", "could", "will")


class HashAnswer(Model):
    """A fast stand-in for a pretrained model: constant time per call, no training data.
    Its answer fits the question's form (yes/no, a number, a color, else a common answer)
    and is picked by a CRC32 of the question, so it changes when the question changes."""

    name = "hash-answer"
    description = "answers of the question's form picked by a CRC32 of the question; scores candidates by CRC32"

    def answer(self, batch):
        out = []
        for ex in batch:
            q = ex.question.lower()
            h = zlib.crc32(q.encode())
            pool = (("yes", "no") if q.split(" ", 1)[0] in YES_NO else NUMBERS[:6] if q.startswith("how many")
                    else COLORS if q.startswith("what color") else ANSWERS)
            out.append(pool[h % len(pool)])
        return out

    def score_choices(self, batch):
        return [[zlib.crc32(f"{ex.question}\n{c}".encode()) % 1000 / 1000 for c in ex.choices] for ex in batch]


def child(suite: str, data: str | Path, out: str | Path) -> int:
    """Run `hash-answer` through `suite` as `harness run --no-leaderboard` would (the body of
    the measured child process)."""
    from harness.hookspecs import hookimpl
    from harness.run import RunConfig, run_models
    from harness.testing import make_host, use_host

    class Plugin:
        @hookimpl
        def register_models(self, register):
            register(HashAnswer)

    host = make_host(Plugin(), builtins=True, names=["real-suites-scale"])
    with use_host(host):
        base = RunConfig(model="", suite=suite, data_dir=Path(data), device="cpu", out=Path(out), progress=False,
                         argv=tuple(sys.argv))
        code = run_models(["hash-answer"], base, host, leaderboard=None, echo=print,
                          warn=lambda text: print(text, file=sys.stderr), jobs=1)
    return int(code)


# ------------------------------------------------------------------------------ measuring
_SUMMARY = re.compile(r"(\d+) result rows -> .*\(model calls (\d+)")
_NOTES = ("  skipped", "  probe ", "warning", "error", "example(s) failed", "Traceback")


def measure(paper: str, suite: str, model: str, root: Path, data: Path) -> dict[str, Any]:
    """Run one suite in a fresh process with an empty cache; print and return the figures."""
    cache, out = root / f"cache-{paper}", root / f"runs-{paper}"
    if model == HashAnswer.name:
        # Imported by name (not run as __main__): the harness digests the model's module source.
        code = (f"import sys; sys.path.insert(0, {str(HERE)!r}); import real_suites_scale as m; "
                f"sys.exit(m.child({suite!r}, {str(data)!r}, {str(out)!r}))")
        args = ["-c", code]
        shown = (f"python -c 'import real_suites_scale as m; m.child({suite!r}, DATA, OUT)'   "
                 f"(model {model}, registered inline)")
    else:
        args = ["-m", "harness.cli", "run", "--model", model, "--suite", suite, "--data-dir", str(data),
                "--out", str(out), "--no-leaderboard"]
        shown = (f"harness run --model {model.replace(str(root), 'ROOT')} --suite {suite} --data-dir DATA "
                 "--no-leaderboard")
    print(f"\n[{paper}] {shown}\n  load before: {uptime()}", flush=True)
    m: Measured = run_python(args, root, cache, check=False)
    found = _SUMMARY.search(m.output)
    rows, calls = (int(found.group(1)), int(found.group(2))) if found else (None, None)
    for line in m.output.splitlines():
        if line.startswith(_NOTES) or any(n in line for n in _NOTES[2:]):
            print(f"  | {line[:300]}")
    if found is None or m.code not in (0, 1):
        print("  output tail:\n" + "\n".join(f"  | {x}" for x in m.output.splitlines()[-25:]))
    if "have no decoys for" in m.output:
        print("  note: no question of a split got a decoy (the generator statistics are below)")
    print(f"  {m.wall:8.1f} s wall, {m.cpu:8.1f} s CPU, peak {m.peak_mb:7.0f} MB, model calls {calls}, "
          f"result rows {rows}, exit code {m.code}")
    print_stages(out, cache)
    print(f"  load after: {uptime()}", flush=True)
    return {"paper": paper, "suite": suite, "wall": m.wall, "cpu": m.cpu, "peak": m.peak_mb, "calls": calls,
            "rows": rows, "code": m.code}


def print_stages(out: Path, cache: Path) -> None:
    """Where the time went: the run's per-probe seconds (manifest `timings`) and, for the
    decoy suites, the generator's own statistics saved with each cached generation."""
    manifests = sorted(out.glob("*/manifest.json"), key=lambda p: p.stat().st_mtime)
    if manifests:
        try:
            timings = json.loads(manifests[-1].read_text(encoding="utf-8")).get("timings") or []
        except (OSError, ValueError):
            timings = []
        for t in timings:
            if t.get("seconds", 0) >= 0.05:
                what = f"{t['task']} / {t['probe']}" if "probe" in t else f"fit {t.get('fit')}"
                print(f"    {t['seconds']:8.1f} s  {what}"
                      + (f"  (model {t['model_seconds']:.1f} s)" if t.get("model_seconds") else ""))
    for f in sorted((cache / "decoys").glob("*.json"), key=lambda p: p.stat().st_mtime):
        try:
            st = json.loads(f.read_text(encoding="utf-8"))["stats"]
        except (OSError, ValueError, KeyError):
            continue
        sec = st.get("seconds", {})
        print(f"    decoy generation: {st.get('questions', 0):,} questions ({st.get('unique_questions', 0):,} distinct "
              f"texts): IoU {sec.get('iou', 0):.1f} s, QoU {sec.get('qou', 0):.1f} s, "
              f"fill-ins {sec.get('fill', 0):.1f} s; "
              f"IoU decoys short {st.get('short_iou', 0):,}, QoU short {st.get('short_qou', 0):,}")


def sized(n: int, scale: float) -> int:
    return max(2, round(n * scale))


def timed(what: str, fn: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    out = fn()
    print(f"  generated {what} in {time.perf_counter() - start:.1f} s", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every official size (default 1.0)")
    parser.add_argument("--only", default=",".join(PAPERS), help=f"comma list of {', '.join(PAPERS)}")
    parser.add_argument("--chao-suite", choices=("decoys-visual7w", "decoys-vqa2"), default="decoys-visual7w")
    parser.add_argument("--keep", type=Path, default=None, help="write everything here and keep it")
    args = parser.parse_args(argv)
    only = [p.strip() for p in args.only.split(",") if p.strip()]
    bad = [p for p in only if p not in PAPERS]
    if bad or not 0 < args.scale <= 1.0:
        parser.error(f"--only takes {', '.join(PAPERS)}; --scale is in (0, 1]"
                     + (f" (got {', '.join(bad)})" if bad else ""))
    s = args.scale
    n_v1, n_v2 = sized(V1_VAL, s), sized(V2_VAL, s)
    v7w = {k: sized(v, s) for k, v in V7W_SPLITS.items()}
    n_snli, n_vqax, n_vcr = sized(ESNLIVE_TEST, s), sized(VQAX_TEST, s), sized(VCR_VAL, s)
    root = (args.keep or Path(tempfile.mkdtemp(prefix="real-suites-"))).resolve()
    root.mkdir(parents=True, exist_ok=True)
    data = root / "data"
    results = []
    try:
        print(f"load at start: {uptime()}")
        print(f"scale {s}: VQA v1 val {n_v1:,}, VQA v2 val {n_v2:,} questions; Visual7W telling "
              f"{sum(v7w.values()):,} QA pairs ({', '.join(f'{k} {v:,}' for k, v in v7w.items())}); e-SNLI-VE test "
              f"{n_snli:,}, VQA-X test {n_vqax:,}, VCR val {n_vcr:,}")
        vocab = Vocab()
        need_vqa = ("goyal" in only or "stoikou" in only or ("chao" in only and args.chao_suite == "decoys-vqa2"))
        if need_vqa:
            keys = timed(f"VQA v1 val + v2 val ({n_v1:,} + {n_v2 - n_v1:,} questions)",
                         lambda: write_vqa(data, n_v1, n_v2, vocab))
            if "goyal" in only:
                timed("the official results file", lambda: write_vqa_results(root / "answers.json", keys))
            del keys
        if "chao" in only and args.chao_suite == "decoys-visual7w":
            timed(f"Visual7W telling ({sum(v7w.values()):,} QA pairs)", lambda: write_visual7w(data, v7w, vocab))
        if "kayser" in only:
            timed("e-SNLI-VE, VQA-X and VCR test files",
                  lambda: (write_esnlive(data, n_snli), write_vqax(data, n_vqax, vocab), write_vcr(data, n_vcr)))
            timed("their answers and explanations (JSON lines)",
                  lambda: write_evil_answers(data, root / "answers.jsonl"))
        if "goyal" in only:
            results.append(measure("goyal", "goyal", f"predictions:path={root / 'answers.json'},trained_on=vqa2",
                                   root, data))
        if "chao" in only:
            results.append(measure("chao", args.chao_suite, HashAnswer.name, root, data))
        if "kayser" in only:
            results.append(measure("kayser", "e-vil", f"predictions:path={root / 'answers.jsonl'}", root, data))
        if "stoikou" in only:
            results.append(measure("stoikou", "counterfactual-vqa2", HashAnswer.name, root, data))
        print(f"\nsummary (scale {s}; each run a fresh process with an empty cache):")
        print(f"{'paper':8s} {'suite':20s} {'wall s':>8s} {'CPU s':>8s} {'peak MB':>8s} {'model calls':>12s} "
              f"{'rows':>6s} {'exit':>4s}")
        for r in results:
            calls = "-" if r["calls"] is None else r["calls"]
            rows = "-" if r["rows"] is None else r["rows"]
            print(f"{r['paper']:8s} {r['suite']:20s} {r['wall']:8.1f} {r['cpu']:8.1f} {r['peak']:8.0f} "
                  f"{calls:>12} {rows:>6} {r['code']:>4d}")
        print(f"load at end: {uptime()}")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 1 if any(r["code"] not in (0, 1) or r["rows"] is None for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
