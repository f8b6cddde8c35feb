"""Generated decoys follow their source file: an edit that keeps the file's size (one answer
rewritten) generates them again instead of reusing the cached sets; and the loader's summary
gives the generation's statistics, which decoy-audit reports."""

from __future__ import annotations

import json
import os
from pathlib import Path

from vqa_harness_plugins.datasets.multiple_choice.visual7w import Visual7W


def _write(root: Path, answer: str) -> Path:
    images = []
    for i in range(6):
        qas = [{"qa_id": i * 10 + j, "image_id": i, "question": f"What is on table {j}?", "type": "what",
                "answer": answer if (i, j) == (0, 0) else f"thing{i}{j}",
                "multiple_choices": [f"o{i}{j}a", f"o{i}{j}b", f"o{i}{j}c"]} for j in range(4)]
        images.append({"image_id": i, "filename": f"v7w_{i}.jpg", "split": "test", "qa_pairs": qas})
    path = root / "visual7w" / "dataset_v7w_telling.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"images": images}))
    return path


def _iou_decoys(root: Path) -> set[str]:
    examples = Visual7W(data_dir=root, decoys="iou", decoy_file="").load("test")
    return {d for ex in examples if ex.image_id == "0" for d in ex.meta["decoys"]["iou"]}


def test_an_edit_of_the_same_size_generates_the_decoys_again(tmp_path, fresh_cache):
    path = _write(tmp_path, "apple")
    assert "apple" in _iou_decoys(tmp_path)  # the other questions on image 0 take it as a decoy
    size, stamp = path.stat().st_size, path.stat().st_mtime_ns
    _write(tmp_path, "melon")
    os.utime(path, ns=(stamp + 10**9, stamp + 10**9))  # a later edit, even within the clock's tick
    assert path.stat().st_size == size
    found = _iou_decoys(tmp_path)
    assert "melon" in found and "apple" not in found


def test_the_summary_gives_the_generation_statistics_the_decoy_audit_reports(tmp_path, fresh_cache):
    _write(tmp_path, "apple")
    dataset = Visual7W(data_dir=tmp_path, decoys="iou", decoy_file="")
    assert "generation" not in dataset.summary("test")  # nothing generated yet: nothing to report
    dataset.load("test")
    stats = dataset.summary("test")["generation"]
    assert stats["images"] == 6 and "rejected_wup" in stats
