"""Readers for the e-ViL files: e-SNLI-VE CSV, VQA-X JSON, VCR jsonl (pure Python).

Each returns `harness.types.Example`s and raises a one-line DataError naming the file, the
row and the field on malformed input (`vqa_harness_plugins.validation`): missing column or field, a
wrong type (`"answers": "yes"` is not a list; `answer_label: true` is not an index),
unknown label, empty text, non-UTF-8 bytes, a VCR object index out of range. Repeated ids
(pairID, VQA-X question-id keys, VCR annot_id) and answer counts other than the format's
(VQA-X: 10 answers; VCR: 4 answer and 4 rationale choices) follow `duplicates=` /
`answers=`: an error by default, or kept-first / accepted and counted in `summary`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, MutableMapping

from harness.errors import DataError
from harness.jsonio import jsonl_records, read_json
from harness.metrics import answer_type, question_type
from harness.types import Example
from vqa_harness_plugins.validation import (
    Field,
    Tally,
    check_id_text,
    check_index,
    check_nonempty,
    check_record,
    csv_rows,
    describe,
)

from ._common import data_error

__all__ = ["ESNLIVE_LABELS", "ESNLIVE_COLUMNS", "read_esnlive", "read_vqax", "read_vcr", "render_vcr_tokens",
           "VQAX_ANSWERS", "VCR_CHOICES"]

ESNLIVE_LABELS = ("entailment", "neutral", "contradiction")
ESNLIVE_COLUMNS = ("pairID", "Flickr30kID", "hypothesis", "gold_label", "explanation")


#: Answers per VQA-X question and choices per VCR question (the formats' counts).
VQAX_ANSWERS, VCR_CHOICES = 10, 4


def _report(summary: MutableMapping[str, Any] | None, tally: Tally, rows: int) -> None:
    if summary is not None:
        summary.update({"rows": rows, **tally.summary()})


def read_esnlive(path: Path, images: Path | None, *, duplicates: str = "error",
                 summary: MutableMapping[str, Any] | None = None) -> list[Example]:
    """e-ViL CSV release (`pairID, Flickr30kID, hypothesis, gold_label, explanation`; an
    unnamed index column is allowed). Rows are numbered from 1 after the header. A repeated
    pairID follows `duplicates`; `summary` (when given) receives the counts."""
    tally = Tally(path, id_name="pairID", duplicates=duplicates)
    out = []
    i = 0
    for i, row in csv_rows(path, ESNLIVE_COLUMNS, "e-SNLI-VE CSV; see docs/e-vil.md"):
        pair_id = row["pairID"].strip()
        if not pair_id:
            raise data_error(path, i, "pairID", "empty pairID")
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
        if not image_id:
            raise data_error(path, i, "Flickr30kID", "empty image id")
        if not tally.seen(pair_id, f"row {i}"):
            continue
        out.append(Example(
            id=pair_id, question=hypothesis, image_id=image_id,
            image=str(images / image_id) if images else "", label=label,
            choices=ESNLIVE_LABELS, explanations=(explanation,),
            meta={"task": "e-snli-ve"},
        ))
    check_nonempty(i, path, "rows", "only the CSV header")
    _report(summary, tally, len(out))
    return out


#: VQA-X entry format (`explanation`, a string or a list of strings, is checked by the reader).
VQAX_ITEM = {"question": Field("text"), "answers": Field("list"), "image_id": Field("key"),
             "image_name": Field("text", required=False)}


def read_vqax(path: Path, images: Path | None, *, duplicates: str = "error", answers: str = "strict",
              summary: MutableMapping[str, Any] | None = None) -> list[Example]:
    """VQA-X JSON keyed by question id: `question`, `answers` (10 objects with `answer`, or
    strings), `explanation` (list), `image_id`, optional `image_name`. The row named in errors
    is the question id. The one reader of VQA-X, for e-ViL and for the VQA-style suites:
    question and answer types are derived the official way (`harness.metrics`), and `label`
    (the stand-in for `multiple_choice_answer`) is the most frequent answer, ties broken by
    first occurrence. A question id used twice as a key (which JSON readers silently resolve
    to one entry) follows `duplicates` (keep-first keeps the first entry); answer counts
    other than 10 follow `answers`."""

    data = read_json(path, "VQA-X JSON; see docs/e-vil.md", duplicate_keys="record")
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected a JSON object keyed by question id (VQA-X format), got {describe(data)}")
    check_nonempty(data, path, "questions", "an empty JSON object")
    tally = Tally(path, id_name="question_id", duplicates=duplicates, answers=answers, expected=VQAX_ANSWERS)
    repeated_keys = getattr(data, "duplicates", ())  # keys met twice or more: the first entry was kept
    for qid in dict.fromkeys(repeated_keys):
        tally.seen(qid, f"key {qid!r}")
    for qid in repeated_keys:
        tally.seen(qid, f"key {qid!r} (repeated)")
    out = []
    for qid, item in data.items():
        row = f"row {qid}"
        check_id_text(qid, path, row, "question_id")  # the key is the VQA question id
        check_record(item, VQAX_ITEM, path, row)
        repeated = getattr(item, "duplicates", ())
        if repeated:
            raise data_error(path, qid, repeated[0], "this key appears twice in the entry (JSON keeps only one)")
        if "explanation" not in item:
            raise data_error(path, qid, "explanation", "missing")
        question = item["question"].strip()
        raw = item["answers"]
        answers_ = []
        for j, ans in enumerate(raw):
            text = ans.get("answer") if isinstance(ans, dict) else ans
            if not isinstance(text, str):
                raise data_error(path, qid, f"answers[{j}]", "expected an answer string or {\"answer\": string}, "
                                                             f"got {describe(ans)}")
            answers_.append(text)
        if not answers_:
            raise data_error(path, qid, "answers", "expected a non-empty list of answers, got []")
        tally.count_ok(len(answers_), qid, row)
        expl = item["explanation"]
        if isinstance(expl, str):
            expl = [expl]
        if not isinstance(expl, list) or not expl:
            raise data_error(path, qid, "explanation", f"expected a non-empty list of explanations, got {describe(expl)}")
        for j, e in enumerate(expl):
            if not isinstance(e, str) or not e.strip():
                raise data_error(path, qid, f"explanation[{j}]", "empty explanation" if isinstance(e, str)
                                 else f"expected a string, got {describe(e)}")
        image_id = item["image_id"]
        name = item.get("image_name")
        if name is None:  # VQA-X train is on COCO train2014, val and test on val2014
            coco = "train2014" if "train" in path.name.lower() else "val2014"
            name = f"COCO_{coco}_{int(image_id):012d}.jpg" if str(image_id).isdigit() else str(image_id).strip()
        folder = "train2014" if "train2014" in name else "val2014"
        out.append(Example(
            id=str(qid), question=question, image_id=str(image_id).strip(),
            image=str(images / folder / name.strip()) if images else "", answers=tuple(answers_),
            answer_type=answer_type(answers_), question_type=question_type(question),
            label=most_common_answer(answers_), explanations=tuple(e.strip() for e in expl),
            meta={"task": "vqa-x"},
        ))
    _report(summary, tally, len(out))
    return out


def most_common_answer(answers: list[str]) -> str:
    """The most frequent answer string, ties broken by first occurrence."""
    counts: dict[str, int] = {}
    for a in answers:
        counts[a] = counts.get(a, 0) + 1
    return max(counts, key=lambda a: counts[a]) if counts else ""


def render_vcr_tokens(tokens: Any, objects: list[str], path: Path, row: int, field: str) -> str:
    """VCR tokens to text: a list of object indices becomes their names ("person1 and car1").

    Names number objects per class in the order of `objects` (person1, person2, car1). As in
    the release and r2c's loader, a token is a string or a list of indices; any other token,
    a bare integer (`0`, not `[0]`) included, is a DataError naming file, row and field: it is
    neither guessed to be an object nor read as the text "0"."""
    if not isinstance(tokens, list):
        raise data_error(path, row, field, f"expected a list of tokens, got {describe(tokens)}")
    names, seen = [], {}
    for obj in objects:
        seen[obj] = seen.get(obj, 0) + 1
        names.append(f"{obj}{seen[obj]}")
    words = []
    for tok in tokens:
        if isinstance(tok, str):
            words.append(tok)
            continue
        if isinstance(tok, int) and not isinstance(tok, bool):
            raise data_error(path, row, field, f"token {tok} is a bare integer: an object reference is a list "
                                               f'([{tok}]), text is a string ("{tok}")')
        if not isinstance(tok, list):
            raise data_error(path, row, field, "expected a token: text (a string) or an object reference "
                                               f"(a list of indices), got {describe(tok)}")
        refs = tok
        if not refs:
            raise data_error(path, row, field, "empty object reference []")
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


#: VCR line format (the token lists are checked while rendering).
VCR_ITEM = {"question": Field("list"), "answer_choices": Field("list"), "objects": Field("str-list"),
            "img_fn": Field("text"), "rationale_choices": Field("list", required=False),
            "annot_id": Field("text", required=False), "movie": Field("str", required=False)}
#: In every row of a file or in none: the official test file has no labels, train and val have
#: both in every row; a file without annot_id numbers its rows (`<stem>-<row>`). A labelled file
#: with one row lacking a label would score that row as unlabelled (always wrong, or without
#: its reference explanation), and a row lacking annot_id could take another row's id.
VCR_ALL_OR_NONE = ("annot_id", "answer_label", "rationale_label")


def _check_vcr_shape(item: Mapping[str, Any], first: Mapping[str, Any], path: Path, row: int) -> None:
    for key in VCR_ALL_OR_NONE:
        if (key in item) != (key in first):
            release = ("every row of the VCR release has it" if key == "annot_id"
                       else "in the VCR release only the test file lacks labels, in all its rows")
            problem = (f"missing (row 1 has it; {release})" if key in first
                       else "present, but row 1 has none (a file has it in every row or in none)")
            raise data_error(path, row, key, problem)
    if "rationale_label" in item and "rationale_choices" not in item:
        raise data_error(path, row, "rationale_choices", "missing (the row has rationale_label)")


def read_vcr(path: Path, images: Path | None, *, duplicates: str = "error", answers: str = "strict",
             summary: MutableMapping[str, Any] | None = None) -> list[Example]:
    """VCR jsonl (question, answer_choices, answer_label, rationale_choices, rationale_label,
    objects, img_fn, annot_id); rows are line numbers. The correct rationale is the reference
    explanation; the target is the text of the correct answer choice. A repeated annot_id
    follows `duplicates`; answer or rationale choices other than 4 follow `answers`."""
    tally = Tally(path, id_name="annot_id", duplicates=duplicates, answers=answers, expected=VCR_CHOICES,
                  answers_field="answer_choices")
    out, first = [], None
    for row, item in jsonl_records(path, "VCR jsonl; see docs/e-vil.md", duplicate_keys="error"):
        where = f"row {row}"
        check_record(item, VCR_ITEM, path, where)
        first = item if first is None else first
        _check_vcr_shape(item, first, path, row)
        objects = item["objects"]
        annot_id = item["annot_id"].strip() if "annot_id" in item else f"{path.stem}-{row}"
        question = render_vcr_tokens(item["question"], objects, path, row, "question")
        choices = tuple(render_vcr_tokens(c, objects, path, row, f"answer_choices[{j}]")
                        for j, c in enumerate(item["answer_choices"]))
        rationales = tuple(render_vcr_tokens(c, objects, path, row, f"rationale_choices[{j}]")
                           for j, c in enumerate(item.get("rationale_choices") or []))
        if not choices:
            raise data_error(path, row, "answer_choices", "expected a non-empty list of answer choices, got []")
        label, expl = "", ()
        if "answer_label" in item:
            label = choices[check_index(item["answer_label"], len(choices), path, where, "answer_label",
                                        into="answer choices")]
        if "rationale_label" in item:
            r = check_index(item["rationale_label"], len(rationales), path, where, "rationale_label",
                            into="rationale choices")
            if not rationales[r]:
                raise data_error(path, row, f"rationale_choices[{r}]", "empty explanation")
            expl = (rationales[r],)
        if not tally.seen(annot_id, where):
            continue  # a repeated id dropped under duplicates=keep-first: its counts are not the data's
        tally.count_ok(len(choices), annot_id, where)
        if rationales:
            tally.count_ok(len(rationales), annot_id, where, field="rationale_choices")
        out.append(Example(
            id=annot_id, question=question, image_id=item["img_fn"].strip(),
            image=str(images / item["img_fn"].strip()) if images else "",
            choices=choices, label=label, explanations=expl,
            meta={"task": "vcr", "movie": item.get("movie", ""), "rationale_choices": list(rationales)},
        ))
    check_nonempty(out, path, "rows", "only blank lines")
    _report(summary, tally, len(out))
    return out
