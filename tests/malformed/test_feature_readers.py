"""Malformed feature files for the counter-examples probe (`features=FILE`, also the
explainer's `neighbour_features`) and the attention models' grids (`grid=FILE`): both go
through the `precomputed` extractor's checked reader (`vqa_harness_plugins.models.features.files`), so every
case is one line naming the file and the array, image id or row; never a numpy or zipfile
message without the file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers_malformed import expect_one_line, run_bad, write

from harness.api import Task
from harness.errors import DataError, HarnessError
from harness.testing import ListDataset
from harness.types import Example


def _npz(path: Path, **arrays) -> Path:
    np.savez(path, **arrays)
    return path


def _npy(path: Path, array, ids) -> Path:
    np.save(path, array, allow_pickle=True)
    write(path.with_suffix(".ids.json"), ids if isinstance(ids, str) else json.dumps(ids))
    return path


IDS = np.array(["img0", "img1", "img2"])
GOOD_FEATS = np.arange(6.0).reshape(3, 2)


def _truncated(p: Path) -> Path:
    good = _npz(p / "g.npz", ids=IDS, features=GOOD_FEATS).read_bytes()
    return write(p / "f.npz", good[: len(good) // 2])


# (name, make(folder) -> path, needles)
COUNTER_CASES = [
    ("npz not a zip", lambda p: write(p / "f.npz", b"plain text, no zip"), ["not a valid .npz file", "zip archive"]),
    ("npz truncated", _truncated, ["not a valid .npz file", "damaged or truncated zip archive"]),
    ("npz empty file", lambda p: write(p / "f.npz", b""), ["the file is empty"]),
    ("npz without ids", lambda p: _npz(p / "f.npz", features=GOOD_FEATS), ["expected arrays 'ids' and 'features'"]),
    ("npz string features", lambda p: _npz(p / "f.npz", ids=IDS, features=np.array([["a"], ["b"], ["c"]])),
     ["array 'features'", "expected a numeric array, got dtype <U1"]),
    ("npz object ids", lambda p: _npz(p / "f.npz", ids=np.array([{"a": 1}] * 3, dtype=object), features=GOOD_FEATS),
     ["array 'ids'", "Python objects", "never unpickled"]),
    ("npz float ids", lambda p: _npz(p / "f.npz", ids=np.array([0.5, 1.5, 2.5]), features=GOOD_FEATS),
     ["ids", "expected a 1-D array of strings or integers", "float64"]),
    ("npz repeated id", lambda p: _npz(p / "f.npz", ids=np.array(["a", "b", "a"]), features=GOOD_FEATS),
     ["ids[2]", "duplicated image id 'a' (first at ids[0])"]),
    ("npz rows vs ids", lambda p: _npz(p / "f.npz", ids=IDS, features=np.ones((2, 2))),
     ["array 'features'", "expected 3 rows", "got shape (2, 2)"]),
    ("npz NaN", lambda p: _npz(p / "f.npz", ids=IDS, features=np.array([[1.0], [np.nan], [0.0]])),
     ["array 'features'", "1 non-finite value(s)"]),
    ("npz 1-D features", lambda p: _npz(p / "f.npz", ids=IDS, features=np.ones(3)),
     ["array 'features'", "expected a non-empty 2-D array, got shape (3,)"]),
    ("npy pickled", lambda p: _npy(p / "f.npy", np.array([{"a": 1}] * 3, dtype=object), ["img0", "img1", "img2"]),
     ["not a valid .npy file", "never unpickled"]),
    ("npy truncated", lambda p: write(p / "f.npy", _npy(p / "f.npy", np.ones((3, 50)), list(IDS)).read_bytes()[:300]),
     ["truncated .npy file", "shape (3, 50)"]),
    ("ids.json bool", lambda p: _npy(p / "f.npy", GOOD_FEATS, ["img0", True, "img2"]),
     ["f.ids.json", "[1]", "got bool True"]),
    ("ids.json nested", lambda p: _npy(p / "f.npy", GOOD_FEATS, [["img0"], "img1", "img2"]),
     ["f.ids.json", "[0]", "got list"]),
    ("ids.json huge int", lambda p: _npy(p / "f.npy", GOOD_FEATS, [0, 1, 2**60]),
     ["f.ids.json", "[2]", "out of range [0, 2^53 - 1]"]),
    ("h5 not HDF5", lambda p: write(p / "f.h5", b"not hdf5 at all"), ["not a valid .h5 file", "HDF5"]),
]


@pytest.mark.parametrize("name, make, needles", COUNTER_CASES, ids=[c[0] for c in COUNTER_CASES])
def test_counterexample_feature_files(tmp_path, name, make, needles):
    from vqa_harness_plugins.models.features.candidates import load_feature_file

    folder = tmp_path / "feats"
    folder.mkdir()
    path = make(folder)
    with pytest.raises(DataError) as err:
        load_feature_file(path)
    line = str(err.value)
    assert "\n" not in line and str(path.parent) in line, line
    for needle in needles:
        assert needle in line, f"{needle!r} not in {line!r}"


def test_counterexample_ids_json_with_integers_and_either_sidecar_name(tmp_path):
    from vqa_harness_plugins.models.features.candidates import load_feature_file

    path = _npy(tmp_path / "f.npy", GOOD_FEATS, [10, 11, 12])  # integer ids are accepted as ids
    assert sorted(load_feature_file(path)) == ["10", "11", "12"]
    (tmp_path / "f.ids.json").rename(tmp_path / "f.npy.ids.json")  # the sidecar name documented before
    assert sorted(load_feature_file(path)) == ["10", "11", "12"]


class Pairs(ListDataset):
    name = "tiny-pairs"
    splits = ("val",)
    data = {"val": [Example(id=f"q{i}", question="Is it red?", image_id=f"img{i}", image="", label="yes",
                            answers=("yes",) * 10, pair_id=f"q{i ^ 1}") for i in range(4)]}


def test_the_counterexample_probe_reports_a_bad_file_in_one_line(capsys, tmp_path):
    bad = write(tmp_path / "feats.npz", b"not a zip")
    task = Task("tiny-pairs", "val", ("counter-examples",), probe_options={"counter-examples": {"features": str(bad)}})
    rc, out, err = run_bad(capsys, tmp_path, [task], Pairs)
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in out + err and rc == 1, err  # the probe fails, contained; the run goes on
    assert len(lines) == 1 and "probe counter-examples" in lines[0], err
    assert f"{bad}: not a valid .npz file" in lines[0] and "BadZipFile" not in lines[0]


# ------------------------------------------------------------------ grids (grid=FILE)


def _grid_npy(p: Path, arr, ids=("img0", "img1", "img2")) -> Path:
    return _npy(p / "g.npy", arr, list(ids) if not isinstance(ids, str) else ids)


GRIDS = np.ones((3, 4, 5), np.float32)
GRID_CASES = [
    ("npz not a zip", lambda p: write(p / "g.npz", b"hello"), ["not a valid .npz file", "it starts with b'hell'"]),
    ("npz truncated", lambda p: write(p / "g.npz", _npz(p / "h.npz", img0=GRIDS[0]).read_bytes()[:120]),
     ["not a valid .npz file"]),
    ("npz empty archive", lambda p: _npz(p / "g.npz"), ["no grid arrays (an empty archive)"]),
    ("npy not numpy", lambda p: write(p / "g.npy", b"garbage!"), ["not a valid .npy file", "NumPy array file"]),
    ("npy pickled", lambda p: _grid_npy(p, np.array([{"a": 1}] * 3, dtype=object)), ["never unpickled"]),
    ("npy strings", lambda p: _grid_npy(p, np.full((3, 2, 2), "x")), ["grids", "expected a numeric array, got dtype"]),
    ("npy truncated", lambda p: write(p / "g.npy", _grid_npy(p, np.ones((3, 40, 8))).read_bytes()[:500]),
     ["truncated .npy file", "shape (3, 40, 8)"]),
    ("npy 2-D", lambda p: _grid_npy(p, np.ones((3, 4))), ["expected shape [N, R, D] or [N, H, W, D] with N = 3"]),
    ("npy rows vs ids", lambda p: _grid_npy(p, GRIDS[:2]), ["with N = 3", "got (2, 4, 5)"]),
    ("ids.json ints and bools", lambda p: _grid_npy(p, GRIDS, [0, False, 2]), ["g.ids.json", "[1]", "got bool False"]),
    ("ids.json repeated", lambda p: _grid_npy(p, GRIDS, [0, 1, 0]), ["g.ids.json", "[2]", "duplicated image id '0'"]),
    ("ids.json not a list", lambda p: _grid_npy(p, GRIDS, '{"img0": 0}'), ["g.ids.json", "expected a list, got object"]),
    ("ids.json missing", lambda p: (_grid_npy(p, GRIDS), (p / "g.ids.json").unlink())[0], ["missing file", "g.ids.json"]),
]


@pytest.mark.parametrize("name, make, needles", GRID_CASES, ids=[c[0] for c in GRID_CASES])
def test_grid_files_are_refused_before_any_work(capsys, tmp_path, name, make, needles):
    folder = tmp_path / "grids"
    folder.mkdir()
    path = make(folder)
    result = run_bad(capsys, tmp_path, [Task("tiny-pairs", "val", ("accuracy",))], Pairs, model=f"hiecoatt:grid={path}")
    expect_one_line(result, str(folder), *needles)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


@pytest.mark.parametrize("name, arrays, needles", [
    ("object member", {"img0": np.array([{"a": 1}], dtype=object)}, ["image id 'img0'", "never unpickled"]),
    ("NaN grid", {"img0": np.full((4, 5), np.nan, np.float32)}, ["image id 'img0'", "20 non-finite value(s)"]),
    ("1-D grid", {"img0": np.ones(5)}, ["image id 'img0'", "expected a non-empty 2-D or 3-D array"]),
    ("string grid", {"img0": np.full((2, 2), "a")}, ["image id 'img0'", "expected a numeric array"]),
], ids=lambda v: v if isinstance(v, str) else "")
def test_grid_members_are_checked_when_read(tmp_path, name, arrays, needles):
    from vqa_harness_plugins.models.grid_features import GridFeatures

    path = _npz(tmp_path / "g.npz", **arrays)
    with pytest.raises(HarnessError) as err:
        GridFeatures(str(path), owner="model 'hiecoatt'").one(Example(id="q", question="?", image_id="img0"))
    line = str(err.value)
    assert "\n" not in line and line.startswith(str(path)), line
    for needle in needles:
        assert needle in line, line


def test_a_nan_row_of_a_memory_mapped_grid_names_the_row(tmp_path):
    from vqa_harness_plugins.models.grid_features import GridFeatures

    arr = np.ones((3, 4, 5), np.float32)
    arr[1, 2, 3] = np.inf
    grid = GridFeatures(str(_grid_npy(tmp_path, arr)), owner="m")
    assert grid.one(Example(id="q", question="?", image_id="img0")).shape == (4, 5)
    with pytest.raises(DataError, match=r"g.npy: row 1 \(image id 'img1'\): 1 non-finite value"):
        grid.one(Example(id="q", question="?", image_id="img1"))
