"""Malformed e-ViL files (e-SNLI-VE CSV, VQA-X JSON, VCR jsonl) through `harness run`: one
line naming the file, the row and the field, exit 3, no traceback; documented policies
for repeated ids and answer counts."""

from __future__ import annotations

import json

import pytest
from helpers_malformed import expect_one_line, run_bad, write

from harness.api import Task

HEADER = ",pairID,Flickr30kID,hypothesis,gold_label,explanation\n"
GOOD = HEADER + '0,p1,1.jpg,A dog runs.,entailment,"A dog, running."\n1,p2,2.jpg,A cat.,neutral,Maybe.\n'

ESNLIVE_CASES = [
    ("not UTF-8", HEADER.encode() + b"0,p1,1.jpg,Un caf\xe9.,neutral,e\n", ["not UTF-8", "line 2"]),
    ("latin-1 header", "pairID;gold_label\n".encode("latin-1"), ["row 0 (header)", "missing column(s)"]),
    ("missing column", "pairID,Flickr30kID,hypothesis,explanation\np1,1.jpg,h,e\n",
     ["row 0 (header)", "missing column(s) gold_label"]),
    ("unknown label", HEADER + "0,p1,1.jpg,h,entail,e\n", ["row 1", "field 'gold_label'", "unknown label 'entail'"]),
    ("empty explanation", GOOD + "2,p3,3.jpg,h,neutral,\n", ["row 3", "field 'explanation'", "empty explanation"]),
    ("empty hypothesis", HEADER + "0,p1,1.jpg,  ,neutral,e\n", ["row 1", "field 'hypothesis'"]),
    ("empty pairID", HEADER + "0,,1.jpg,h,neutral,e\n", ["row 1", "field 'pairID'", "empty pairID"]),
    ("duplicated pairID", GOOD + "2,p1,3.jpg,h,neutral,e\n",
     ["row 3", "field 'pairID'", "duplicated pairID p1 (first at row 1)", "duplicates=keep-first"]),
    ("short row", HEADER + "0,p1,1.jpg,h\n", ["row 1", "missing value (short row)"]),
    ("extra field", HEADER + "0,p1,1.jpg,h,neutral,e,extra\n", ["row 1", "7 fields, the header has 6"]),
    ("unterminated quote", GOOD + '2,p3,3.jpg,"h,neutral,e\n3,p4,4.jpg,h,neutral,e\n',
     ["row 3", "not valid CSV (unexpected end of data)"]),
    ("NUL byte", GOOD + "2,p3,3.jpg,h\x00,neutral,e\n", ["NUL byte at line 4"]),
    ("empty file", "", ["empty file"]),
    ("header only", HEADER, ["no rows (only the CSV header)", "a dataset split needs at least one"]),
]


@pytest.mark.parametrize("name, body, needles", ESNLIVE_CASES, ids=[c[0] for c in ESNLIVE_CASES])
def test_malformed_esnlive_csv(capsys, tmp_path, name, body, needles):
    f = write(tmp_path / "esnlive_dev.csv", body)
    result = run_bad(capsys, tmp_path, [Task(f"e-snli-ve:path={f}", "dev", ("accuracy",))])
    expect_one_line(result, str(f), *needles)


def test_esnlive_folder_and_missing_file(capsys, tmp_path):
    folder = tmp_path / "esnlive_dev.csv"
    folder.mkdir()
    expect_one_line(run_bad(capsys, tmp_path, [Task(f"e-snli-ve:path={folder}", "dev", ("accuracy",))]),
                    str(folder), "is a folder")
    missing = tmp_path / "nope.csv"
    expect_one_line(run_bad(capsys, tmp_path, [Task(f"e-snli-ve:path={missing}", "dev", ("accuracy",))]),
                    "missing file(s)", str(missing))


def test_esnlive_keep_first_counts_repeated_pair_ids(tmp_path):
    from vqa_harness_plugins.datasets.e_vil import ESNLIVE

    f = write(tmp_path / "esnlive_dev.csv", GOOD + "2,p1,3.jpg,h,contradiction,e\n")
    plugin = ESNLIVE(path=str(f), duplicates="keep-first")
    assert [e.id for e in plugin.load("dev")] == ["p1", "p2"]
    assert plugin.load("dev")[0].label == "entailment"  # the first row of p1
    summary = plugin.summary("dev")
    assert summary["duplicate_pairIDs"] == 1 and summary["duplicate_pairIDs_shown"] == ["p1"]


def _vqax_entry(**over):
    item = {"question": "Is it red?", "answers": [{"answer": "yes"}] * 10, "explanation": ["it is red"],
            "image_id": 393271, "image_name": "COCO_val2014_000000393271.jpg"}
    item.update(over)
    return item


