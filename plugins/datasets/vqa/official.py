"""Parsing the official VQA v1/v2 JSON files into Example columns (docs/datasets.md).

Every check raises a one-line `DataError` naming the file, the record and the field
(`...questions.json: questions[12]: field 'question_id': expected an integer id, got str
'12'`; `vqa_harness_plugins.validation`), never a traceback. Pairs whose question ids are unknown are
not an error: they are counted in the load summary (and shown by the pair probe).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from harness.errors import DataError
from harness.jsonio import read_json
from harness.metrics import question_type as official_question_type
from vqa_harness_plugins.validation import (
    Field,
    Tally,
    check_id,
    check_nonempty,
    check_record,
    check_str,
    check_str_list,
    describe,
    fail,
    type_name,
)

__all__ = ["read_json", "parse_questions", "parse_annotations", "parse_pairs", "build_columns",
           "image_path", "COLUMNS", "QUESTION", "ANNOTATION", "N_ANSWERS", "N_CHOICES"]

COLUMNS = ("id", "question", "image_id", "image", "answers", "answer_type", "question_type",
           "choices", "label", "explanations", "pair_id", "meta")
#: How many unknown pair question ids the load summary keeps verbatim.
SHOWN_UNKNOWN = 10
#: Human answers per annotation, and VQA v1 multiple choices per question.
N_ANSWERS, N_CHOICES = 10, 18
#: Record formats (vqa_harness_plugins.validation schemas): ids are integers in [0, 2^53 - 1].
QUESTION = {"question_id": Field("id"), "image_id": Field("id"), "question": Field("str")}
ANNOTATION = {"question_id": Field("id"), "image_id": Field("id", required=False), "answers": Field("list"),
              "multiple_choice_answer": Field("str"), "answer_type": Field("str"), "question_type": Field("str")}


def _records(data: Any, key: str, path: Path) -> list:
    if not isinstance(data, dict) or key not in data:
        raise DataError(f"{path}: expected a JSON object with a {key!r} list (official VQA format), "
                        f"got {type_name(data)}")
    items = data[key]
    if not isinstance(items, list):
        raise fail(path, "", f"expected a list, got {describe(items)}", key)
    check_nonempty(items, path, key, f"the {key!r} list is empty")
    return items


def parse_questions(data: Any, path: Path, *, with_choices: bool | str = False,
                    tally: Tally | None = None) -> dict[int, dict[str, Any]]:
    """question_id -> {image_id, question, choices?} from a questions file's parsed JSON.

    A repeated question_id is an error, or (tally with duplicates="keep-first") dropped and
    counted; with `with_choices`, a `multiple_choices` list other than 18 long is checked
    against the tally's answer policy (VQA v1 multiple choice); `with_choices="required"` (a
    MultipleChoice file) checks a question without the field as one with no choices."""
    tally = tally or Tally(path, id_name="question_id")
    out: dict[int, dict[str, Any]] = {}
    for i, item in enumerate(_records(data, "questions", path)):
        where = f"questions[{i}]"
        check_record(item, QUESTION, path, where)
        qid = item["question_id"]
        if not tally.seen(qid, where):
            continue
        rec = {"image_id": item["image_id"], "question": item["question"]}
        if with_choices and "multiple_choices" in item:
            mc = check_str_list(item["multiple_choices"], path, where, "multiple_choices", nonempty=True)
            tally.count_ok(len(mc), qid, where, expected=N_CHOICES, field="multiple_choices")
            rec["choices"] = mc
        elif with_choices == "required" and tally.answers == "strict":
            raise fail(path, where, f"missing (each question of a MultipleChoice file has its {N_CHOICES} "
                                    "choices); pass answers=lenient to accept and count such questions",
                       "multiple_choices")
        elif with_choices == "required":
            tally.count_ok(0, qid, where, expected=N_CHOICES, field="multiple_choices")
        out[qid] = rec
    return out


def parse_annotations(data: Any, path: Path, *, tally: Tally | None = None) -> dict[int, dict[str, Any]]:
    """question_id -> {answers, answer_type, question_type, label, image_id}.

    Each annotation must carry 10 answers (`N_ANSWERS`) unless the tally's answer policy is
    lenient (then other counts are kept and counted); a repeated question_id follows the
    tally's duplicate policy."""
    tally = tally or Tally(path, id_name="question_id", expected=N_ANSWERS)
    out: dict[int, dict[str, Any]] = {}
    for i, item in enumerate(_records(data, "annotations", path)):
        where = f"annotations[{i}]"
        check_record(item, ANNOTATION, path, where)
        qid = item["question_id"]
        if not tally.seen(qid, where):
            continue
        answers = item["answers"]
        try:
            texts = [ans["answer"] for ans in answers]
        except (TypeError, KeyError):
            texts = []
        if len(texts) != len(answers) or not all(type(t) is str for t in texts):
            _check_answers(answers, path, where)  # finds and names the bad entry
        if len(texts) != N_ANSWERS:
            tally.count_ok(len(texts), qid, where)
        out[qid] = {
            "answers": texts,
            "label": item["multiple_choice_answer"],
            "answer_type": item["answer_type"],
            "question_type": item["question_type"],
            "image_id": item.get("image_id"),
        }
    return out


