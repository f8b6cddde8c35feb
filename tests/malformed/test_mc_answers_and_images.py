"""Visual7W, Visual Genome and released decoy files: an answer or decoy with nothing left
once normalized (".") is one line naming the record and field (review finding 9: it became
an empty candidate or a question dropped from the scores), and a Visual7W image in two
splits is one line naming both records (finding 7: train/test leakage). Exit 3."""

from __future__ import annotations

import json

import pytest
from helpers_malformed import expect_one_line, run_bad, visual7w_data, write

from harness.api import Task


def _other_split(data):
    data["images"].append({**data["images"][0], "split": "test",
                           "qa_pairs": [{**qa, "qa_id": 100 + k} for k, qa in enumerate(data["images"][0]["qa_pairs"])]})


V7W_CASES = [
    ("answer a period", lambda d: d["images"][1]["qa_pairs"][0].update(answer="."),
     ["images[1].qa_pairs[0]", "field 'answer'", "empty once normalized"]),
    ("answer punctuation", lambda d: d["images"][2]["qa_pairs"][1].update(answer="?!"),
     ["images[2].qa_pairs[1]", "field 'answer'", "empty once normalized"]),
    ("decoy a period", lambda d: d["images"][1]["qa_pairs"][0].update(multiple_choices=["Blue.", ".", "Black."]),
     ["images[1].qa_pairs[0]", "field 'multiple_choices[1]'", "empty once normalized"]),
    ("image in two splits", _other_split,
     ["images[3]", "field 'image_id'", "image_id 0 is in split 'test' here but in split 'train' at images[0]"]),
]


@pytest.mark.parametrize("name, mutate, needles", V7W_CASES, ids=[c[0] for c in V7W_CASES])
@pytest.mark.parametrize("decoys", ["orig", "iou"])
def test_visual7w(capsys, tmp_path, fresh_cache, name, mutate, needles, decoys):
    data = visual7w_data()
    mutate(data)
    f = write(tmp_path / "v7w.json", json.dumps(data))
    spec = f"visual7w:file={f},decoy_file=,decoys={decoys}"
    expect_one_line(run_bad(capsys, tmp_path, [Task(spec, "test", ("accuracy",))]), str(f), *needles)


def test_visual7w_same_image_twice_in_one_split_is_one_image(tmp_path, fresh_cache):
    from vqa_harness_plugins.datasets.multiple_choice import Visual7W

    data = visual7w_data()
    data["images"].append({**data["images"][0], "qa_pairs": [{**qa, "qa_id": 100 + k}
                                                               for k, qa in enumerate(data["images"][0]["qa_pairs"])]})
    f = write(tmp_path / "v7w.json", json.dumps(data))
    assert len(Visual7W(file=str(f)).load("train")) == 6


def test_visual_genome_answer_a_period(capsys, tmp_path, fresh_cache):
    data = [{"id": i, "qas": [{"qa_id": i * 10 + j, "image_id": i, "question": f"What is {j}?", "answer": f"thing {j}"}
                              for j in range(2)]} for i in range(4)]
    data[2]["qas"][1]["answer"] = "."
    f = write(tmp_path / "question_answers.json", json.dumps(data))
    result = run_bad(capsys, tmp_path, [Task(f"visual-genome-qa:file={f},decoy_file=", "test", ("accuracy",))])
    expect_one_line(result, str(f), "[2].qas[1]", "field 'answer'", "empty once normalized")


def test_released_decoy_a_period(capsys, tmp_path, fresh_cache):
    f = write(tmp_path / "v7w.json", json.dumps(visual7w_data()))
    decoys = write(tmp_path / "decoys.json", json.dumps({"0": {"IoU_decoys": ["blue", ".", "green"],
                                                               "QoU_decoys": ["one", "two", "six"]}}))
    spec = f"visual7w:file={f},decoy_file={decoys},decoys=iou"
    expect_one_line(run_bad(capsys, tmp_path, [Task(spec, "train", ("accuracy",))]), str(decoys),
                    "qa_id 0", "field 'IoU_decoys[1]'", "empty once normalized")
