"""vqa1-mc needs VQA v1's MultipleChoice questions file when its decoys include the
original ones (Orig, All): `harness data status` says so, and a load without it names it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.errors import DataError
from harness.testing import make_host
from vqa_harness_cli.data_cmd import status_lines

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites"))
from helpers_official import write_vqa  # noqa: E402


@pytest.fixture
def v1_without_choices(tmp_path) -> Path:
    for split in ("train", "val"):
        write_vqa(tmp_path, version=1, split=split, n_images=4, seed=0)
    (tmp_path / "vqa1" / "MultipleChoice_mscoco_val2014_questions.json").unlink()
    return tmp_path


def test_the_multiple_choice_file_is_required_for_orig_and_all_only(tmp_path):
    from vqa_harness_plugins.datasets.multiple_choice.vqa_mc import VQA1MC, VQA2MC

    mc = tmp_path / "vqa1" / "MultipleChoice_mscoco_val2014_questions.json"
    assert mc in VQA1MC(data_dir=tmp_path).expected_files("val")
    assert mc in VQA1MC(data_dir=tmp_path, decoys="all").expected_files("val")
    assert mc not in VQA1MC(data_dir=tmp_path, decoys="iou").expected_files("val")
    assert not [p for p in VQA2MC(data_dir=tmp_path).expected_files("val") if "MultipleChoice" in p.name]


def test_status_calls_decoys_vqa1_not_ready_without_it(v1_without_choices):
    lines = status_lines(make_host(builtins=True), v1_without_choices)
    line = next(x for x in lines if x.strip().split()[-1:] != [] and " decoys-vqa1" in x)
    assert line.startswith("  not ready  decoys-vqa1: ") and "MultipleChoice_mscoco_val2014_questions.json" in line


def test_a_load_without_it_names_the_file(v1_without_choices, fresh_cache):
    from vqa_harness_plugins.datasets.multiple_choice.vqa_mc import VQA1MC

    with pytest.raises(DataError) as err:
        VQA1MC(data_dir=v1_without_choices).load("val")
    message = str(err.value)
    assert "no original decoys" not in message
    assert f"{v1_without_choices / 'vqa1' / 'MultipleChoice_mscoco_val2014_questions.json'}, which is missing" in message


def _drop_choices(root: Path) -> Path:
    path = root / "vqa1" / "MultipleChoice_mscoco_val2014_questions.json"
    data = json.loads(path.read_text())
    del data["questions"][0]["multiple_choices"]
    path.write_text(json.dumps(data))
    return path


def test_a_question_without_its_choices_is_refused_or_counted(tmp_path, fresh_cache):
    """A MultipleChoice file gives every question its 18 choices: one without the field is
    refused under answers=strict (before: filled from the frequent targets, silently)."""
    from vqa_harness_plugins.datasets.multiple_choice.vqa_mc import VQA1MC

    for split in ("train", "val"):
        write_vqa(tmp_path, version=1, split=split, n_images=4, seed=0)
    path = _drop_choices(tmp_path)
    with pytest.raises(DataError) as err:
        VQA1MC(data_dir=tmp_path).load("val")
    assert str(err.value).startswith(f"{path}: questions[0]") and "'multiple_choices'" in str(err.value)
    lenient = VQA1MC(data_dir=tmp_path, answers="lenient", decoys="iou")
    lenient.load("val")
    assert lenient.accepted("val")["answer_count_mismatches"] == 1


def test_a_question_without_a_record_in_the_multiple_choice_file_is_refused(tmp_path, fresh_cache):
    """The neighbour of the case above: a question of the OpenEnded file with no record at all
    in the MultipleChoice file (before: loaded, its decoys filled from the frequent targets)."""
    from vqa_harness_plugins.datasets.multiple_choice.vqa_mc import VQA1MC

    for split in ("train", "val"):
        write_vqa(tmp_path, version=1, split=split, n_images=4, seed=0)
    path = tmp_path / "vqa1" / "MultipleChoice_mscoco_val2014_questions.json"
    data = json.loads(path.read_text())
    dropped = data["questions"].pop(0)["question_id"]
    path.write_text(json.dumps(data))
    with pytest.raises(DataError) as err:
        VQA1MC(data_dir=tmp_path, decoys="iou").load("val")
    assert str(err.value).startswith(f"{path}: 1 question(s)") and str(dropped) in str(err.value)
    assert len(VQA1MC(data_dir=tmp_path, decoys="iou", answers="lenient").load("val")) == len(data["questions"]) + 1
