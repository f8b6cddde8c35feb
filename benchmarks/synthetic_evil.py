"""Synthetic e-ViL data for benchmarks/real_suites_scale.py: e-SNLI-VE, VQA-X and VCR files in the
official formats, and predicted answers with paraphrased explanations (docs/real-data.md)."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

from decoys_generate import COLORS, OBJECTS, PLACES
from synthetic_vqa import (
    ADJECTIVES,
    DOINGS,
    PEOPLE,
    POPULAR,
    REASONS,
    VERB_OBJECTS,
    Vocab,
    dump,
    human_answers,
    majority,
    vqa_question,
)

from vqa_harness_plugins.datasets.e_vil.loaders import read_esnlive, read_vcr, read_vqax


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
            question = rng.choice([["Why", "is", [a], verb, "?"],
                                    ["What", "is", [a], "going", "to", "do", "next", "?"],
                                    ["How", "does", [a], "feel", "about", [b], "?"],
                                    ["What", "is", [a], "doing", "with", [thing], "?"]])
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
