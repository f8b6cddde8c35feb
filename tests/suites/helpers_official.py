"""A miniature world in every official file format, laid out as `--data-dir` expects.

Deterministic (seeded), small (tens of questions per split), with tiny PNG images, so the
real-data suites can run end to end offline in seconds:

    vqa2/  v2 questions, annotations, complementary pairs (train, val), test-dev questions
    vqa1/  v1 questions, annotations, the 18 multiple choices (train, val)
    coco/  train2014/ val2014/ test2015/ images
    visual7w/  dataset_v7w_telling.json, images/, decoys.json (the released decoy shape)
    visual_genome/  question_answers.json, images/
    esnlive/  esnlive_{train,test}.csv
    vqax/  vqaX_{train,test}.json
    vcr/  {train,val}.jsonl, vcr1images/

Questions ask about one of four colours of a square; the answer is the colour drawn, so a
model that reads pixels can be right and a prior cannot always be.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

COLORS = {"red": (220, 40, 40), "blue": (40, 60, 220), "green": (40, 180, 60), "yellow": (230, 220, 30)}
QUESTIONS = ("What color is the square?", "Which color is the box?", "Is the square red?", "How many squares?")


def _image(path: Path, color: str) -> None:
    from PIL import Image, ImageDraw

    path.parent.mkdir(parents=True, exist_ok=True)
    image = Image.new("RGB", (16, 16), (128, 128, 128))
    ImageDraw.Draw(image).rectangle([3, 3, 12, 12], fill=COLORS[color])
    image.save(path)


def _answers(words: list[str]) -> list[dict]:
    return [{"answer": w, "answer_confidence": "yes", "answer_id": i + 1} for i, w in enumerate(words)]


def _qa(rng: random.Random, color: str) -> tuple[str, str, str, str]:
    """(question, answer, question_type, answer_type) about an image of `color`."""
    q = rng.choice(QUESTIONS)
    if q.startswith("Is"):
        return q, "yes" if color == "red" else "no", "is the", "yes/no"
    if q.startswith("How many"):
        return q, "1", "how many", "number"
    return q, color, "what color is the", "other"


def write_vqa(root: Path, *, version: int, split: str, n_images: int, seed: int) -> list[dict]:
    """Official VQA files of one split; returns the annotations (for hand computations)."""
    rng = random.Random(f"{version}/{split}/{seed}")
    tag = {"train": "train2014", "val": "val2014", "test-dev": "test-dev2015"}[split]
    img_tag = "test2015" if split == "test-dev" else tag
    prefix = "v2_" if version == 2 else ""
    folder = root / f"vqa{version}"
    folder.mkdir(parents=True, exist_ok=True)
    questions, annotations, mc, pairs = [], [], [], []
    base = {"train": 1000, "val": 5000, "test-dev": 9000}[split] * (10 if version == 2 else 1)
    colors = sorted(COLORS)
    for i in range(n_images):
        image_id = base + i
        color = colors[(i + seed) % 4] if version == 2 else rng.choice(colors[:2])  # v1 is biased
        _image(root / "coco" / img_tag / f"COCO_{img_tag}_{image_id:012d}.jpg", color)
        for j in range(2):
            qid = image_id * 10 + j
            q, a, qtype, atype = _qa(rng, color) if j else ("What color is the square?", color,
                                                            "what color is the", "other")
            questions.append({"image_id": image_id, "question": q, "question_id": qid})
            humans = [a] * 8 + [rng.choice(colors)] * 2
            annotations.append({"question_id": qid, "image_id": image_id, "question_type": qtype,
                                "answer_type": atype, "multiple_choice_answer": a, "answers": _answers(humans)})
            others = [c for c in colors + ["1", "2", "yes", "no", "cat", "dog", "car", "tree", "sky", "one", "two",
                                           "three", "four", "white"] if c != a]
            mc.append({"image_id": image_id, "question": q, "question_id": qid,
                       "multiple_choices": [a] + others[:17]})
    if version == 2 and split != "test-dev":
        # Complementary pairs: the colour question on image i and on image i+1 (another colour).
        for i in range(0, n_images - 1, 2):
            pairs.append([(base + i) * 10, (base + i + 1) * 10])
    (folder / f"{prefix}OpenEnded_mscoco_{tag}_questions.json").write_text(json.dumps({"questions": questions}))
    if split != "test-dev":
        (folder / f"{prefix}mscoco_{tag}_annotations.json").write_text(json.dumps({"annotations": annotations}))
    if version == 2 and split != "test-dev":
        (folder / f"v2_mscoco_{tag}_complementary_pairs.json").write_text(json.dumps(pairs))
    if version == 1:
        (folder / f"MultipleChoice_mscoco_{tag}_questions.json").write_text(json.dumps({"questions": mc}))
    return annotations


def write_visual7w(root: Path, n_images: int = 24, *, released: bool = True) -> None:
    rng = random.Random("v7w")
    colors = sorted(COLORS)
    images, decoys = [], {}
    for i in range(n_images):
        color = colors[i % 4]
        _image(root / "visual7w" / "images" / f"v7w_{i}.jpg", color)
        split = "train" if i < n_images // 2 else ("val" if i < 3 * n_images // 4 else "test")
        pairs = []
        for j, (q, a) in enumerate([("What color is the square?", color.capitalize() + "."),
                                    ("What shape is drawn?", "A square.")]):
            qa_id = i * 10 + j
            wrong = [c.capitalize() + "." for c in colors if c.capitalize() + "." != a][:3] if j == 0 \
                else ["A circle.", "A star.", "A line."]
            pairs.append({"qa_id": qa_id, "image_id": i, "question": q, "answer": a, "multiple_choices": wrong,
                          "type": "what"})
            decoys[str(qa_id)] = {"IoU_decoys": ["A circle.", "Gray."], "QoU_decoys": [rng.choice(["Three.", "Two."])]}
        images.append({"image_id": i, "filename": f"v7w_{i}.jpg", "split": split, "qa_pairs": pairs})
    (root / "visual7w" / "dataset_v7w_telling.json").write_text(json.dumps({"images": images}))
    if released:
        (root / "visual7w" / "decoys.json").write_text(json.dumps(decoys))


def write_visual7w_test_split(root: Path) -> None:
    """Two Visual7W test images of two questions each, 3 choices, no images or decoy file."""
    images = [{"image_id": i, "filename": f"v7w_{i}.jpg", "split": "test",
               "qa_pairs": [{"qa_id": i * 10 + j, "image_id": i, "question": f"What is {j}?", "answer": f"t{i}{j}",
                             "multiple_choices": ["a", "b", "c"]} for j in range(2)]} for i in range(2)]
    path = root / "visual7w" / "dataset_v7w_telling.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"images": images}))


def write_visual_genome(root: Path, n_images: int = 30) -> None:
    colors = sorted(COLORS)
    data = []
    for i in range(n_images):
        color = colors[i % 4]
        _image(root / "visual_genome" / "images" / f"{i}.jpg", color)
        data.append({"id": i, "qas": [
            {"qa_id": i * 10, "image_id": i, "question": "What color is the square?", "answer": color},
            {"qa_id": i * 10 + 1, "image_id": i, "question": "How many squares are there?",
             "answer": "one" if i % 3 else "two"},
        ]})
    (root / "visual_genome" / "question_answers.json").write_text(json.dumps(data))


def write_esnlive(root: Path, split: str, n: int = 24) -> None:
    rng = random.Random(f"esnlive/{split}")
    folder = root / "esnlive"
    folder.mkdir(parents=True, exist_ok=True)
    labels = ("entailment", "neutral", "contradiction")
    with (folder / f"esnlive_{split}.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["pairID", "Flickr30kID", "hypothesis", "gold_label", "explanation"])
        for i in range(n):
            label = labels[i % 3]
            hyp = {"entailment": "A dog is outside.", "neutral": "A dog is happy.",
                   "contradiction": "A cat sleeps inside."}[label]
            w.writerow([f"{split}-{i}", f"{1000 + i % 8}.jpg", hyp, label,
                        rng.choice(["the dog runs on grass", "there is a dog in a park", "dogs play outside"])])


def write_vqax(root: Path, split: str, n: int = 20) -> None:
    colors = sorted(COLORS)
    data = {}
    for i in range(n):
        color = colors[i % 4]
        qid = str(7000 + i + (100 if split == "train" else 0))
        data[qid] = {"question": "What color is the square?", "answers": [{"answer": color}] * 10,
                     "explanation": [f"the square is {color}", f"it is painted {color}", f"{color} paint"],
                     "image_id": str(100 + i), "image_name": f"COCO_val2014_{100 + i:012d}.jpg"}
    (root / "vqax").mkdir(parents=True, exist_ok=True)
    (root / "vqax" / f"vqaX_{split}.json").write_text(json.dumps(data))


def write_vcr(root: Path, split: str, n: int = 12) -> None:
    lines = []
    for i in range(n):
        lines.append(json.dumps({
            "annot_id": f"{split}-{i}", "img_fn": f"movie/{i}.jpg", "movie": "m", "objects": ["person", "car"],
            "question": ["What", "is", [0], "doing", "?"],
            "answer_choices": [[[0], "drives", [1], "."], ["sleeping"], ["eating"], ["reading"]],
            "answer_label": i % 2, "rationale_choices": [[[0], "holds", "the", "wheel"], ["no"], ["maybe"], ["yes"]],
            "rationale_label": 0}))
    (root / "vcr").mkdir(parents=True, exist_ok=True)
    (root / "vcr" / f"{split}.jsonl").write_text("\n".join(lines) + "\n")


def write_world(root: Path) -> dict[str, list[dict]]:
    """Every format under `root`; returns the VQA annotations per (version, split)."""
    out = {}
    for version in (1, 2):
        for split, n in (("train", 24), ("val", 30)):
            out[f"v{version}/{split}"] = write_vqa(root, version=version, split=split, n_images=n, seed=0)
    write_vqa(root, version=2, split="test-dev", n_images=6, seed=0)
    write_visual7w(root)
    write_visual_genome(root)
    for split in ("train", "test"):
        write_esnlive(root, split)
        write_vqax(root, split)
    for split in ("train", "val"):
        write_vcr(root, split)
    return out
