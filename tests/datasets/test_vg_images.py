"""Visual Genome images are found where the release unzips them (VG_100K/, VG_100K_2/)
as well as in visual_genome/images/."""

from __future__ import annotations

import json
from pathlib import Path

from vqa_harness_plugins.datasets.multiple_choice.vg import VisualGenomeQA


def _write(root: Path, n: int = 10) -> None:
    data = [{"id": i, "qas": [{"qa_id": i * 10, "image_id": i, "question": "What color is it?",
                               "answer": ("red", "blue", "green")[i % 3]}]} for i in range(n)]
    (root / "visual_genome").mkdir(parents=True)
    (root / "visual_genome" / "question_answers.json").write_text(json.dumps(data))


def _images(plugin: VisualGenomeQA) -> dict[str, str]:
    return {ex.image_id: ex.image for exs in plugin.all_examples().values() for ex in exs}


def test_images_in_the_release_folders_and_in_images(tmp_path):
    _write(tmp_path)
    vg = tmp_path / "visual_genome"
    for folder, ids in (("VG_100K", (0, 1, 2, 3)), ("VG_100K_2", (3, 4, 5)), ("images", (6,))):
        (vg / folder).mkdir()
        for i in ids:
            (vg / folder / f"{i}.jpg").write_bytes(b"")
    images = _images(VisualGenomeQA(data_dir=tmp_path))
    assert images["0"] == str(vg / "VG_100K" / "0.jpg")
    assert images["3"] == str(vg / "VG_100K" / "3.jpg")  # in both: the first folder wins
    assert images["5"] == str(vg / "VG_100K_2" / "5.jpg")
    assert images["6"] == str(vg / "images" / "6.jpg")
    assert images["9"] == str(vg / "images" / "9.jpg")  # nowhere: named where the layout puts it
    assert VisualGenomeQA(data_dir=tmp_path).image_folders() == [vg / "images", vg / "VG_100K", vg / "VG_100K_2"]


def test_an_explicit_images_folder_is_the_only_one(tmp_path):
    _write(tmp_path)
    (tmp_path / "visual_genome" / "VG_100K").mkdir()
    (tmp_path / "visual_genome" / "VG_100K" / "1.jpg").write_bytes(b"")
    plugin = VisualGenomeQA(data_dir=tmp_path, images=str(tmp_path / "mine"))
    assert _images(plugin)["1"] == str(tmp_path / "mine" / "1.jpg")
    assert plugin.image_folders() == [tmp_path / "mine"]
    assert VisualGenomeQA(data_dir=tmp_path / "empty").image_folders() == [tmp_path / "empty" / "visual_genome" / "images"]
