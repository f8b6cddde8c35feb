"""`visual7w`: the Visual7W telling release (`dataset_v7w_telling.json`).

Layout: {"images": [{"image_id", "filename", "split", "qa_pairs": [{"qa_id", "image_id",
"question", "answer", "multiple_choices", "type"}]}]}. Answers are normalized as the
release expects (lower case, trailing period stripped). `decoys=` selects the candidates;
IoU/QoU decoys come from the authors' released decoy file (`decoy_file=`, per qa_id
`IoU_decoys` / `QoU_decoys`) or, without one, from the generator (cached).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Mapping

from harness.api import DatasetPlugin, Option
from harness.decoys import normalize_release, read_decoy_file
from harness.errors import DataError, UsageError
from harness.jsonio import read_json
from harness.types import Example

from .mc import MC_OPTIONS, attach_decoys, check_orig_decoys, decoy_config, generated_decoys

__all__ = ["Visual7W", "released_sets"]


def released_sets(path: Path, examples_by_id: Mapping[str, Example], all_ids: set[str]) -> dict[str, dict[str, list[str]]]:
    """Read a released decoy file; DataError (count, examples) for qa_ids with no question
    and for decoys equal to their target."""
    data = read_decoy_file(path)
    orphans = [q for q in data if q not in all_ids]
    if orphans:
        raise DataError(f"{path}: {len(orphans)} qa_id(s) have no question in the dataset "
                        f"(e.g. {', '.join(orphans[:5])})")
    equal = []
    sets = {}
    for qa_id, entry in data.items():
        ex = examples_by_id.get(qa_id)
        iou = [normalize_release(d) for d in entry["IoU_decoys"]]
        qou = [normalize_release(d) for d in entry["QoU_decoys"]]
        if ex is not None and normalize_release(ex.meta["mc_target"]) in iou + qou:
            equal.append(qa_id)
        sets[qa_id] = {"iou": iou, "qou": qou}
    if equal:
        raise DataError(f"{path}: {len(equal)} qa_id(s) list the target as a decoy (e.g. {', '.join(equal[:5])})")
    return sets


class Visual7W(DatasetPlugin):
    """Visual7W telling: 4 candidates per question (target + 3 human decoys)."""

    name = "visual7w"
    description = "Visual7W telling QA (multiple choice; Orig, IoU, QoU, IoU+QoU, All decoy sets)"
    splits: ClassVar[tuple[str, ...]] = ("train", "val", "test")
    options: ClassVar[Mapping[str, Option]] = {
        "file": Option("visual7w/dataset_v7w_telling.json", "telling JSON (relative to --data-dir)"),
        "images": Option("visual7w/images", "image folder (relative to --data-dir)"),
        "decoy_file": Option("", "released decoy JSON (per qa_id IoU_decoys, QoU_decoys); empty: generate"),
        **MC_OPTIONS,
    }

    def _path(self, value: str) -> Path:
        p = Path(value)
        return p if p.is_absolute() else (self.data_dir or Path.cwd()) / p

    def expected_files(self, split: str) -> list[Path]:
        files = [self._path(self.config["file"])]
        if self.config["decoy_file"]:
            files.append(self._path(self.config["decoy_file"]))
        return files

    def all_examples(self) -> dict[str, list[Example]]:
        """Every split's examples (MC fields in meta), parsed and checked."""
        path = self._path(self.config["file"])
        data = read_json(path, "Visual7W telling file; see docs/decoys.md")
        images = data.get("images") if isinstance(data, dict) else None
        if not isinstance(images, list):
            raise DataError(f"{path}: expected {{\"images\": [...]}}")
        out: dict[str, list[Example]] = {s: [] for s in self.splits}
        mismatched: list[str] = []
        folder = self._path(self.config["images"])
        for i, img in enumerate(images):
            try:
                image_id, split, pairs = str(img["image_id"]), img["split"], img["qa_pairs"]
                filename = img.get("filename", "")
            except (KeyError, TypeError) as exc:
                raise DataError(f"{path}: images[{i}]: missing field {exc}") from None
            if split not in out:
                raise DataError(f"{path}: images[{i}].split: {split!r} is not one of {', '.join(self.splits)}")
            for j, qa in enumerate(pairs):
                try:
                    qa_id, question, answer = str(qa["qa_id"]), qa["question"], qa["answer"]
                    mc = list(qa.get("multiple_choices", []))
                except (KeyError, TypeError) as exc:
                    raise DataError(f"{path}: images[{i}].qa_pairs[{j}]: missing field {exc}") from None
                if "image_id" in qa and str(qa["image_id"]) != image_id:
                    mismatched.append(qa_id)
                target = normalize_release(answer)
                out[split].append(Example(
                    id=qa_id, question=question, image_id=image_id,
                    image=str(folder / filename) if filename else "",
                    question_type=str(qa.get("type", "")), label=target,
                    meta={"mc_target": target, "decoys": {"orig": [normalize_release(d) for d in mc]},
                          "type": qa.get("type", "")},
                ))
        if mismatched:
            raise DataError(f"{path}: {len(mismatched)} qa_pair(s) name an image_id other than their image's "
                            f"(unknown image ids; e.g. qa_id {', '.join(mismatched[:5])})")
        return out

    def load(self, split: str) -> list[Example]:  # type: ignore[override]
        if split not in self.splits:
            raise UsageError(f"dataset 'visual7w' has no split {split!r}; splits: {', '.join(self.splits)}")
        every = self.all_examples()
        examples = every[split]
        source = f"{self.config['file']} ({split})"
        check_orig_decoys(examples, source)
        if self.config["decoy_file"]:
            all_ids = {ex.id for exs in every.values() for ex in exs}
            sets = released_sets(self._path(self.config["decoy_file"]), {e.id: e for e in examples}, all_ids)
        elif self.config["decoys"] == "orig":
            sets = {}
        else:
            key = {"dataset": "visual7w", "file": str(self._path(self.config["file"])), "split": split,
                   "size": self._path(self.config["file"]).stat().st_size}
            sets = generated_decoys(examples, decoy_config(self.config), key=key, source=source)
        return attach_decoys(examples, sets, variant=self.config["decoys"], seed=int(self.config["decoy_seed"]),
                             scoring="target", source=source)
