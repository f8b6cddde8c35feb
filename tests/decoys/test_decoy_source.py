"""decoy-audit's `generation/source=` row says where a task's decoys come from: the Orig
task's are the file's own human choices ("original"), not "generated" (review finding 12)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites"))
from helpers_official import write_visual7w_test_split as _v7w  # noqa: E402
from helpers_official import write_vqa  # noqa: E402


def test_visual7w_orig_decoys_are_original(tmp_path, fresh_cache):
    from vqa_harness_plugins.datasets.multiple_choice.visual7w import Visual7W

    _v7w(tmp_path)
    assert Visual7W(data_dir=tmp_path, decoys="orig").summary("test")["decoy_source"] == "original"
    assert Visual7W(data_dir=tmp_path, decoys="iou").summary("test")["decoy_source"] == "generated"
    (tmp_path / "visual7w" / "decoys.json").write_text("{}")
    assert Visual7W(data_dir=tmp_path, decoys="orig").summary("test")["decoy_source"] == "original"
    assert Visual7W(data_dir=tmp_path, decoys="iou").summary("test")["decoy_source"].startswith("released:")


def test_vqa1_mc_orig_decoys_are_original(tmp_path, fresh_cache):
    from vqa_harness_plugins.datasets.multiple_choice.vqa_mc import VQA1MC

    write_vqa(tmp_path, version=1, split="val", n_images=2, seed=0)
    assert VQA1MC(data_dir=tmp_path, decoys="orig").summary("val")["decoy_source"] == "original"
    assert VQA1MC(data_dir=tmp_path, decoys="iou").summary("val")["decoy_source"] == "generated"
