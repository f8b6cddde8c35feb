"""Malformed Visual7W, Visual Genome and released decoy files through `harness run`: one
line naming the file, the record and the field (a wrong type is never reported as a
missing field), exit 3, no traceback; qa_id and decoy-count policies."""

from __future__ import annotations

import json

import pytest
from helpers_malformed import expect_one_line, run_bad, visual7w_data, write

from harness.api import Task


def _qa(fn):
    def mutate(data):
        fn(data["images"][1]["qa_pairs"][0])
    return mutate


def _img(fn):
    def mutate(data):
        fn(data["images"][1])
    return mutate


V7W_CASES = [
    ("qa_pairs an integer", _img(lambda d: d.update(qa_pairs=5)),
     ["images[1]", "field 'qa_pairs'", "expected a list, got int 5"]),
    ("qa_pairs a string", _img(lambda d: d.update(qa_pairs="none")), ["images[1]", "field 'qa_pairs'", "got str"]),
    ("question a list", _qa(lambda d: d.update(question=["What?"])),
     ["images[1].qa_pairs[0]", "field 'question'", "expected a non-empty string, got list"]),
    ("choices an integer", _qa(lambda d: d.update(multiple_choices=3)),
     ["images[1].qa_pairs[0]", "field 'multiple_choices'", "expected a list, got int 3"]),
    ("choice an integer", _qa(lambda d: d.update(multiple_choices=["a", 2, "c"])),
     ["images[1].qa_pairs[0]", "field 'multiple_choices[1]'", "expected a string, got int 2"]),
    ("2 choices", _qa(lambda d: d.update(multiple_choices=["a", "b"])),
     ["images[1].qa_pairs[0]", "field 'multiple_choices'", "2 answers, expected 3", "answers=lenient"]),
    ("answer missing", _qa(lambda d: d.pop("answer")), ["images[1].qa_pairs[0]", "field 'answer': missing"]),
    ("empty answer", _qa(lambda d: d.update(answer="  ")), ["images[1].qa_pairs[0]", "field 'answer'", "empty"]),
    ("qa_id bool", _qa(lambda d: d.update(qa_id=False)), ["images[1].qa_pairs[0]", "field 'qa_id'", "got bool"]),
    ("qa_id 2^63", _qa(lambda d: d.update(qa_id=2**63)), ["field 'qa_id'", "out of range [0, 2^53 - 1]"]),
    ("duplicated qa_id", _qa(lambda d: d.update(qa_id=0)),
     ["images[1].qa_pairs[0]", "duplicated qa_id 0 (first at images[0].qa_pairs[0])", "duplicates=keep-first"]),
    ("unknown split", _img(lambda d: d.update(split="dev")), ["images[1]", "field 'split'", "not one of"]),
    ("image a string", lambda data: data["images"].__setitem__(1, "v7w_1.jpg"),
     ["images[1]", "expected an object, got str"]),
    ("no images key", lambda data: data.pop("images"), ['expected {"images": [...]}']),
    ("no images", lambda data: data.update(images=[]), ["no images (the 'images' list is empty)"]),
    ("no image in the split", lambda data: data["images"].pop(2), ["no questions in split 'test'"]),
    ("no qa_pairs", lambda data: [img.update(qa_pairs=[]) for img in data["images"]],
     ["no questions in split 'test'"]),
]


@pytest.mark.parametrize("name, mutate, needles", V7W_CASES, ids=[c[0] for c in V7W_CASES])
def test_malformed_visual7w(capsys, tmp_path, name, mutate, needles):
    data = visual7w_data()
    mutate(data)
    f = write(tmp_path / "v7w.json", json.dumps(data))
    line = expect_one_line(run_bad(capsys, tmp_path, [Task(f"visual7w:file={f}", "test", ("accuracy",))]),
                           str(f), *needles)
    assert "missing field 'int'" not in line and "not iterable" not in line


@pytest.mark.parametrize("body, needles", [
    (b'{"images": [{"image_id": 1, "split": "train", "qa_pairs": [{"question": "caf\xe9"}]}]}', ["not UTF-8"]),
    ('{"images": [', ["truncated JSON"]),
    ("", ["empty file"]),
], ids=["not UTF-8", "truncated", "empty"])
def test_unreadable_visual7w(capsys, tmp_path, body, needles):
    f = write(tmp_path / "v7w.json", body)
    expect_one_line(run_bad(capsys, tmp_path, [Task(f"visual7w:file={f}", "test", ("accuracy",))]), str(f), *needles)


def test_visual7w_policies_count_what_they_accept(tmp_path):
    from vqa_harness_plugins.datasets.multiple_choice import Visual7W

    data = visual7w_data()
    data["images"][1]["qa_pairs"][0].update(qa_id=0)
    data["images"][0]["qa_pairs"][1].update(multiple_choices=["Three.", "One."])
    f = write(tmp_path / "v7w.json", json.dumps(data))
    plugin = Visual7W(file=str(f), duplicates="keep-first", answers="lenient")
    assert [e.id for e in plugin.load("train")] == ["0", "1", "11"]
    summary = plugin.summary("train")
    assert summary["duplicate_qa_ids"] == 1 and summary["answer_count_mismatches"] == 1


def _vg():
    return [{"id": i, "qas": [{"qa_id": i * 10 + j, "image_id": i, "question": f"What is {j}?", "answer": f"thing {j}"}
                              for j in range(2)]} for i in range(4)]