def _check_answers(answers: list, path: Path, where: str) -> None:
    for j, ans in enumerate(answers):
        if not isinstance(ans, dict) or "answer" not in ans:
            raise fail(path, where, f"expected an object with an 'answer', got {describe(ans)}", f"answers[{j}]")
        check_str(ans["answer"], path, where, f"answers[{j}].answer")


def parse_pairs(data: Any, path: Path, known: Mapping[int, Any]) -> tuple[dict[int, int], dict[str, Any]]:
    """qid -> partner qid for pairs whose two ids are known; a summary counting the others.

    A complementary pair asks the same question on two images (Goyal et al. 2017, §4): a pair
    whose two questions differ in text (case and spacing aside) or are on one image is not
    one; it is counted and shown in the summary, not paired. A question in two pairs (the
    same pair listed twice included) is an error naming both records."""
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of [question_id, question_id] pairs, "
                        f"got {type_name(data)}")
    partner: dict[int, int] = {}
    first_at: dict[int, int] = {}  # qid -> index of its pair in the file
    unknown_pairs = 0
    unknown_ids: list[int] = []
    skipped: dict[str, list[list[int]]] = {"question_mismatch": [], "same_image": []}
    for i, pair in enumerate(data):
        if not isinstance(pair, list) or len(pair) != 2:
            raise fail(path, f"[{i}]", f"expected a pair [question_id, question_id], got {describe(pair)}")
        a = check_id(pair[0], path, f"[{i}]", "[0]")
        b = check_id(pair[1], path, f"[{i}]", "[1]")
        if a == b:
            raise fail(path, f"[{i}]", f"question_id {a} is paired with itself")
        for q in (a, b):
            if q in first_at:
                k = first_at[q]
                if sorted(data[k]) == sorted((a, b)):
                    raise fail(path, f"[{i}]", f"the pair [{a}, {b}] is listed twice (first at [{k}])")
                raise fail(path, f"[{i}]", f"question_id {q} is in more than one pair (first at [{k}])")
        first_at[a] = first_at[b] = i
        missing = [q for q in (a, b) if q not in known]
        if missing:
            unknown_pairs += 1
            unknown_ids.extend(q for q in missing if len(unknown_ids) < SHOWN_UNKNOWN)
            continue
        why = _not_complementary(known[a], known[b])
        if why:
            skipped[why].append([a, b])
            continue
        partner[a], partner[b] = b, a
    summary = {"pairs": len(data), "pairs_used": len(partner) // 2,
               "pairs_unknown_question_ids": unknown_pairs, "unknown_question_ids_shown": unknown_ids}
    for why, found in skipped.items():
        if found:
            summary[f"pairs_{why}"] = len(found)
            summary[f"{why}_shown"] = found[:SHOWN_UNKNOWN]
    return partner, summary


def _not_complementary(qa: Mapping[str, Any], qb: Mapping[str, Any]) -> str:
    """Why two known questions are not a complementary pair ("" when they are one)."""
    text = lambda q: " ".join(str(q.get("question", "")).lower().split())  # noqa: E731
    if text(qa) != text(qb):
        return "question_mismatch"
    if qa.get("image_id") == qb.get("image_id"):
        return "same_image"
    return ""


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
            raise fail(annotations_path, "annotations", f"{len(extra)} annotation(s) have no question in "
                                                        f"{questions_path} (first: {extra[0]})", "question_id")
    cols: dict[str, list] = {c: [] for c in COLUMNS}
    # String formatting, not pathlib: 214k Path objects cost seconds.
    image_prefix = f"{Path(images_root) / image_folder / f'COCO_{image_folder}_'}" if images_root is not None else None
    for qid, q in questions.items():
        ann = None
        if annotations is not None:
            ann = annotations.get(qid)
            if ann is None:
                raise fail(annotations_path, "annotations", f"no annotation for question_id {qid} of "
                                                            f"{questions_path}", "question_id")
            if ann["image_id"] is not None and ann["image_id"] != q["image_id"]:
                raise fail(annotations_path, "annotations", f"question_id {qid} is on image_id {ann['image_id']} "
                                                            f"here but on image_id {q['image_id']} in "
                                                            f"{questions_path}", "image_id")
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
