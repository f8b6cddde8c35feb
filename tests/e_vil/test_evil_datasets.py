"""e-SNLI-VE / VQA-X / VCR loaders: the real files load as they are; bad input is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import DataError
from vqa_harness_plugins.datasets.e_vil import ESNLIVE, VCR, VQAX
from vqa_harness_plugins.datasets.e_vil.loaders import render_vcr_tokens

HEADER = ",pairID,Flickr30kID,hypothesis,gold_label,explanation\n"


def test_real_esnlive_dev_loads_with_image_disjoint_halves(shared_data):
    ds = ESNLIVE(data_dir=shared_data)
    dev = ds.load("dev")
    assert len(dev) == 14339
    assert {ex.label for ex in dev} == {"entailment", "neutral", "contradiction"}
    first = dev[0]
    assert first.id == "4465359505.jpg#2r1c" and first.label == "contradiction"
    assert first.explanations == ("Hair and tree are two different things.",)
    assert first.image == str(shared_data / "flickr30k_images" / "4465359505.jpg")
    fit, ev = ds.load("dev-fit"), ds.load("dev-eval")
    assert len(fit) + len(ev) == len(dev)
    assert not {x.image_id for x in fit} & {x.image_id for x in ev}
    other = ESNLIVE(data_dir=shared_data, half_seed=1).load("dev-fit")
    assert [x.id for x in other] != [x.id for x in fit]


def test_real_vqax_val_loads(shared_data):
    val = VQAX(data_dir=shared_data).load("val")
    assert len(val) == 1459
    assert all(len(ex.answers) == 10 and len(ex.explanations) == 3 for ex in val)
    ex = next(e for e in val if e.id == "393271001")
    assert ex.answer_type == "yes/no" and ex.image.endswith("coco/val2014/COCO_val2014_000000393271.jpg")


def test_explicit_path_option(tmp_path):
    f = tmp_path / "mine.csv"
    f.write_text(HEADER + '0,p1,1.jpg,A dog runs.,entailment,"A dog, running."\n')
    ex = ESNLIVE(path=str(f)).load("test")
    assert [e.question for e in ex] == ["A dog runs."]


@pytest.mark.parametrize("body, expected", [
    ("pairID,Flickr30kID,hypothesis,explanation\np1,1.jpg,h,e\n", "row 0 (header): missing column(s) gold_label"),
    (HEADER + "0,p1,1.jpg,h,entail,e\n", "row 1: field 'gold_label': unknown label 'entail'"),
    (HEADER + "0,p1,1.jpg,h,neutral,e\n1,p2,2.jpg,h,neutral,\n", "row 2: field 'explanation': empty explanation"),
])
def test_bad_esnlive_csv_is_one_line_naming_file_row_field(tmp_path, body, expected):
    f = tmp_path / "bad.csv"
    f.write_text(body)
    with pytest.raises(DataError) as err:
        ESNLIVE(path=str(f)).load("dev")
    msg = str(err.value)
    assert str(f) in msg and expected in msg and "\n" not in msg


def test_bad_vqax_explanation(tmp_path):
    f = tmp_path / "vqaX_val.json"
    f.write_text(json.dumps({"7": {"question": "Is it?", "answers": [{"answer": "yes"}] * 10,
                                   "explanation": ["ok", " "], "image_id": "1", "image_name": "COCO_val2014_1.jpg"}}))
    with pytest.raises(DataError, match=r"vqaX_val.json: row 7: field 'explanation\[1\]': empty explanation"):
        VQAX(data_dir=tmp_path.parent, path=str(f)).load("val")


@pytest.mark.parametrize("name, folder", [("vqaX_train.json", "train2014"), ("vqaX_test.json", "val2014")])
def test_vqax_without_image_name_finds_the_image_in_its_coco_split(tmp_path, name, folder):
    from vqa_harness_plugins.datasets.e_vil.loaders import read_vqax

    f = tmp_path / name
    f.write_text(json.dumps({"7": {"question": "Is it?", "answers": [{"answer": "yes"}] * 10,
                                   "explanation": ["it is"], "image_id": 262148}}))
    (ex,) = read_vqax(f, tmp_path / "coco")
    assert ex.image == str(tmp_path / "coco" / folder / f"COCO_{folder}_000000262148.jpg")


def _vcr_line(**over):
    item = {"annot_id": "val-0", "img_fn": "movie/x.jpg", "movie": "m", "objects": ["person", "person", "car"],
            "question": ["What", "is", [0], "doing", "?"],
            "answer_choices": [[[0], "drives", [2], "."], ["sleeping"], [[1], "and", [0], "talk"], ["eating"]],
            "answer_label": 0,
            "rationale_choices": [[[0, 1], "are", "in", "a", [2], "."], ["no"], ["maybe"], ["because"]],
            "rationale_label": 0}
    item.update(over)
    return json.dumps(item)


def test_a_dropped_repeated_vcr_row_is_not_counted_as_an_answer_count_mismatch(tmp_path):
    f = tmp_path / "val.jsonl"
    short = _vcr_line(answer_choices=[["sleeping"], ["eating"], ["talking"]])  # 3 choices, the same id
    f.write_text(_vcr_line() + "\n" + short + "\n")
    vcr = VCR(data_dir=tmp_path, path=str(f), duplicates="keep-first", answers="lenient")
    (ex,) = vcr.load("val")
    assert len(ex.choices) == 4
    counts = vcr.summary("val")
    assert counts["duplicate_annot_ids"] == 1 and counts["answer_count_mismatches"] == 0, counts


def test_vcr_renders_object_names(tmp_path):
    f = tmp_path / "val.jsonl"
    f.write_text(_vcr_line() + "\n")
    (ex,) = VCR(data_dir=tmp_path, path=str(f)).load("val")
    assert ex.question == "What is person1 doing?"
    assert ex.choices[0] == "person1 drives car1." and ex.label == "person1 drives car1."
    assert ex.explanations == ("person1 and person2 are in a car1.",)


def test_vcr_object_index_out_of_range(tmp_path):
    f = tmp_path / "val.jsonl"
    f.write_text(_vcr_line() + "\n" + _vcr_line(question=["Is", [5], "ok", "?"]) + "\n")
    with pytest.raises(DataError) as err:
        VCR(path=str(f)).load("val")
    assert str(err.value) == (f"{f}: row 2: field 'question': object index 5 out of range (objects has 3)")
    with pytest.raises(DataError, match="field 'answer_choices\\[0\\]'"):
        render_vcr_tokens([[0], "x"], [], Path("f.jsonl"), 1, "answer_choices[0]")


def test_vcr_bare_integer_token_is_an_error_not_an_object(tmp_path):
    # VCR tokens are strings or lists of object indices ([0]); a bare 0 is neither (r2c reads
    # only lists as references), so it is not guessed to be person1 or the text "0".
    f = tmp_path / "val.jsonl"
    f.write_text(_vcr_line() + "\n" + _vcr_line(question=["Why", "is", 0, "here", "?"]) + "\n")
    with pytest.raises(DataError) as err:
        VCR(path=str(f)).load("val")
    assert str(err.value) == (f"{f}: row 2: field 'question': token 0 is a bare integer: an object "
                              "reference is a list ([0]), text is a string (\"0\")")


def test_vqax_real_file_loads_with_official_types(shared_data, fresh_cache):
    plugin = VQAX(data_dir=shared_data)
    exs = plugin.load("val")
    assert len(exs) == 1459
    first = exs[0]
    assert first.id == "393271001" and first.image_id == "393271"
    assert len(first.answers) == 10 and first.label == "yes"
    assert first.answer_type == "yes/no" and first.question_type == "does this"
    assert len(first.explanations) == 3
    assert first.image.endswith("coco/val2014/COCO_val2014_000000393271.jpg")
    assert first.meta == {"task": "vqa-x"}
    assert {e.answer_type for e in exs} == {"yes/no", "number", "other"}
    explicit = VQAX(path=str(shared_data / "vqax" / "vqaX_val.json"))
    assert explicit.load("val")[5] == exs[5].with_(image=explicit.load("val")[5].image)
