"""VQA v1's MultipleChoice file is held to the OpenEnded file it completes: a record on
another image or with another question (review finding 8), an empty choice (finding 9) and,
for vqa1-mc, a multiple_choice_answer that is not among the 18 choices (finding 1) are one
line naming the file, the record and the field, exit 3, before any model runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers_malformed import expect_one_line, run_bad

from harness.api import Task

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites"))
from helpers_official import write_vqa  # noqa: E402

MC = "MultipleChoice_mscoco_val2014_questions.json"


def _set(key, value):
    def mutate(q):
        q[key] = value
    return mutate


def _replace_target(q):  # write_vqa puts the target first among the 18 choices
    q["multiple_choices"][0] = "purple"


CASES = [
    ("another image", "vqa1", _set("image_id", 999999), ["questions[1]", "field 'image_id'",
                                                         "question_id 50001 is on image_id 999999 here but on "
                                                         "image_id 5000 in"]),
    ("another question", "vqa1", _set("question", "Totally different?"),
     ["questions[1]", "field 'question'", "'Totally different?' here but"]),
    ("empty choice", "vqa1", lambda q: q["multiple_choices"].__setitem__(3, " "),
     ["questions[1]", "field 'multiple_choices[3]'", "an empty choice"]),
    ("choice empty once normalized", "vqa1", lambda q: q["multiple_choices"].__setitem__(3, "."),
     ["questions[1]", "field 'multiple_choices[3]'", "an empty choice ('.' once normalized)"]),
    ("target not among the choices", "vqa1-mc", _replace_target,
     ["field 'multiple_choices'", "1 question(s)", "do not offer their target", "among their 18 choices", "question_id 50001",
      "mscoco_val2014_annotations.json"]),
    ("target not among the choices, decoys=all", "vqa1-mc:decoys=all", _replace_target,
     ["field 'multiple_choices'", "question_id 50001"]),
]


@pytest.mark.parametrize("name, dataset, mutate, needles", CASES, ids=[c[0] for c in CASES])
def test_multiple_choice_file_against_the_questions(capsys, tmp_path, fresh_cache, name, dataset, mutate, needles):
    root = tmp_path / "data"
    for split in ("train", "val"):
        write_vqa(root, version=1, split=split, n_images=3, seed=0)
    path = root / "vqa1" / MC
    data = json.loads(path.read_text())
    mutate(data["questions"][1])
    path.write_text(json.dumps(data))
    result = run_bad(capsys, tmp_path, [Task(dataset, "val", ("accuracy",))], data_dir=root)
    expect_one_line(result, str(path), *needles)


def test_the_unchanged_files_load(tmp_path, fresh_cache):
    from vqa_harness_plugins.datasets.multiple_choice.vqa_mc import VQA1MC

    write_vqa(tmp_path, version=1, split="val", n_images=3, seed=0)
    assert {len(ex.choices) for ex in VQA1MC(data_dir=tmp_path).load("val")} == {18}
