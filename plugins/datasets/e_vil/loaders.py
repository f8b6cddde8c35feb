"""Readers for the e-ViL files: e-SNLI-VE CSV, VQA-X JSON, VCR jsonl (pure Python).

Each returns `harness.types.Example`s and raises a one-line DataError naming the file, the
row and the field on malformed input (missing column, unknown label, empty explanation,
VCR object index out of range).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from harness.errors import DataError
from harness.jsonio import read_json
from harness.types import Example

from ._common import data_error

__all__ = ["ESNLIVE_LABELS", "ESNLIVE_COLUMNS", "read_esnlive", "read_vqax", "read_vcr", "render_vcr_tokens"]

ESNLIVE_LABELS = ("entailment", "neutral", "contradiction")
ESNLIVE_COLUMNS = ("pairID", "Flickr30kID", "hypothesis", "gold_label", "explanation")


def _open_error(path: Path, exc: OSError) -> DataError:
    return DataError(f"{path}: cannot read ({exc.strerror or exc})")


def read_esnlive(path: Path, images: Path | None) -> list[Example]:
    """e-ViL CSV release (`pairID, Flickr30kID, hypothesis, gold_label, explanation`; an
    unnamed index column is allowed). Rows are numbered from 1 after the header."""
    try:
        fh = open(path, encoding="utf-8", newline="")
    except OSError as exc:
        raise _open_error(path, exc) from None
    out = []
    with fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        missing = [c for c in ESNLIVE_COLUMNS if c not in header]
        if missing:
            raise DataError(f"{path}: row 0 (header): missing column(s) {', '.join(missing)}; "
                            f"expected {', '.join(ESNLIVE_COLUMNS)}")
        for i, row in enumerate(reader, start=1):
            for col in ESNLIVE_COLUMNS:
                if row.get(col) is None:
                    raise data_error(path, i, col, "missing value (short row)")
            label = row["gold_label"].strip()
            if label not in ESNLIVE_LABELS:
                raise data_error(path, i, "gold_label", f"unknown label {label!r}; expected one of {', '.join(ESNLIVE_LABELS)}")
            explanation = row["explanation"].strip()
            if not explanation:
                raise data_error(path, i, "explanation", "empty explanation")
            hypothesis = row["hypothesis"].strip()
            if not hypothesis:
                raise data_error(path, i, "hypothesis", "empty hypothesis")
            image_id = row["Flickr30kID"].strip()
            out.append(Example(
                id=row["pairID"].strip() or str(i), question=hypothesis, image_id=image_id,
                image=str(images / image_id) if images else "", label=label,
                choices=ESNLIVE_LABELS, explanations=(explanation,),
                meta={"task": "e-snli-ve"},
            ))
    return out


def read_vqax(path: Path, images: Path | None) -> list[Example]:
    """VQA-X JSON keyed by question id: `question`, `answers` (10 objects with `answer`, or
    strings), `explanation` (list), `image_id`, optional `image_name`. The row named in errors
    is the question id. The one reader of VQA-X, for e-ViL and for the VQA-style suites:
    question and answer types are derived the official way (`harness.metrics`), and `label`
    (the stand-in for `multiple_choice_answer`) is the most frequent answer, ties broken by
    first occurrence."""
    from harness.metrics import answer_type, question_type

    data = read_json(path, "VQA-X JSON; see docs/e-vil.md")
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected a JSON object keyed by question id (VQA-X format)")
    out = []
    for qid, item in data.items():
        if not isinstance(item, dict):
            raise data_error(path, qid, "*", "expected an object")
        for key in ("question", "answers", "explanation", "image_id"):
            if key not in item:
                raise data_error(path, qid, key, "missing")
        question = item["question"]
        if not isinstance(question, str) or not question.strip():
            raise data_error(path, qid, "question", "expected a non-empty string")
        raw = item["answers"]
        if not isinstance(raw, list) or not raw:
            raise data_error(path, qid, "answers", f"expected a non-empty list of answers, got {type(raw).__name__}")
        answers = []
        for j, ans in enumerate(raw):
            text = ans.get("answer") if isinstance(ans, dict) else ans
            if not isinstance(text, str):
                raise data_error(path, qid, f"answers[{j}]", "expected an answer string or {\"answer\": string}")
            answers.append(text)
        expl = item["explanation"]
        if isinstance(expl, str):
            expl = [expl]
        if not isinstance(expl, list) or not expl:
            raise data_error(path, qid, "explanation", "expected a non-empty list of explanations")
        for j, e in enumerate(expl):
            if not isinstance(e, str) or not e.strip():
                raise data_error(path, qid, f"explanation[{j}]", "empty explanation")
        image_id = item["image_id"]
        if not isinstance(image_id, (str, int)) or isinstance(image_id, bool):
            raise data_error(path, qid, "image_id", "expected a string or an integer")
        name = item.get("image_name")
        if name is None:
            name = f"COCO_val2014_{int(image_id):012d}.jpg" if str(image_id).isdigit() else str(image_id)
        if not isinstance(name, str) or not name:
            raise data_error(path, qid, "image_name", "expected a non-empty string")
        folder = "train2014" if "train2014" in name else "val2014"
        out.append(Example(
            id=str(qid), question=question.strip(), image_id=str(image_id),
            image=str(images / folder / name) if images else "", answers=tuple(answers),
            answer_type=answer_type(answers), question_type=question_type(question),
            label=most_common_answer(answers), explanations=tuple(e.strip() for e in expl),
            meta={"task": "vqa-x"},
        ))
    return out


def most_common_answer(answers: list[str]) -> str:
    """The most frequent answer string, ties broken by first occurrence."""
    counts: dict[str, int] = {}
    for a in answers:
        counts[a] = counts.get(a, 0) + 1
    return max(counts, key=lambda a: counts[a]) if counts else ""


def render_vcr_tokens(tokens: Any, objects: list[str], path: Path, row: int, field: str) -> str:
    """VCR tokens to text: a list of object indices becomes their names ("person1 and car1").

    Names number objects per class in the order of `objects` (person1, person2, car1)."""
    if not isinstance(tokens, list):
        raise data_error(path, row, field, "expected a list of tokens")
    names, seen = [], {}
    for obj in objects:
        seen[obj] = seen.get(obj, 0) + 1
        names.append(f"{obj}{seen[obj]}")
    words = []
    for tok in tokens:
        if isinstance(tok, str):
            words.append(tok)
            continue
        refs = tok if isinstance(tok, list) else [tok]
        picked = []
        for idx in refs:
            if not isinstance(idx, int) or isinstance(idx, bool):
                raise data_error(path, row, field, f"object reference {idx!r} is not an integer")
            if not 0 <= idx < len(objects):
                raise data_error(path, row, field, f"object index {idx} out of range (objects has {len(objects)})")
            picked.append(names[idx])
        words.append(picked[0] if len(picked) == 1 else ", ".join(picked[:-1]) + " and " + picked[-1])
    text = " ".join(words)
    for p in (" ,", " .", " ?", " !", " '", " ;", " :"):
        text = text.replace(p, p[1:])
    return text.strip()


def read_vcr(path: Path, images: Path | None) -> list[Example]:
    """VCR jsonl (question, answer_choices, answer_label, rationale_choices, rationale_label,
    objects, img_fn, annot_id); rows are line numbers. The correct rationale is the reference
    explanation; the target is the text of the correct answer choice."""
    out = []
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise _open_error(path, exc) from None
    with fh:
        for row, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise data_error(path, row, "*", f"not valid JSON ({exc.msg})") from None
            for key in ("question", "answer_choices", "objects", "img_fn"):
                if key not in item:
                    raise data_error(path, row, key, "missing")
            objects = [str(o) for o in item["objects"]]
            question = render_vcr_tokens(item["question"], objects, path, row, "question")
            choices = tuple(render_vcr_tokens(c, objects, path, row, f"answer_choices[{j}]")
                            for j, c in enumerate(item["answer_choices"]))
            rationales = tuple(render_vcr_tokens(c, objects, path, row, f"rationale_choices[{j}]")
                               for j, c in enumerate(item.get("rationale_choices") or []))
            label, expl = "", ()
            if "answer_label" in item:
                a = item["answer_label"]
                if not isinstance(a, int) or not 0 <= a < len(choices):
                    raise data_error(path, row, "answer_label", f"{a!r} is not an index into {len(choices)} answer choices")
                label = choices[a]
            if "rationale_label" in item:
                r = item["rationale_label"]
                if not isinstance(r, int) or not 0 <= r < len(rationales):
                    raise data_error(path, row, "rationale_label", f"{r!r} is not an index into {len(rationales)} rationale choices")
                if not rationales[r]:
                    raise data_error(path, row, f"rationale_choices[{r}]", "empty explanation")
                expl = (rationales[r],)
            out.append(Example(
                id=str(item.get("annot_id") or f"{path.stem}-{row}"), question=question,
                image_id=str(item["img_fn"]), image=str(images / item["img_fn"]) if images else "",
                choices=choices, label=label, explanations=expl,
                meta={"task": "vcr", "movie": item.get("movie", ""), "rationale_choices": list(rationales)},
            ))
    return out