def _vqax(**entries):
    return json.dumps({"1": _vqax_entry(), **entries})


def _keyed(*pairs):
    """A JSON object written from (key, value) pairs, repeated keys included."""
    return "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs) + "}"


VQAX_CASES = [
    ("answers an integer", _vqax(**{"7": _vqax_entry(answers=3)}),
     ["row 7", "field 'answers'", "expected a list, got int 3"]),
    ("answers a string", _vqax(**{"7": _vqax_entry(answers="yes")}),
     ["row 7", "field 'answers'", "expected a list, got str 'yes'"]),
    ("answer an integer", _vqax(**{"7": _vqax_entry(answers=[{"answer": "yes"}] * 9 + [{"answer": 2}])}),
     ["row 7", "field 'answers[9]'"]),
    ("3 answers", _vqax(**{"7": _vqax_entry(answers=["yes"] * 3)}),
     ["row 7", "field 'answers'", "3 answers, expected 10", "answers=lenient"]),
    ("duplicated key", _keyed(("7", _vqax_entry()), ("7", _vqax_entry(question="Blue?"))),
     ["key '7' (repeated)", "field 'question_id'", "duplicated question_id 7", "duplicates=keep-first"]),
    ("key twice in an entry", '{"7": {"question": "a?", "question": "b?", "answers": [], "explanation": [], '
                              '"image_id": 1}}', ["row 7", "field 'question'", "appears twice"]),
    ("empty explanation", _vqax(**{"7": _vqax_entry(explanation=["ok", " "])}),
     ["row 7", "field 'explanation[1]'", "empty explanation"]),
    ("missing question", _vqax(**{"7": {k: v for k, v in _vqax_entry().items() if k != "question"}}),
     ["row 7", "field 'question': missing"]),
    ("image_id bool", _vqax(**{"7": _vqax_entry(image_id=True)}), ["row 7", "field 'image_id'", "got bool"]),
    ("entry a list", _vqax(**{"7": ["Is it red?"]}), ["row 7", "expected an object, got list"]),
    ("top-level list", json.dumps([_vqax_entry()]), ["expected a JSON object keyed by question id"]),
    ("NaN", _vqax().replace('"image_id": 393271', '"image_id": NaN', 1),
     ["field 'image_id'", "NaN is not a valid JSON number"]),
    ("not UTF-8", _vqax().encode().replace(b"Is it red", b"Est-il rouge \xe0"), ["not UTF-8 text (byte"]),
    ("truncated", _vqax()[:-20], ["truncated JSON"]),
    ("empty object", "{}", ["no questions (an empty JSON object)"]),
    ("key not a number", _vqax(abc=_vqax_entry()), ["row abc", "field 'question_id'", "expected an integer id"]),
    ("key negative", _vqax(**{"-5": _vqax_entry()}), ["row -5", "field 'question_id'", "got str '-5'"]),
    ("key 2^63", _vqax(**{"9223372036854775808": _vqax_entry()}),
     ["row 9223372036854775808", "field 'question_id'", "out of range [0, 2^53 - 1]"]),
]


@pytest.mark.parametrize("name, body, needles", VQAX_CASES, ids=[c[0] for c in VQAX_CASES])
def test_malformed_vqax_json(capsys, tmp_path, name, body, needles):
    f = write(tmp_path / "vqaX_val.json", body)
    result = run_bad(capsys, tmp_path, [Task(f"vqa-x:path={f}", "val", ("accuracy",))])
    expect_one_line(result, str(f), *needles)


def test_vqax_policies_keep_the_first_entry_and_count(tmp_path):
    from vqa_harness_plugins.datasets.e_vil import VQAX

    body = _keyed(("7", _vqax_entry()), ("7", _vqax_entry(question="Blue?")), ("8", _vqax_entry(answers=["no"] * 3)),
                  ("7", _vqax_entry(question="Green?")))
    f = write(tmp_path / "vqaX_val.json", body)
    plugin = VQAX(path=str(f), duplicates="keep-first", answers="lenient")
    exs = plugin.load("val")
    assert [(e.id, e.question) for e in exs] == [("7", "Is it red?"), ("8", "Is it red?")]
    assert exs[1].answers == ("no",) * 3
    summary = plugin.summary("val")
    assert summary["duplicate_question_ids"] == 2 and summary["answer_count_mismatches"] == 1


def _vcr(**over):
    item = {"annot_id": "val-0", "img_fn": "movie/x.jpg", "movie": "m", "objects": ["person", "car"],
            "question": ["What", "is", [0], "doing", "?"],
            "answer_choices": [[[0], "drives", [1], "."], ["sleeping"], ["talking"], ["eating"]],
            "answer_label": 0, "rationale_choices": [["because", [1]], ["no"], ["maybe"], ["so"]],
            "rationale_label": 0}
    item.update(over)
    return json.dumps(item)


