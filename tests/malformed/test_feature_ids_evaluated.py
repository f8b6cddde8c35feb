"""An image of the evaluated split that a precomputed feature file lacks stops the run with
one line naming the file, the count and the ids, exit 3, before the probe scores anything
(review finding 10: each such example failed in the model and was scored 0, the accuracy
row published)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from helpers_malformed import expect_one_line, run_bad

from harness.api import Task
from harness.testing import ListDataset
from harness.types import Example


def _mc(split: str, n: int, images: int) -> list[Example]:
    return [Example(id=f"{split}{i}", question=f"What color is thing {i}?", image_id=f"img{i % images}",
                    choices=("red", "blue", "green", "white"), label=("red", "blue")[i % 2]) for i in range(n)]


class NewImageMC(ListDataset):
    name = "tiny-mc-new-image"
    splits = ("train", "val")
    data = {"train": _mc("train", 8, 3), "val": _mc("val", 8, 4)}  # val asks about img3 too


def test_an_evaluated_image_missing_from_the_features_is_one_line(capsys, tmp_path: Path, fresh_cache):
    features = tmp_path / "f.npz"
    np.savez(features, **{f"img{i}": np.arange(4, dtype=np.float32) + i for i in range(3)})
    task = Task("tiny-mc-new-image", "val", ("decoys",), train=("tiny-mc-new-image", "train"))
    result = run_bad(capsys, tmp_path, [task], NewImageMC,
                     model=f"mlp-ia:image_features={features},epochs=1,hidden=8")
    expect_one_line(result, str(features), "1 unknown image id(s)", "img3")
