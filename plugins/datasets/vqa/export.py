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

from harness.errors import DataError, UsageError
from harness.fileio import atomic_write_text
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
    atomic_write_text(files[0], json.dumps({"info": info, "task_type": "Open-Ended", "data_type": "mscoco",
                                            "data_subtype": tag, "questions": questions}))
    atomic_write_text(files[1], json.dumps({"info": info, "data_type": "mscoco", "data_subtype": tag,
                                            "annotations": annotations}))
    atomic_write_text(files[2], json.dumps(pairs))
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
    """Export toyvqa (`variant`, `seed`, `images`, `size`) in the official v2 format. Into an
    earlier export, the splits not exported again are kept (with their ids in the map) when
    they come from the same settings, else refused; files no export wrote are never replaced."""
    settings = {"variant": variant, "seed": seed, "images": images, "size": size}
    id_map: dict[str, dict[str, int]] = _earlier_splits(Path(out), settings, splits)
    toy = ToyVQA(variant=variant, seed=seed, images=images, size=size)
    map_path = Path(out) / "vqa2" / "toy_id_map.json"
    # The map is written first, naming the splits being written: an export killed part-way is
    # then known as such (a rerun completes it) and never looks finished.
    map_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(map_path, json.dumps({"toyvqa": settings, "question_ids": id_map,
                                            "incomplete": sorted(splits)}, sort_keys=True))
    files: list[Path] = []
    for split in splits:
        written, qids = write_vqa2_split(toy.examples(split), split, Path(out), copy_images=copy_images)
        files.extend(written)
        id_map[split] = qids
    atomic_write_text(map_path, json.dumps({"toyvqa": settings, "question_ids": id_map}, sort_keys=True))
    return ExportResult(tuple([*files, map_path]), {s: id_map[s] for s in splits})


def _earlier_splits(out: Path, settings: Mapping[str, object], splits: Sequence[str]) -> dict[str, dict[str, int]]:
    """The id maps of the splits an earlier export into `out` holds and this one keeps: the
    same settings only (train from one toy world and val from another would be one dataset);
    a UsageError when a file to write is there and no export wrote it (real VQA v2 files)."""
    map_path = out / "vqa2" / "toy_id_map.json"
    try:
        earlier = json.loads(map_path.read_text(encoding="utf-8"))
        ids = {s: dict(earlier["question_ids"][s]) for s in earlier["question_ids"]}
        before = dict(earlier["toyvqa"])
        cut = [str(s) for s in _as_list(earlier.get("incomplete", []))]
    except (FileNotFoundError, NotADirectoryError):  # no earlier export (a file in the way is said later)
        for split in splits:
            for name in (f"v2_OpenEnded_mscoco_{SPLIT_TAGS[split]}_questions.json",
                         f"v2_mscoco_{SPLIT_TAGS[split]}_annotations.json"):
                if (out / "vqa2" / name).exists():
                    raise UsageError(f"{out / 'vqa2' / name} exists and was not written by `harness export "
                                     "toy-vqa2` (no toy_id_map.json beside it); choose another --out") from None
        return {}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        raise UsageError(f"{map_path}: not the id map of an earlier toy export (unreadable or damaged); choose "
                         "another --out or remove the folder") from None
    if set(cut) - set(splits):
        raise UsageError(f"--out {out}: an earlier export was interrupted while writing the {' and '.join(cut)} "
                         f"split; export it again (--split {' --split '.join(cut)}) or choose another --out")
    kept = sorted(set(ids) - set(splits))
    if kept and before != dict(settings):
        said = ", ".join(f"{k} {before.get(k)}" for k in ("variant", "images", "size"))
        raise UsageError(f"--out {out} holds the {' and '.join(kept)} split of an export with seed {before.get('seed')} "
                         f"({said}): exporting {' and '.join(splits)} with other settings beside it would mix two "
                         f"toy worlds; export every split again (--split train --split val) or choose another --out")
    return {s: ids[s] for s in kept}


def _as_list(value: object) -> list:
    """`value` when it is a list; a TypeError (a damaged map) otherwise."""
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {type(value).__name__}")
    return value
