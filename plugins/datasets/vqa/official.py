"""Parsing the official VQA v1/v2 JSON files into Example columns (DESIGN.md §4.2).

Every check raises a one-line `DataError` naming the file and the field
(`questions[12].question_id`), never a traceback. Pairs whose question ids are unknown are
not an error: they are counted in the load summary (and shown by the pair probe).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from harness.errors import DataError
from harness.jsonio import read_json
from harness.metrics import question_type as official_question_type

__all__ = ["read_json", "parse_questions", "parse_annotations", "parse_pairs", "build_columns",
           "image_path", "COLUMNS"]

COLUMNS = ("id", "question", "image_id", "image", "answers", "answer_type", "question_type",
           "choices", "label", "explanations", "pair_id", "meta")
#: How many unknown pair question ids the load summary keeps verbatim.
SHOWN_UNKNOWN = 10


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _int(value: Any, path: Path, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(f"{path}: {where}: expected an integer, got {_type_name(value)} {value!r:.40}")
    return value


def _str(value: Any, path: Path, where: str) -> str:
    if not isinstance(value, str):
        raise DataError(f"{path}: {where}: expected a string, got {_type_name(value)} {value!r:.40}")
    return value


def _records(data: Any, key: str, path: Path) -> list:
    if not isinstance(data, dict) or key not in data:
        raise DataError(f"{path}: expected a JSON object with a {key!r} list (official VQA format)")
    items = data[key]
    if not isinstance(items, list):
        raise DataError(f"{path}: {key}: expected a list, got {_type_name(items)}")
    return items


def parse_questions(data: Any, path: Path, *, with_choices: bool = False) -> dict[int, dict[str, Any]]:
    """question_id -> {image_id, question, choices?} from a questions file's parsed JSON."""
    out: dict[int, dict[str, Any]] = {}
    first: dict[int, int] = {}
    for i, item in enumerate(_records(data, "questions", path)):
        where = f"questions[{i}]"
        if not isinstance(item, dict):
            raise DataError(f"{path}: {where}: expected an object, got {_type_name(item)}")
        for field in ("question_id", "image_id", "question"):
            if field not in item:
                raise DataError(f"{path}: {where}.{field}: missing")
        qid = _int(item["question_id"], path, f"{where}.question_id")
        if qid in out:
            raise DataError(f"{path}: {where}.question_id: duplicated question_id {qid} "
                            f"(first at questions[{first[qid]}])")
        first[qid] = i
        rec = {"image_id": _int(item["image_id"], path, f"{where}.image_id"),
               "question": _str(item["question"], path, f"{where}.question")}
        if with_choices and "multiple_choices" in item:
            mc = item["multiple_choices"]
            if not isinstance(mc, list) or not all(isinstance(c, str) for c in mc):
                raise DataError(f"{path}: {where}.multiple_choices: expected a list of strings")
            rec["choices"] = mc
        out[qid] = rec
    return out


def parse_annotations(data: Any, path: Path) -> dict[int, dict[str, Any]]:
    """question_id -> {answers, answer_type, question_type, label, image_id}."""
    out: dict[int, dict[str, Any]] = {}
    first: dict[int, int] = {}
    for i, item in enumerate(_records(data, "annotations", path)):
        where = f"annotations[{i}]"
        if not isinstance(item, dict):
            raise DataError(f"{path}: {where}: expected an object, got {_type_name(item)}")
        for field in ("question_id", "answers", "multiple_choice_answer", "answer_type", "question_type"):
            if field not in item:
                raise DataError(f"{path}: {where}.{field}: missing")
        qid = _int(item["question_id"], path, f"{where}.question_id")
        if qid in out:
            raise DataError(f"{path}: {where}.question_id: duplicated question_id {qid} "
                            f"(first at annotations[{first[qid]}])")
        first[qid] = i
        answers = item["answers"]
        if not isinstance(answers, list) or not answers:
            raise DataError(f"{path}: {where}.answers: expected a non-empty list of answer objects")
        try:
            texts = [ans["answer"] for ans in answers]
        except (TypeError, KeyError):
            texts = []
        if len(texts) != len(answers) or not all(type(t) is str for t in texts):
            _check_answers(answers, path, where)  # finds and names the bad entry
        out[qid] = {
            "answers": texts,
            "label": _str(item["multiple_choice_answer"], path, f"{where}.multiple_choice_answer"),
            "answer_type": _str(item["answer_type"], path, f"{where}.answer_type"),
            "question_type": _str(item["question_type"], path, f"{where}.question_type"),
            "image_id": item.get("image_id"),
        }
    return out


