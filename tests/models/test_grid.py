"""Grid features: toy cells read from a rendered toyvqa scene, toy patches, .npy/.npz files
(shapes, flattening, blank images, unknown ids, bad shapes)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from harness.errors import DataError, UsageError
from harness.types import BLANK_IMAGE, Example
from vqa_harness_plugins.datasets.toyvqa.render import render
from vqa_harness_plugins.datasets.toyvqa.world import COLORS, NOUNS, SIZES, Obj, Scene
from vqa_harness_plugins.models.grid_features import GridFeatures


def _ex(image_id: str, image: str = "") -> Example:
    return Example(id=f"q-{image_id}", question="?", image_id=image_id, image=image or f"/none/{image_id}.png")


def test_toy_cells_read_the_objects_of_each_cell(tmp_path: Path) -> None:
    path = tmp_path / "scene.png"
    render(Scene((Obj("ball", "red", "large", 4, 0.5, 0.5), Obj("cup", "blue", "small", 0, 0.2, 0.7))), 64).save(path)
    grid = GridFeatures("toy-cells", owner="test").one(_ex("s", str(path)))
    assert grid.shape == (9, len(NOUNS) + len(COLORS) + len(SIZES) + 1)
    colors = tuple(COLORS)

    def expected(noun: str, color: str, size: str) -> np.ndarray:
        row = np.zeros(grid.shape[1], np.float32)
        row[[NOUNS.index(noun), len(NOUNS) + colors.index(color), len(NOUNS) + len(colors) + SIZES.index(size), -1]] = 1
        return row

    assert np.array_equal(grid[4], expected("ball", "red", "large"))
    assert np.array_equal(grid[0], expected("cup", "blue", "small"))
    assert not grid[[1, 2, 3, 5, 6, 7, 8]].any()
    patches = GridFeatures("toy-patches", owner="test")
    cells = patches.one(_ex("s", str(path)))
    assert cells.shape == (9, 108) and not cells[8].any() and cells[4].any()  # background is zero
    assert not patches.one(_ex("blank", BLANK_IMAGE)).any()
    with pytest.raises(DataError, match="1 image file"):
        patches.check([_ex("missing")])


def test_files_flatten_grids_and_name_unknown_ids(tmp_path: Path) -> None:
    arr = np.arange(2 * 2 * 3 * 4, dtype=np.float32).reshape(2, 2, 3, 4)  # N=2 images of 2x3 regions
    np.save(tmp_path / "g.npy", arr)
    (tmp_path / "g.ids.json").write_text(json.dumps(["a", "b"]))
    grid = GridFeatures(str(tmp_path / "g.npy"), owner="model 'm'")
    assert not grid.reads_image_files
    bank, rows = grid.bank([_ex("b"), _ex("a"), _ex("b"), _ex("x", BLANK_IMAGE)])
    assert bank.shape == (3, 6, 4) and rows.tolist() == [0, 1, 0, 2]
    assert np.array_equal(bank[0], arr[1].reshape(6, 4)) and not bank[2].any()
    with pytest.raises(DataError, match="1 unknown image id"):
        grid.check([_ex("a"), _ex("zz")])
    np.savez(tmp_path / "g.npz", a=np.ones((5, 3), np.float32))
    assert GridFeatures(str(tmp_path / "g.npz"), owner="m").one(_ex("a")).shape == (5, 3)
    np.save(tmp_path / "bad.npy", np.ones((3, 4), np.float32))
    (tmp_path / "bad.ids.json").write_text(json.dumps(["a", "b", "c"]))
    with pytest.raises(DataError, match=r"expected shape \[N, R, D\]"):
        GridFeatures(str(tmp_path / "bad.npy"), owner="m").one(_ex("a"))
    with pytest.raises(UsageError, match="must be one of toy-cells, toy-patches or a .npz / .npy file"):
        GridFeatures("grid.txt", owner="m")
