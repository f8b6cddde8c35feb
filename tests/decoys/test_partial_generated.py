"""A generated decoy set may come out empty for a question (every candidate too close to its
target): the real-data loaders keep the question with its target only, and the decoy
probes leave it out and count it, instead of stopping the whole suite (seen at full
Visual7W size). Released decoy files stay strict."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.data.session import Session
from harness.errors import DataError
from harness.testing import make_host

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites"))
from helpers_official import write_visual7w, write_vqa  # noqa: E402


def _one_empty(module, monkeypatch):
    """Wrap `generated_decoys` so that the first question's IoU and QoU sets are empty."""
    real = module.generated_decoys
    emptied = []

    def generated(examples, *args, **kw):
        sets = dict(real(examples, *args, **kw))
        first = next(iter(sets))
        sets[first] = {**sets[first], "iou": [], "qou": []}
        emptied.append(first)
        return sets

    monkeypatch.setattr(module, "generated_decoys", generated)
    return emptied


@pytest.mark.parametrize("spec,split,writer,module", [
    ("visual7w:decoys=iou,decoy_file=", "test", lambda root: write_visual7w(root, 40, released=False),
     "vqa_harness_plugins.datasets.multiple_choice.visual7w"),
    ("vqa2-mc:decoys=iou+qou", "val", lambda root: write_vqa(root, version=2, split="val", n_images=20, seed=0),
     "vqa_harness_plugins.datasets.multiple_choice.vqa_mc"),
])
def test_a_question_without_generated_decoys_is_kept_with_its_target_only(tmp_path, fresh_cache, monkeypatch,
                                                                          spec, split, writer, module):
    import importlib

    writer(tmp_path)
    emptied = _one_empty(importlib.import_module(module), monkeypatch)
    examples = Session(make_host(builtins=True), data_dir=tmp_path).load(spec, split)
    assert emptied
    by_id = {ex.id: ex for ex in examples}
    alone = by_id[emptied[0]]
    assert list(alone.choices) == [alone.meta["mc_target"]]
    assert sum(len(ex.choices) >= 2 for ex in examples) == len(examples) - 1


def test_released_decoy_files_must_give_every_question_decoys(tmp_path, fresh_cache):
    import json

    write_visual7w(tmp_path, 24, released=True)
    path = tmp_path / "visual7w" / "decoys.json"
    released = json.loads(path.read_text())
    test_ids = [ex.id for ex in Session(make_host(builtins=True), data_dir=tmp_path).load("visual7w", "test")]
    released[test_ids[0]] = {key: [] for key in released[test_ids[0]]}
    path.write_text(json.dumps(released))
    with pytest.raises(DataError, match=r"decoys.json: 1 question\(s\) have no IoU_decoys for decoys=iou"):
        Session(make_host(builtins=True), data_dir=tmp_path).load("visual7w:decoys=iou", "test")