def _check_answers(answers: list, path: Path, where: str) -> None:
    for j, ans in enumerate(answers):
        if not isinstance(ans, dict) or "answer" not in ans:
            raise DataError(f"{path}: {where}.answers[{j}]: expected an object with an 'answer'")
        _str(ans["answer"], path, f"{where}.answers[{j}].answer")


def parse_pairs(data: Any, path: Path, known: Mapping[int, Any]) -> tuple[dict[int, int], dict[str, Any]]:
    """qid -> partner qid for pairs whose two ids are known; a summary counting the others."""
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of [question_id, question_id] pairs, "
                        f"got {_type_name(data)}")
    partner: dict[int, int] = {}
    unknown_pairs = 0
    unknown_ids: list[int] = []
    for i, pair in enumerate(data):
        if not isinstance(pair, list) or len(pair) != 2:
            raise DataError(f"{path}: [{i}]: expected a pair [question_id, question_id]")
        a = _int(pair[0], path, f"[{i}][0]")
        b = _int(pair[1], path, f"[{i}][1]")
        missing = [q for q in (a, b) if q not in known]
        if missing:
            unknown_pairs += 1
            unknown_ids.extend(q for q in missing if len(unknown_ids) < SHOWN_UNKNOWN)
            continue
        for q in (a, b):
            if q in partner:
                raise DataError(f"{path}: [{i}]: question_id {q} is in more than one pair")
        partner[a], partner[b] = b, a
    summary = {"pairs": len(data), "pairs_used": len(partner) // 2,
               "pairs_unknown_question_ids": unknown_pairs, "unknown_question_ids_shown": unknown_ids}
    return partner, summary


def image_path(images_root: Path | None, folder: str, image_id: int) -> str:
    """COCO image path `<root>/<folder>/COCO_<folder>_<id:012d>.jpg` ("" without a root)."""
    if images_root is None:
        return ""
    return str(Path(images_root) / folder / f"COCO_{folder}_{image_id:012d}.jpg")


def build_columns(questions: Mapping[int, dict[str, Any]], annotations: Mapping[int, dict[str, Any]] | None,
                  partner: Mapping[int, int], *, questions_path: Path, annotations_path: Path | None,
                  images_root: Path | None, image_folder: str) -> dict[str, list]:
    """Example columns (see `Example.to_row`), in the questions file's order.

    With annotations, every question must have one and every annotation a question.
    """
    if annotations is not None:
        extra = [q for q in annotations if q not in questions]
        if extra:
            raise DataError(f"{annotations_path}: annotations.question_id: {len(extra)} annotation(s) have no "
                            f"question in {questions_path} (first: {extra[0]})")
    cols: dict[str, list] = {c: [] for c in COLUMNS}
    # String formatting, not pathlib: 214k Path objects cost seconds.
    image_prefix = f"{Path(images_root) / image_folder / f'COCO_{image_folder}_'}" if images_root is not None else None
    for qid, q in questions.items():
        ann = None
        if annotations is not None:
            ann = annotations.get(qid)
            if ann is None:
                raise DataError(f"{annotations_path}: annotations.question_id: no annotation for question_id "
                                f"{qid} of {questions_path}")
        cols["id"].append(str(qid))
        cols["question"].append(q["question"])
        cols["image_id"].append(str(q["image_id"]))
        cols["image"].append(f"{image_prefix}{q['image_id']:012d}.jpg" if image_prefix else "")
        cols["answers"].append(ann["answers"] if ann else [])
        cols["answer_type"].append(ann["answer_type"] if ann else "")
        # Unlabelled splits carry no question type: derive it the official way (prefixes).
        cols["question_type"].append(ann["question_type"] if ann else official_question_type(q["question"]))
        cols["choices"].append(q.get("choices") or [])
        cols["label"].append(ann["label"] if ann else "")
        cols["explanations"].append([])
        cols["pair_id"].append(str(partner[qid]) if qid in partner else "")
        cols["meta"].append("{}")
    return cols
