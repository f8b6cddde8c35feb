"""Writing the toy benchmark in the official VQA v2 file format.

`export_toy_vqa2(out, variant=...)` writes a `--data-dir` layout that `vqa2` reads back
(docs/datasets.md):

    out/vqa2/v2_OpenEnded_mscoco_{train2014,val2014}_questions.json
    out/vqa2/v2_mscoco_{train2014,val2014}_annotations.json
    out/vqa2/v2_mscoco_{train2014,val2014}_complementary_pairs.json
    out/vqa2/toy_id_map.json          (not official: toy id -> question id, per split)
    out/coco/{train2014,val2014}/COCO_<folder>_<image_id:012d>.jpg

Official ids are integers: image ids are numbered in order of first appearance (val from
1,000,001 so they never collide with train), and question ids follow the official
convention `image_id * 1000 + k` (k = position of the question on its image). Toy images
are copied byte for byte under the COCO names: they stay PNG-encoded (Pillow decodes by
content), so models see exactly the toy pixels. Fields the official format has no room
for (toy `choices`, `explanations`, `meta`) are not exported.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from harness.errors import DataError
from harness.types import Example
from vqa_harness_plugins.datasets.toyvqa import ToyVQA

from .loaders import IMAGE_FOLDERS, SPLIT_TAGS
from .official import image_path

__all__ = ["ExportResult", "export_toy_vqa2", "write_vqa2_split", "IMAGE_ID_BASE"]

#: First image id of each split.
IMAGE_ID_BASE: Mapping[str, int] = {"train": 1, "val": 1_000_001}


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote: the files and, per split, toy example id -> question id."""

    files: tuple[Path, ...]
    id_map: Mapping[str, Mapping[str, int]]


def write_vqa2_split(examples: Sequence[Example], split: str, out: Path, *, copy_images: bool = True
                     ) -> tuple[list[Path], dict[str, int]]:
    """Write one split of `examples` in the official v2 format under `out`."""
    tag, folder = SPLIT_TAGS[split], IMAGE_FOLDERS[split]
    image_ids: dict[str, int] = {}
    per_image: dict[str, int] = {}
    qids: dict[str, int] = {}
    questions, annotations = [], []
    for ex in examples:
        if ex.image_id not in image_ids:
            image_ids[ex.image_id] = IMAGE_ID_BASE[split] + len(image_ids)
        img = image_ids[ex.image_id]
        k = per_image.get(ex.image_id, 0)
        if k >= 1000:
            raise DataError(f"export: image {ex.image_id!r} has more than 1000 questions")
        per_image[ex.image_id] = k + 1
        qid = img * 1000 + k
        qids[ex.id] = qid
        questions.append({"image_id": img, "question": ex.question, "question_id": qid})
        annotations.append({
            "question_id": qid, "image_id": img, "question_type": ex.question_type,
            "answer_type": ex.answer_type, "multiple_choice_answer": ex.label,
            "answers": [{"answer": a, "answer_confidence": "yes", "answer_id": j + 1}
                        for j, a in enumerate(ex.answers)],
        })
    pairs, seen = [], set()
    for ex in examples:
        if ex.pair_id and ex.pair_id in qids and ex.id not in seen:
            pairs.append([qids[ex.id], qids[ex.pair_id]])
            seen.update((ex.id, ex.pair_id))
    root = Path(out) / "vqa2"
    root.mkdir(parents=True, exist_ok=True)
    files = [root / f"v2_OpenEnded_mscoco_{tag}_questions.json",
             root / f"v2_mscoco_{tag}_annotations.json",
             root / f"v2_mscoco_{tag}_complementary_pairs.json"]
    info = {"description": "toyvqa exported in the VQA v2 format", "data_subtype": tag}
    files[0].write_text(json.dumps({"info": info, "task_type": "Open-Ended", "data_type": "mscoco",
                                    "data_subtype": tag, "questions": questions}))
    files[1].write_text(json.dumps({"info": info, "data_type": "mscoco", "data_subtype": tag,
                                    "annotations": annotations}))
    files[2].write_text(json.dumps(pairs))
    if copy_images:
        copied: set[Path] = set()
        for ex in examples:
            target = Path(image_path(Path(out) / "coco", folder, image_ids[ex.image_id]))
            # Once per image of this export (its questions share it); an image an earlier export
            # left under the same name (another seed or size) is replaced, never kept.
            if ex.image and target not in copied:
                copied.add(target)
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    shutil.copyfile(ex.image, target)
                except OSError as exc:
                    raise DataError(f"export: cannot copy image {ex.image} ({exc.strerror})") from None
                files.append(target)
    return files, qids


def export_toy_vqa2(out: Path, *, variant: str = "balanced", seed: int = 0, images: int = 0,
                    size: int = 64, splits: Sequence[str] = ("train", "val"),
                    copy_images: bool = True) -> ExportResult:
    """Export toyvqa (`variant`, `seed`, `images`, `size`) in the official v2 format."""
    toy = ToyVQA(variant=variant, seed=seed, images=images, size=size)
    files: list[Path] = []
    id_map: dict[str, dict[str, int]] = {}
    for split in splits:
        written, qids = write_vqa2_split(toy.examples(split), split, Path(out), copy_images=copy_images)
        files.extend(written)
        id_map[split] = qids
    map_path = Path(out) / "vqa2" / "toy_id_map.json"
    map_path.write_text(json.dumps({"toyvqa": {"variant": variant, "seed": seed, "images": images, "size": size},
                                    "question_ids": id_map}, sort_keys=True))
    return ExportResult(tuple([*files, map_path]), id_map)
