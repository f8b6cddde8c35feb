"""Malformed official VQA files (vqa2, vqa1 and their MC views) through `harness run`: one
line naming the file and the record/field, exit 3, no traceback; documented policies for
duplicates and answer counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_malformed import expect_one_line, run_bad, write

from harness.api import Task

Q = "v2_OpenEnded_mscoco_val2014_questions.json"
A = "v2_mscoco_val2014_annotations.json"
P = "v2_mscoco_val2014_complementary_pairs.json"


def _answers(words):
    return [{"answer": w, "answer_confidence": "yes", "answer_id": i + 1} for i, w in enumerate(words)]


def _files():
    qs = [{"image_id": 42, "question": "Is there a dog?", "question_id": 42000},
          {"image_id": 43, "question": "Is there a dog?", "question_id": 43000}]
    anns = [{"question_id": q["question_id"], "image_id": q["image_id"], "question_type": "is there a",
             "answer_type": "yes/no", "multiple_choice_answer": "yes", "answers": _answers(["yes"] * 10)}
            for q in qs]
    return {Q: {"questions": qs}, A: {"annotations": anns}, P: [[42000, 43000]]}


def _write_all(root: Path, files: dict) -> Path:
    for name, content in files.items():
        write(root / "vqa2" / name, content if isinstance(content, (str, bytes)) else json.dumps(content))
    return root


def _set(name, fn):
    def mutate(files):
        fn(files[name])
    return mutate


def _raw(name, content):
    def mutate(files):
        files[name] = content
    return mutate


CASES = [
    ("not JSON", _raw(Q, '{"questions": [1,, 2]}'), [Q, "line 1 column", "malformed JSON"]),
    ("truncated", _raw(A, '{"annotations": [{"question_id": 4'), [A, "truncated JSON"]),
    ("empty file", _raw(Q, ""), [Q, "empty file"]),
    ("not UTF-8", _raw(Q, b'{"questions": [{"question": "caf\xe9"}]}'), [Q, "not UTF-8", "byte 32"]),
    ("top-level list", _raw(Q, "[]"), [Q, "expected a JSON object with a 'questions' list"]),
    ("id as string", _set(Q, lambda d: d["questions"][1].update(question_id="43000")),
     [Q, "questions[1]", "field 'question_id'", "expected an integer id, got str '43000'"]),
    ("id 2^63", _set(Q, lambda d: d["questions"][0].update(question_id=2**63)),
     [Q, "questions[0]", "field 'question_id'", "out of range [0, 2^53 - 1]"]),
    ("id bool", _set(Q, lambda d: d["questions"][0].update(question_id=True)),
     [Q, "questions[0]", "field 'question_id'", "got bool True"]),
    ("question null", _set(Q, lambda d: d["questions"][0].update(question=None)),
     [Q, "questions[0]", "field 'question'", "got null"]),
    ("answers a string", _set(A, lambda d: d["annotations"][0].update(answers="yes")),
     [A, "annotations[0]", "field 'answers'", "expected a list, got str 'yes'"]),
    ("answer not an object", _set(A, lambda d: d["annotations"][1]["answers"].__setitem__(4, "yes")),
     [A, "annotations[1]", "field 'answers[4]'", "expected an object with an 'answer'"]),
    ("3 answers", _set(A, lambda d: d["annotations"][1].update(answers=_answers(["no"] * 3))),
     [A, "annotations[1]", "field 'answers'", "3 answers, expected 10", "answers=lenient"]),
    ("answer_id NaN", _raw(A, json.dumps(_files()[A]).replace('"answer_id": 3', '"answer_id": NaN', 1)),
     [A, "line 1 column", "field 'answer_id'", "NaN is not a valid JSON number"]),
    ("answer_id 1e309", _raw(A, json.dumps(_files()[A]).replace('"answer_id": 3', '"answer_id": 1e309', 1)),
     [A, "field 'answer_id'", "1e309 is too large"]),
    ("missing field", _set(A, lambda d: d["annotations"][0].pop("answer_type")),
     [A, "annotations[0]", "field 'answer_type': missing"]),
    ("duplicate question_id", _set(Q, lambda d: d["questions"].append(dict(d["questions"][0]))),
     [Q, "questions[2]", "duplicated question_id 42000 (first at questions[0])", "duplicates=keep-first"]),
    ("annotation without question", _set(A, lambda d: d["annotations"].append(
        {**d["annotations"][0], "question_id": 77})), [A, "annotation(s) have no question", "77"]),
    ("pair of three", _raw(P, "[[42000, 43000, 1]]"), [P, "[0]", "expected a pair"]),
    ("pair id float", _raw(P, "[[42000, 4.3e4]]"), [P, "[0]", "field '[1]'", "expected an integer id"]),
    ("pair with itself", _raw(P, "[[42000, 42000]]"), [P, "[0]", "question_id 42000 is paired with itself"]),
    ("annotation on another image", _set(A, lambda d: d["annotations"][1].update(image_id=999)),
     [A, "field 'image_id'", "question_id 43000 is on image_id 999 here but on image_id 43 in", Q]),
    ("no questions", _raw(Q, '{"questions": []}'), [Q, "no questions", "the 'questions' list is empty"]),
    ("no annotations", _raw(A, '{"annotations": []}'), [A, "no annotations"]),
    ("all three empty", lambda f: f.update({Q: {"questions": []}, A: {"annotations": []}, P: []}),
     [Q, "no questions", "a dataset split needs at least one"]),
    ("image_id 10**30", _raw(Q, json.dumps(_files()[Q]).replace('"image_id": 42', '"image_id": ' + "1" + "0" * 30, 1)),
     [Q, "questions[0]", "field 'image_id'", "integer out of range"]),
]


@pytest.mark.parametrize("name, mutate, needles", CASES, ids=[c[0] for c in CASES])
def test_malformed_vqa2_files_give_one_line(capsys, tmp_path, fresh_cache, name, mutate, needles):
    files = _files()
    mutate(files)
    root = _write_all(tmp_path / "data", files)
    expect_one_line(run_bad(capsys, tmp_path, [Task("vqa2", "val", ("accuracy",))], data_dir=root), *needles)


@pytest.mark.parametrize("digits", [30, 400])
def test_a_huge_id_reads_the_same_with_and_without_orjson(capsys, tmp_path, fresh_cache, json_backend, digits):
    """orjson (a declared dependency, used for speed) reads 10**30 as a float; the standard
    json module reads it as an int: the message must not depend on which one parsed it."""
    files = _files()
    _raw(Q, json.dumps(files[Q]).replace('"image_id": 42', '"image_id": 1' + "0" * digits, 1))(files)
    root = _write_all(tmp_path / "data", files)
    line = expect_one_line(run_bad(capsys, tmp_path, [Task("vqa2", "val", ("accuracy",))], data_dir=root),
                           Q, "questions[0]", "field 'image_id'", "integer out of range [0, 2^53 - 1]")
    assert line.endswith("(got about 1e+30)" if digits == 30 else "(got a 401-digit number)"), line


def test_a_folder_or_a_missing_file_is_named(capsys, tmp_path, fresh_cache):
    root = _write_all(tmp_path / "data", {k: v for k, v in _files().items() if k != P})
    expect_one_line(run_bad(capsys, tmp_path, [Task("vqa2", "val", ("accuracy",))], data_dir=root),
                    "suite 'bad' cannot run: missing file(s)", P)
    (root / "vqa2" / P).mkdir()
    expect_one_line(run_bad(capsys, tmp_path, [Task("vqa2", "val", ("accuracy",))], data_dir=root),
                    P, "is a folder, expected a file")


def test_an_empty_pairs_list_is_accepted_and_counted(capsys, tmp_path, fresh_cache):
    files = _files()
    files[P] = []  # an unbalanced export has no pairs; the pair probe reports 0 pairs
    root = _write_all(tmp_path / "data", files)
    rc, out, err = run_bad(capsys, tmp_path, [Task("vqa2", "val", ("accuracy",))], data_dir=root)
    assert rc == 0 and not err.strip(), err
    from vqa_harness_plugins.datasets.vqa import VQA2

    assert VQA2(data_dir=root).summary("val")["pairs"] == 0


def test_policies_accept_and_count_duplicates_and_short_answer_lists(capsys, tmp_path, fresh_cache):
    files = _files()
    files[Q]["questions"].append({"image_id": 44, "question": "Again?", "question_id": 42000})
    files[A]["annotations"][1]["answers"] = _answers(["no"] * 3)
    root = _write_all(tmp_path / "data", files)
    strict = run_bad(capsys, tmp_path, [Task("vqa2", "val", ("accuracy",))], data_dir=root)
    expect_one_line(strict, "duplicated question_id 42000")
    spec = "vqa2:duplicates=keep-first,answers=lenient"
    rc, out, err = run_bad(capsys, tmp_path, [Task(spec, "val", ("accuracy",))], data_dir=root)
    assert rc == 0, err
    from vqa_harness_plugins.datasets.vqa import VQA2

    summary = VQA2(data_dir=root, duplicates="keep-first", answers="lenient").summary("val")
    assert summary["questions"] == 2 and summary["duplicate_question_ids"] == 1
    assert summary["answer_count_mismatches"] == 1 and summary["answer_count_mismatches_shown"] == ["43000"]


def test_bad_policy_option_is_a_usage_error(capsys, tmp_path, fresh_cache):
    root = _write_all(tmp_path / "data", _files())
    result = run_bad(capsys, tmp_path, [Task("vqa2:duplicates=drop", "val", ("accuracy",))], data_dir=root)
    expect_one_line(result, "duplicates='drop' must be one of error, keep-first", code=2)


def test_vqa1_multiple_choice_file(capsys, tmp_path, fresh_cache):
    files = _files()
    root = tmp_path / "data"
    for name, content in files.items():
        if name != P:
            write(root / "vqa1" / name.replace("v2_", ""), json.dumps(content))
    mc = root / "vqa1" / "MultipleChoice_mscoco_val2014_questions.json"
    choices = [f"c{i}" for i in range(17)] + ["yes"]
    qs = [{**q, "multiple_choices": choices} for q in files[Q]["questions"]]
    qs[1]["multiple_choices"] = choices[:5]
    write(mc, json.dumps({"questions": qs}))
    expect_one_line(run_bad(capsys, tmp_path, [Task("vqa1-mc", "val", ("accuracy",))], data_dir=root),
                    mc.name, "questions[1]", "field 'multiple_choices'", "5 answers, expected 18")
    qs[1]["multiple_choices"] = "yes"
    write(mc, json.dumps({"questions": qs}))
    expect_one_line(run_bad(capsys, tmp_path, [Task("vqa1", "val", ("accuracy",))], data_dir=root),
                    mc.name, "questions[1]", "field 'multiple_choices'", "expected a list, got str 'yes'")