VG_CASES = [
    ("qas an integer", lambda d: d[2].update(qas=7), ["[2]", "field 'qas'", "expected a list, got int 7"]),
    ("qas missing", lambda d: d[2].pop("qas"), ["[2]", "field 'qas': missing"]),
    ("answer an integer", lambda d: d[2]["qas"][1].update(answer=4),
     ["[2].qas[1]", "field 'answer'", "expected a non-empty string, got int 4"]),
    ("answer a list", lambda d: d[2]["qas"][1].update(answer=["a"]), ["[2].qas[1]", "field 'answer'", "got list"]),
    ("question null", lambda d: d[2]["qas"][1].update(question=None), ["[2].qas[1]", "field 'question'", "got null"]),
    ("qa_id a float", lambda d: d[2]["qas"][1].update(qa_id=1.5), ["[2].qas[1]", "field 'qa_id'", "got float"]),
    ("duplicated qa_id", lambda d: d[2]["qas"][1].update(qa_id=0), ["[2].qas[1]", "duplicated qa_id 0"]),
    ("image id a list", lambda d: d[1].update(id=[1]), ["[1]", "field 'id'", "got list"]),
    ("qa a string", lambda d: d[1]["qas"].__setitem__(0, "What?"), ["[1].qas[0]", "expected an object, got str"]),
    ("no images", lambda d: d.clear(), ["no images (an empty list)"]),
    ("no qas", lambda d: [img.update(qas=[]) for img in d], ["no questions in split 'test'"]),
]


@pytest.mark.parametrize("name, mutate, needles", VG_CASES, ids=[c[0] for c in VG_CASES])
def test_malformed_visual_genome(capsys, tmp_path, name, mutate, needles):
    data = _vg()
    mutate(data)
    f = write(tmp_path / "question_answers.json", json.dumps(data))
    result = run_bad(capsys, tmp_path, [Task(f"visual-genome-qa:file={f}", "test", ("accuracy",))])
    expect_one_line(result, str(f), *needles)


def test_visual_genome_not_a_list_and_not_utf8(capsys, tmp_path):
    f = write(tmp_path / "question_answers.json", json.dumps({"qas": []}))
    result = run_bad(capsys, tmp_path, [Task(f"visual-genome-qa:file={f}", "test", ("accuracy",))])
    expect_one_line(result, str(f), "expected a list of images", "got object")
    write(f, b'[{"id": 1, "qas": [{"question": "\xe9"}]}]')
    result = run_bad(capsys, tmp_path, [Task(f"visual-genome-qa:file={f}", "test", ("accuracy",))])
    expect_one_line(result, str(f), "not UTF-8")


DECOY_CASES = [
    ("not an object", "[]", ["expected an object keyed by qa_id, got list"]),
    ("entry a list", '{"0": ["blue"]}', ["qa_id 0", "expected an object, got list"]),
    ("IoU a string", '{"0": {"IoU_decoys": "blue", "QoU_decoys": []}}',
     ["qa_id 0", "field 'IoU_decoys'", "expected a list, got str"]),
    ("decoy an integer", '{"0": {"IoU_decoys": ["blue", 3], "QoU_decoys": []}}', ["qa_id 0", "field 'IoU_decoys[1]'"]),
    ("repeated qa_id key", '{"0": {"IoU_decoys": ["blue"]}, "0": {"IoU_decoys": ["green"]}}',
     ["qa_id 0 (repeated key)", "duplicated qa_id 0"]),
    ("unknown qa_id", '{"999": {"IoU_decoys": ["blue"], "QoU_decoys": []}}', ["1 qa_id(s) have no question", "999"]),
    ("decoy equals target", '{"0": {"IoU_decoys": ["Red."], "QoU_decoys": []}}', ["list the target as a decoy"]),
    ("decoy equals target but for punctuation", '{"0": {"IoU_decoys": ["blue", "red!"], "QoU_decoys": []}}',
     ["list the target as a decoy"]),
    ("truncated", '{"0": {"IoU_decoys": ["bl', ["truncated JSON"]),
    ("NaN", '{"0": {"IoU_decoys": NaN}}', ["field 'IoU_decoys'", "NaN is not a valid JSON number"]),
    ("not UTF-8", b'{"0": {"IoU_decoys": ["\xe9"]}}', ["not UTF-8"]),
]


@pytest.mark.parametrize("name, body, needles", DECOY_CASES, ids=[c[0] for c in DECOY_CASES])
def test_malformed_released_decoy_file(capsys, tmp_path, name, body, needles):
    f = write(tmp_path / "v7w.json", json.dumps(visual7w_data()))
    decoys = write(tmp_path / "decoys.json", body)
    spec = f"visual7w:file={f},decoy_file={decoys},decoys=all"
    expect_one_line(run_bad(capsys, tmp_path, [Task(spec, "train", ("accuracy",))]), str(decoys), *needles)


def test_the_decoy_file_is_a_folder(capsys, tmp_path):
    f = write(tmp_path / "v7w.json", json.dumps(visual7w_data()))
    (tmp_path / "decoys").mkdir()
    spec = f"visual7w:file={f},decoy_file={tmp_path / 'decoys'},decoys=all"
    expect_one_line(run_bad(capsys, tmp_path, [Task(spec, "train", ("accuracy",))]), "decoys", "is a folder")


def test_fixtures_are_valid(tmp_path):
    from vqa_harness_plugins.datasets.multiple_choice import Visual7W

    f = write(tmp_path / "v7w.json", json.dumps(visual7w_data()))
    assert len(Visual7W(file=str(f)).load("train")) == 4
