"""`visual-genome-qa`: Visual Genome `question_answers.json` as a decoy dataset.

Layout: [{"id": image_id, "qas": [{"qa_id", "image_id", "question", "answer"}]}]. Visual
Genome has no decoys and no official QA split, so, as in Chao et al. 2018 §5.1, images are
split 50% / 20% / 30% into train / val / test: images ordered by SHA-256 of
(`split_seed`, image_id), the first half train, the next fifth val, the rest test (the
paper also makes each part a superset of the matching Visual7W part; that needs the
Visual7W file and is not done here). Decoys come from the generator (fill-ins from the 10
most frequent targets) or a released decoy file. Images: <image_id>.jpg in the `images=`
folder; with the default, also in visual_genome/VG_100K/ and VG_100K_2/ (the release's two
zips unpack into these), so the images need not be moved.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar, Mapping

from harness.api import Option
from harness.digest import digest_bytes, file_stamps
from harness.errors import DataError, UsageError
from harness.jsonio import read_json
from harness.types import Example
from vqa_harness_plugins.generators.decoys import normalize_release
from vqa_harness_plugins.validation import (
    Field,
    Tally,
    check_nonempty,
    check_record,
    describe,
    duplicates_option,
)
from vqa_harness_plugins.validation.accepted import PolicyCounts

from .mc import (
    MC_OPTIONS,
    attach_decoys,
    decoy_config,
    generated_decoys,
    generation_summary,
    with_generator,
)
from .visual7w import check_normalized, released_file, released_fingerprint, released_sets

__all__ = ["VisualGenomeQA", "split_images", "SPLIT_SHARES", "IMAGE", "QA", "DEFAULT_IMAGES", "RELEASE_IMAGES"]

#: Record formats of question_answers.json (vqa_harness_plugins.validation schemas).
IMAGE = {"id": Field("key"), "qas": Field("list")}
QA = {"qa_id": Field("key"), "question": Field("text"), "answer": Field("text"), "image_id": Field("key", required=False)}

SPLIT_SHARES = (("train", 0.5), ("val", 0.2), ("test", 0.3))
#: The default image folder, and the folders the release's two zips unpack into (relative
#: to --data-dir), searched in this order for <image_id>.jpg with the default `images=`.
DEFAULT_IMAGES = "visual_genome/images"
RELEASE_IMAGES = ("visual_genome/VG_100K", "visual_genome/VG_100K_2")
#: Where `decoy_file=auto` looks for released decoys (relative to --data-dir).
AUTO_DECOYS = "visual_genome/decoys.json"


def split_images(image_ids: list[str], seed: int) -> dict[str, str]:
    """image_id -> split, 50/20/30 in SHA-256(seed, image_id) order (independent of file order)."""
    ordered = sorted(set(image_ids), key=lambda i: digest_bytes(f"vg-split/{seed}/{i}".encode()))
    n = len(ordered)
    n_train, n_val = round(n * 0.5), round(n * 0.2)
    out = {}
    for k, image_id in enumerate(ordered):
        out[image_id] = "train" if k < n_train else ("val" if k < n_train + n_val else "test")
    return out


class VisualGenomeQA(PolicyCounts):
    """Visual Genome QA pairs, multiple choice with generated decoys."""

    name = "visual-genome-qa"
    description = "Visual Genome question_answers.json, 50/20/30 split by image, generated IoU/QoU decoys"
    release = ("Visual Genome 1.2 (question_answers.json, images) — https://visualgenome.org/api/v0/api_home.html; "
               "Chao et al.'s decoys — http://www.teds.usc.edu/website_vqa/")
    provides = frozenset({"choices", "label"})
    splits: ClassVar[tuple[str, ...]] = ("train", "val", "test")
    options: ClassVar[Mapping[str, Option]] = {
        "file": Option("visual_genome/question_answers.json", "question_answers.json (relative to --data-dir)"),
        "images": Option(DEFAULT_IMAGES, "image folder (<image_id>.jpg); by default also visual_genome/VG_100K and "
                                         "VG_100K_2, the folders the release unzips into"),
        "split_seed": Option(0, "seed of the 50/20/30 split by image", min=0),
        "decoy_file": Option("auto", "released decoy JSON; auto: visual_genome/decoys.json when present, "
                                     "else generated; empty: generate"),
        "duplicates": duplicates_option("qa_id"),
        **{**MC_OPTIONS, "decoys": Option("iou+qou", MC_OPTIONS["decoys"].help,
                                          choices=("iou", "qou", "iou+qou", "all"))},
    }

    def _path(self, value: str) -> Path:
        p = Path(value)
        return p if p.is_absolute() else (self.data_dir or Path.cwd()) / p

    def _image_dirs(self) -> list[Path]:
        """Where <image_id>.jpg is looked up: the `images=` folder, and with the default also
        the release's VG_100K/ and VG_100K_2/."""
        extra = RELEASE_IMAGES if self.config["images"] == DEFAULT_IMAGES else ()
        return [self._path(f) for f in (self.config["images"], *extra)]

    def image_folders(self) -> list[Path]:
        """The image folders present (the `images=` folder when none is)."""
        dirs = self._image_dirs()
        return [d for d in dirs if os.path.isdir(d)] or dirs[:1]  # False, not an error, where it cannot be searched

    def _image_paths(self, image_ids: list[str]) -> dict[str, str]:
        """image_id -> the first folder holding <image_id>.jpg (one listing per folder);
        the `images=` folder's path when no folder holds it (a missing image is named there)."""

        wanted = {f"{i}.jpg": i for i in image_ids}
        found: dict[str, str] = {}
        dirs = self._image_dirs()
        for folder in dirs if len(dirs) > 1 else ():
            try:
                with os.scandir(folder) as it:
                    for entry in it:
                        image_id = wanted.get(entry.name)
                        if image_id is not None and image_id not in found:
                            found[image_id] = str(folder / entry.name)
            except OSError:
                continue
        return {i: found.get(i) or str(dirs[0] / f"{i}.jpg") for i in image_ids}

    def expected_files(self, split: str) -> list[Path]:
        files = [self._path(self.config["file"])]
        if self.config["decoy_file"] not in ("", "auto"):
            files.append(self._path(self.config["decoy_file"]))
        return files

    def fingerprint(self, split: str) -> str:
        """The default fingerprint and the released decoy file (`decoy_file=auto` included)."""
        base = released_fingerprint(super().fingerprint(split), self.config["decoy_file"], self._path, AUTO_DECOYS,
                                    self.data_dir)
        return with_generator(base, self.decoy_file() is None)

    def all_examples(self) -> dict[str, list[Example]]:
        """Every split's examples, parsed and checked (repeated qa_ids follow `duplicates=`,
        counted in `summary()`)."""
        path = self._path(self.config["file"])
        data = read_json(path, "Visual Genome question_answers.json; see docs/decoys.md",
                             duplicate_keys="error")
        if not isinstance(data, list):
            raise DataError(f"{path}: expected a list of images with `qas` (Visual Genome format), got {describe(data)}")
        check_nonempty(data, path, "images", "an empty list")
        tally = Tally(path, id_name="qa_id", duplicates=self.config["duplicates"])
        rows, mismatched = [], []
        for i, img in enumerate(data):
            check_record(img, IMAGE, path, f"[{i}]")
            image_id = str(img["id"]).strip()  # as the QA pairs' image_id (and Visual7W's ids)
            for j, qa in enumerate(img["qas"]):
                row = f"[{i}].qas[{j}]"
                check_record(qa, QA, path, row)
                qa_id = str(qa["qa_id"]).strip()
                if not tally.seen(qa_id, row):
                    continue
                if "image_id" in qa and str(qa["image_id"]).strip() != image_id:
                    mismatched.append(qa_id)
                target = normalize_release(qa["answer"])
                check_normalized(target, path, row, "answer")
                rows.append((image_id, qa_id, qa["question"].strip(), target))
        if mismatched:
            raise DataError(f"{path}: {len(mismatched)} QA pair(s) name an image_id other than their image's "
                            f"(unknown image ids; e.g. qa_id {', '.join(mismatched[:5])})")
        self._load_summary = {"file": str(path), **tally.summary()}
        split_of = split_images([r[0] for r in rows], int(self.config["split_seed"]))
        image_of = self._image_paths(list(split_of))
        out: dict[str, list[Example]] = {s: [] for s in self.splits}
        for image_id, qa_id, question, target in rows:
            out[split_of[image_id]].append(Example(
                id=qa_id, question=question, image_id=image_id, image=image_of[image_id],
                label=target, meta={"mc_target": target, "decoys": {"orig": []}},
            ))
        return out

    def summary(self, split: str) -> dict[str, Any]:
        """Counts from reading the file: repeated qa_ids kept-first under duplicates=keep-first."""
        if not hasattr(self, "_load_summary"):
            self.all_examples()
        found = self.decoy_file()
        generated = {} if found else generation_summary(decoy_config(self.config), self._generation_key(split))
        return {"dataset": self.name, "split": split, **self._load_summary,
                "decoy_source": f"released:{found}" if found else "generated", **generated}

    def _generation_key(self, split: str) -> dict[str, Any]:
        """What generated decoys depend on: the file (size and modification time), the split
        and the seed that draws it."""
        (name, size, mtime_ns), = file_stamps([self._path(self.config["file"])], root=self.data_dir)
        return {"dataset": "visual-genome-qa", "file": name, "size": size, "mtime_ns": mtime_ns,
                "split": split, "split_seed": self.config["split_seed"]}

    def decoy_file(self) -> Path | None:
        """The released decoy file used (None: decoys are generated)."""
        return released_file(self.config["decoy_file"], self._path, AUTO_DECOYS)

    def load(self, split: str, limit: int | None = None) -> list[Example]:  # type: ignore[override]
        """The split with the `decoys=` candidates; with `limit` (`--limit`) its first `limit`
        questions, whose decoys are generated from the whole split as in a full run."""
        if split not in self.splits:
            raise UsageError(f"dataset 'visual-genome-qa' has no split {split!r}; splits: {', '.join(self.splits)}")
        every = self.all_examples()
        examples = every[split]
        check_nonempty(examples, self._path(self.config["file"]), f"questions in split {split!r}",
                       f"images are split 50/20/30 by split_seed={self.config['split_seed']}; too few images?")
        source = f"{self.config['file']} ({split})"
        kept = examples if limit is None else examples[:limit]
        released = self.decoy_file()
        if released is not None:
            all_ids = {ex.id for exs in every.values() for ex in exs}
            sets = released_sets(released, {e.id: e for e in kept}, all_ids,
                                 duplicates=self.config["duplicates"], variant=self.config["decoys"])
        else:
            sets = generated_decoys(examples, decoy_config(self.config), key=self._generation_key(split),
                                    source=source, limit=limit)
        # Generated sets may leave a question without a valid decoy: the probes leave it out
        # and count it (as for Visual7W). Released files must be complete.
        return attach_decoys(kept, sets, variant=self.config["decoys"], seed=int(self.config["decoy_seed"]),
                             scoring="target", source=source,
                             allow_partial=released is None and self.config["decoys"] != "orig")
