"""The toy MC questions are a cached artifact holding each question's image path: before, an
absolute path into the harness cache, so a cache moved elsewhere (`mv`, then VQA_HARNESS_CACHE
set to the new folder) gave questions whose images were all in the old, gone folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vqa_harness_plugins.datasets.multiple_choice import toy as toy_mc


def _load(images: int = 8):
    toy_mc._BASE_MEMO.clear()  # as a new process finds it
    return toy_mc.ToyVQAMC(images=images).load("val")


def test_a_moved_cache_gives_questions_about_the_images_where_they_are(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VQA_HARNESS_CACHE", str(tmp_path / "a"))
    before = _load()
    assert all(Path(ex.image).is_file() for ex in before)
    (tmp_path / "a").rename(tmp_path / "b")
    monkeypatch.setenv("VQA_HARNESS_CACHE", str(tmp_path / "b"))
    after = _load()
    assert [ex.image for ex in after] == [ex.image.replace(str(tmp_path / "a"), str(tmp_path / "b")) for ex in before]
    assert all(Path(ex.image).is_file() for ex in after)  # before: every one under the gone folder a/
    assert [ex.to_row() | {"image": ""} for ex in after] == [ex.to_row() | {"image": ""} for ex in before]
    assert not os.path.exists(tmp_path / "a")