def _drop(line, key):
    return json.dumps({k: v for k, v in json.loads(line).items() if k != key})


def _lines(*rows):
    return "".join(r + "\n" for r in rows)


VCR_CASES = [
    ("bare number", _lines(_vcr(), "5"), ["row 2", "expected an object, got int 5"]),
    ("objects a number", _lines(_vcr(objects=3)), ["row 1", "field 'objects'", "expected a list, got int 3"]),
    ("objects of numbers", _lines(_vcr(objects=["person", 2])), ["row 1", "field 'objects[1]'"]),
    ("answer_label true", _lines(_vcr(answer_label=True)),
     ["row 1", "field 'answer_label'", "bool True is not an index into 4 answer choices"]),
    ("answer_label out of range", _lines(_vcr(answer_label=4)), ["row 1", "field 'answer_label'", "int 4"]),
    ("rationale_label a string", _lines(_vcr(rationale_label="0")), ["row 1", "field 'rationale_label'"]),
    ("object index out of range", _lines(_vcr(question=["Is", [5], "ok", "?"])),
     ["row 1", "field 'question'", "object index 5 out of range"]),
    ("object reference bool", _lines(_vcr(question=["Is", [True], "ok"])), ["row 1", "field 'question'"]),
    ("question a string", _lines(_vcr(question="What is it?")), ["row 1", "field 'question'", "got str"]),
    ("3 answer choices", _lines(_vcr(answer_choices=[["a"], ["b"], ["c"]])),
     ["row 1", "field 'answer_choices'", "3 answers, expected 4"]),
    ("missing img_fn", _lines(json.dumps({k: v for k, v in json.loads(_vcr()).items() if k != "img_fn"})),
     ["row 1", "field 'img_fn': missing"]),
    ("duplicated annot_id", _lines(_vcr(), _vcr()), ["row 2", "duplicated annot_id val-0 (first at row 1)"]),
    # a labelled file (train/val) with one row lacking a label or id: before, the row was read as
    # unlabelled (counted wrong, or scored without its reference) or took the next row's id
    ("answer_label missing in a labelled file", _lines(_vcr(), _drop(_vcr(annot_id="val-1"), "answer_label")),
     ["row 2", "field 'answer_label': missing", "row 1 has it"]),
    ("rationale_label missing in a labelled file", _lines(_vcr(), _drop(_vcr(annot_id="val-1"), "rationale_label")),
     ["row 2", "field 'rationale_label': missing", "row 1 has it"]),
    ("labels only from row 2", _lines(_drop(_drop(_vcr(), "answer_label"), "rationale_label"), _vcr(annot_id="val-1")),
     ["row 2", "field 'answer_label'", "row 1 has none"]),
    ("annot_id missing in a file that has them", _lines(_vcr(annot_id="val-0"), _drop(_vcr(), "annot_id"),
                                                        _vcr(annot_id="val-1")),
     ["row 2", "field 'annot_id': missing", "row 1 has it"]),
    ("rationale_choices missing", _lines(_drop(_vcr(), "rationale_choices")),
     ["row 1", "field 'rationale_choices': missing"]),
    ("not JSON", _lines(_vcr(), "{oops}"), ["row 2", "not valid JSON"]),
    ("truncated last line", _lines(_vcr()) + _vcr()[:30], ["row 2", "truncated JSON line"]),
    ("not UTF-8", _lines(_vcr()).encode() + b'{"question": "\xff"}\n', ["not UTF-8 text", "line 2"]),
    ("blank lines only", "\n\n  \n", ["empty file"]),
]


@pytest.mark.parametrize("name, body, needles", VCR_CASES, ids=[c[0] for c in VCR_CASES])
def test_malformed_vcr_jsonl(capsys, tmp_path, name, body, needles):
    f = write(tmp_path / "val.jsonl", body)
    result = run_bad(capsys, tmp_path, [Task(f"vcr:path={f}", "val", ("accuracy",))])
    expect_one_line(result, str(f), *needles)


def test_vcr_file_without_labels_read_as_a_labelled_split(capsys, tmp_path):
    # test.jsonl (no labels) given as val: before, S_T = 0.0 was written as a score
    row = json.loads(_vcr())
    for key in ("answer_label", "rationale_label"):
        row.pop(key)
    f = write(tmp_path / "test.jsonl", _lines(json.dumps(row)))
    result = run_bad(capsys, tmp_path, [Task(f"vcr:path={f}", "val", ("nle",))])
    expect_one_line(result, str(f), "row 1", "field 'answer_label': missing", "split 'val'")
