"""Complementary pairs that are not complementary (Goyal et al. 2017 §4: the same question
on two images): a pair whose questions differ in text or share one image is counted and
left out of the pair metrics, never scored as a pair; a pair listed twice is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import DataError
from harness.types import Example
from vqa_harness_plugins.datasets.vqa import VQA2
from vqa_harness_plugins.probes.balanced.pairs import _report_load_summary


def _answers(word):
    return [{"answer": word, "answer_confidence": "yes", "answer_id": i + 1} for i in range(10)]


def _write(root: Path, pairs) -> None:
    folder = root / "vqa2"
    folder.mkdir(parents=True, exist_ok=True)
    qs = [(1000, 1, "Is it raining?", "yes"), (2000, 2, "Is it raining?", "no"),
          (3000, 3, "What room is this?", "kitchen"), (4000, 4, "Is this a beach?", "no"),
          (5000, 5, "What sport is this?", "tennis"), (5001, 5, "what sport is  THIS?", "tennis"),
          (6000, 6, "IS IT RAINING?", "yes")]
    (folder / "v2_OpenEnded_mscoco_val2014_questions.json").write_text(json.dumps(
        {"questions": [{"image_id": i, "question": q, "question_id": qid} for qid, i, q, _ in qs]}))
    (folder / "v2_mscoco_val2014_annotations.json").write_text(json.dumps({"annotations": [
        {"question_id": qid, "image_id": i, "question_type": "is it", "answer_type": "other",
         "multiple_choice_answer": a, "answers": _answers(a)} for qid, i, _, a in qs]}))
    (folder / "v2_mscoco_val2014_complementary_pairs.json").write_text(json.dumps(pairs))


def _pair_ids(plugin):
    return {r["id"]: r["pair_id"] for r in plugin.load("val").to_list()}


def test_pairs_with_other_text_or_one_image_are_counted_not_scored(tmp_path, fresh_cache):
    _write(tmp_path, [[1000, 2000], [3000, 4000], [5000, 5001]])
    plugin = VQA2(data_dir=tmp_path)
    ids = _pair_ids(plugin)
    assert ids["1000"] == "2000" and ids["2000"] == "1000"
    assert ids["3000"] == ids["4000"] == ids["5000"] == ids["5001"] == ""
    summary = plugin.summary("val")
    assert summary["pairs"] == 3 and summary["pairs_used"] == 1
    assert summary["pairs_question_mismatch"] == 1 and summary["question_mismatch_shown"] == [[3000, 4000]]
    assert summary["pairs_same_image"] == 1 and summary["same_image_shown"] == [[5000, 5001]]

    lines = []

    class Ctx:
        def dataset_summary(self):
            return summary

        def report(self, text):
            lines.append(text)

    _report_load_summary(Ctx())
    assert "1 pair(s) whose two questions differ in text (first: [3000, 4000])" in lines[0]
    assert "1 pair(s) with both questions on one image (first: [5000, 5001])" in lines[0]


def test_case_and_spacing_do_not_make_another_question(tmp_path, fresh_cache):
    _write(tmp_path, [[6000, 2000]])  # "IS IT RAINING?" and "Is it raining?"
    plugin = VQA2(data_dir=tmp_path)
    assert _pair_ids(plugin)["6000"] == "2000"
    assert plugin.summary("val").get("pairs_question_mismatch", 0) == 0


@pytest.mark.parametrize("pairs, message", [
    ([[1000, 2000], [1000, 2000]], r"\[1\]: the pair \[1000, 2000\] is listed twice \(first at \[0\]\)"),
    ([[1000, 2000], [2000, 1000]], r"\[1\]: the pair \[2000, 1000\] is listed twice \(first at \[0\]\)"),
    ([[1000, 2000], [1000, 6000]], r"\[1\]: question_id 1000 is in more than one pair \(first at \[0\]\)"),
])
def test_a_pair_listed_twice_is_one_line(tmp_path, fresh_cache, pairs, message):
    _write(tmp_path, pairs)
    with pytest.raises(DataError, match=r"complementary_pairs.json: " + message) as err:
        _pair_ids(VQA2(data_dir=tmp_path))
    assert "\n" not in str(err.value)
