"""Visual Genome: an image `id` is read as its QA pairs' `image_id` is, surrounding spaces
stripped (as Visual7W does), so `" 1"` and `1` are one image, not "unknown image ids"
(review finding 13)."""

from __future__ import annotations

import json


def test_an_image_id_with_spaces_matches_its_qas(tmp_path, fresh_cache):
    from vqa_harness_plugins.datasets.multiple_choice.vg import VisualGenomeQA

    data = [{"id": f" {i} ", "qas": [{"qa_id": i * 10 + j, "image_id": i, "question": f"What is {j}?",
                                      "answer": f"thing {i}{j}"} for j in range(2)]} for i in range(6)]
    path = tmp_path / "question_answers.json"
    path.write_text(json.dumps(data))
    every = VisualGenomeQA(file=str(path), decoys="iou").all_examples()
    assert {ex.image_id for exs in every.values() for ex in exs} == {str(i) for i in range(6)}
