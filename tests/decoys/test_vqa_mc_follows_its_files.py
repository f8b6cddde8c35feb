"""vqa1-mc follows its MultipleChoice file: an edit that keeps the file's size (a choice
renamed) changes the dataset fingerprint and the generated decoys' key for every `decoys=`
value, since the 18 choices are the Orig decoys and the generator's fill-ins (review finding 3)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites"))
from helpers_official import write_vqa  # noqa: E402


def _rename_choice(path: Path, old: str, new: str) -> None:
    """Rename one choice keeping the file's size, as a later edit (past the clock's tick)."""
    assert len(old) == len(new)
    data = json.loads(path.read_text())
    for q in data["questions"]:
        q["multiple_choices"] = [new if c == old else c for c in q["multiple_choices"]]
    size, stamp = path.stat().st_size, path.stat().st_mtime_ns
    path.write_text(json.dumps(data))
    os.utime(path, ns=(stamp + 10**9, stamp + 10**9))
    assert path.stat().st_size == size


@pytest.mark.parametrize("decoys", ["iou", "qou", "iou+qou", "orig", "all"])
def test_a_same_size_edit_of_the_choices_changes_fingerprint_and_generation_key(tmp_path, fresh_cache, decoys):
    from vqa_harness_plugins.datasets.multiple_choice.vqa_mc import VQA1MC

    for split in ("train", "val"):
        write_vqa(tmp_path, version=1, split=split, n_images=4, seed=0)
    dataset = VQA1MC(data_dir=tmp_path, decoys=decoys)
    before = dataset.fingerprint("val"), dataset._generation_key("val")
    mc = tmp_path / "vqa1" / "MultipleChoice_mscoco_val2014_questions.json"
    _rename_choice(mc, "tree", "free")
    after = dataset.fingerprint("val"), dataset._generation_key("val")
    assert after[0] != before[0] and after[1] != before[1]
