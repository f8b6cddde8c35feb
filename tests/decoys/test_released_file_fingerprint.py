"""A released decoy file found by `decoy_file=auto` is part of the dataset's fingerprint:
adding, editing (even keeping its size) or removing `visual7w/decoys.json` or
`visual_genome/decoys.json` changes it, so cached predictions and probe outputs made with
other decoys are not restored (review finding 2)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from vqa_harness_plugins.datasets.multiple_choice.vg import VisualGenomeQA
from vqa_harness_plugins.datasets.multiple_choice.visual7w import Visual7W

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites"))
from helpers_official import write_visual7w_test_split  # noqa: E402


def _v7w(root: Path) -> tuple[type, Path]:
    write_visual7w_test_split(root)
    return Visual7W, root / "visual7w" / "decoys.json"


def _vg(root: Path) -> tuple[type, Path]:
    data = [{"id": i, "qas": [{"qa_id": i * 10 + j, "image_id": i, "question": f"What is {j}?", "answer": f"t{i}{j}"}
                              for j in range(2)]} for i in range(4)]
    path = root / "visual_genome" / "question_answers.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data))
    return VisualGenomeQA, root / "visual_genome" / "decoys.json"


def _write(path: Path, decoy: str, later: int = 0) -> None:
    path.write_text(json.dumps({"0": {"IoU_decoys": [decoy], "QoU_decoys": [decoy]}}))
    if later:
        st = path.stat()
        os.utime(path, ns=(st.st_mtime_ns + later, st.st_mtime_ns + later))


@pytest.mark.parametrize("make", [_v7w, _vg], ids=["visual7w", "visual-genome-qa"])
def test_adding_editing_or_removing_the_auto_decoy_file_changes_the_fingerprint(tmp_path, make):
    cls, decoys = make(tmp_path)
    dataset = cls(data_dir=tmp_path, decoys="iou")
    without = dataset.fingerprint("test")
    _write(decoys, "blue")
    added = dataset.fingerprint("test")
    assert added != without
    size = decoys.stat().st_size
    _write(decoys, "pink", later=10**9)  # same size, a later edit
    assert decoys.stat().st_size == size
    edited = dataset.fingerprint("test")
    assert edited not in (without, added)
    decoys.unlink()
    assert dataset.fingerprint("test") == without
