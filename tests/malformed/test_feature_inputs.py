"""Malformed precomputed image-feature files (`mlp-ia:image_features=FILE`) through `harness
run`: one line naming the file and the image id or row, exit 3, no traceback; pickled
content is never loaded."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers_malformed import expect_one_line, run_bad, write

from harness.api import Task
from harness.testing import ListDataset
from harness.types import Example


def _mc(split: str, n: int) -> list[Example]:
    return [Example(id=f"{split}{i}", question=f"What color is thing {i}?", image_id=f"img{i % 3}",
                    choices=("red", "blue", "green", "white"), label=("red", "blue")[i % 2]) for i in range(n)]


class TinyMC(ListDataset):
    name = "tiny-mc"
    splits = ("train", "val")
    data = {"train": _mc("train", 8), "val": _mc("val", 4)}


def _run(capsys, tmp_path: Path, features: Path):
    model = f"mlp-ia:image_features={features},epochs=1,hidden=8"
    # decoys: a probe mlp-ia serves (a model none of the task's probes can use is not trained)
    return run_bad(capsys, tmp_path, [Task("tiny-mc", "val", ("decoys",))], TinyMC, model=model)


def _good() -> dict[str, np.ndarray]:
    return {f"img{i}": np.arange(4, dtype=np.float32) + i for i in range(3)}


def _npz(path: Path, arrays: dict, allow_pickle: bool = False) -> Path:
    np.savez(path, **arrays)
    return path


def _npy(path: Path, array: np.ndarray, ids: object) -> Path:
    np.save(path, array, allow_pickle=True)
    write(path.with_suffix(".ids.json"), ids if isinstance(ids, str) else json.dumps(ids))
    return path


CASES = [
    ("npz not a zip", lambda p: write(p / "f.npz", b"this is not a zip"), ["not a valid .npz file", "zip archive"]),
    ("npz empty", lambda p: write(p / "f.npz", b""), ["not a valid .npz file", "the file is empty"]),
    ("npz truncated", lambda p: write(p / "f.npz", _npz(p / "g.npz", _good()).read_bytes()[:200]),
     ["not a valid .npz file"]),
    ("npz object array", lambda p: _npz(p / "f.npz", {**_good(), "img1": np.array([{"x": 1}], dtype=object)}),
     ["image id 'img1'", "Python objects", "never unpickled"]),
    ("npz feature map", lambda p: _npz(p / "f.npz", {**_good(), "img1": np.zeros((2, 2, 4))}),
     ["image id 'img1'", "got shape (2, 2, 4)"]),
    ("npz strings", lambda p: _npz(p / "f.npz", {**_good(), "img2": np.array(["a", "b"])}),
     ["image id 'img2'", "expected a numeric array"]),
    ("npz NaN", lambda p: _npz(p / "f.npz", {**_good(), "img0": np.array([1.0, np.nan, 0, 0])}),
     ["image id 'img0'", "1 non-finite value(s)"]),
    ("npz widths differ", lambda p: _npz(p / "f.npz", {**_good(), "img0": np.ones(5)}), ["different lengths (4, 5)"]),
    ("npz unknown image", lambda p: _npz(p / "f.npz", {"img0": np.ones(4)}), ["2 unknown image id(s)"]),
    ("npy pickled objects", lambda p: _npy(p / "f.npy", np.array([{"a": 1}] * 3, dtype=object), ["img0", "img1", "img2"]),
     ["not a valid .npy file", "Python objects", "never unpickled"]),
    ("npy rows vs ids", lambda p: _npy(p / "f.npy", np.ones((2, 4)), ["img0", "img1", "img2"]),
     ["expected 3 rows (one per id in f.ids.json), got shape (2, 4)"]),
    ("npy 1-D", lambda p: _npy(p / "f.npy", np.ones(3), ["img0", "img1", "img2"]), ["expected 3 rows"]),
    ("npy not numpy", lambda p: (write(p / "f.npy", b"garbage!"), write(p / "f.ids.json", "[]"))[0],
     ["not a valid .npy file", "NumPy array file"]),
    ("npy inf", lambda p: _npy(p / "f.npy", np.array([[1, 2, 3, 4], [1, np.inf, 0, 0], [1, 1, 1, 1]], float),
                                ["img0", "img1", "img2"]), ["row 1 (image id 'img1')", "non-finite"]),
]


@pytest.mark.parametrize("name, make, needles", CASES, ids=[c[0] for c in CASES])
def test_malformed_feature_files(capsys, tmp_path, name, make, needles):
    folder = tmp_path / "feats"
    folder.mkdir()
    path = make(folder)
    expect_one_line(_run(capsys, tmp_path, path), path.name, *needles)


@pytest.mark.parametrize("ids, needles", [
    ('["img0", "img1", "img1"]', ["[2]", "duplicated image id 'img1' (first at [1])"]),
    ('{"img0": 0}', ["expected a list, got object"]),
    ('["img0", true, "img2"]', ["[1]", "got bool True"]),
    ('["img0", "img1"', ["truncated JSON"]),
], ids=["repeated id", "object", "bool id", "truncated"])
def test_malformed_id_lists(capsys, tmp_path, ids, needles):
    path = _npy(tmp_path / "f.npy", np.ones((3, 4)), ids)
    expect_one_line(_run(capsys, tmp_path, path), "f.ids.json", *needles)


def test_good_features_train_and_pickles_are_never_loaded(capsys, tmp_path, monkeypatch):
    import pickle

    def refuse(*a, **k):
        raise AssertionError("a pickle was loaded")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    path = _npz(tmp_path / "f.npz", _good())
    rc, out, err = _run(capsys, tmp_path, path)
    assert rc == 0 and "Traceback" not in err, err
    bad = _npy(tmp_path / "g.npy", np.array([{"a": 1}] * 3, dtype=object), ["img0", "img1", "img2"])
    expect_one_line(_run(capsys, tmp_path, bad), "g.npy", "never unpickled")
