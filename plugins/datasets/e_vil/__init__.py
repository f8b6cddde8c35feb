"""e-ViL datasets (Kayser et al. 2021): `e-snli-ve`, `vqa-x`, `vcr`.

Files are found under `--data-dir` (layout below) or through the `path=` option:

    <data-dir>/esnlive/esnlive_{train,dev,test}.csv      images: <data-dir>/flickr30k_images/
    <data-dir>/vqax/vqaX_{train,val,test}.json            images: <data-dir>/coco/{train2014,val2014}/
    <data-dir>/vcr/{train,val,test}.jsonl                 images: <data-dir>/vcr/vcr1images/

Every dataset also has pseudo-splits "<split>-fit" and "<split>-eval": a seeded split of
that file BY IMAGE into halves (option `half_seed`), so a trainable explainer can be
fitted on one half and scored on the other when only dev/val is at hand. See docs/e-vil.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping

from harness.api import Option
from harness.digest import digest, file_stamps
from harness.errors import UsageError
from harness.types import Example
from vqa_harness_plugins.validation import answers_option, duplicates_option
from vqa_harness_plugins.validation.accepted import PolicyCounts

from ._common import base_split, data_error, split_file, take_half
from .loaders import ESNLIVE_LABELS, read_esnlive, read_vcr, read_vqax

__all__ = ["ESNLIVE", "VQAX", "VCR", "ESNLIVE_LABELS"]


class _EvilDataset(PolicyCounts):
    """A dataset read from one file per split (plus the seeded halves of each)."""

    folder: ClassVar[str] = ""
    pattern: ClassVar[str] = ""
    image_folder: ClassVar[str] = ""
    real_splits: ClassVar[tuple[str, ...]] = ()
    reader: ClassVar[Callable[..., list[Example]]]
    options: ClassVar[Mapping[str, Option]] = {
        "path": Option("", "explicit file to read (overrides --data-dir lookup; any split name then reads it)"),
        "images": Option("", "image folder (default: under --data-dir, see docs/e-vil.md)"),
        "half_seed": Option(0, "seed of the by-image split into <split>-fit / <split>-eval halves", min=0),
    }
    #: The reader's policy options (`duplicates=`, `answers=`) this dataset offers.
    policies: ClassVar[tuple[str, ...]] = ("duplicates",)
    #: Given to models (loaders.py): the task tag the prompts follow, VCR's movie and rationale choices.
    input_meta = ("task", "movie", "rationale_choices")

    def __init_subclass__(cls, **kw) -> None:
        super().__init_subclass__(**kw)
        if cls.real_splits:
            cls.splits = cls.real_splits + tuple(f"{s}-{h}" for s in cls.real_splits for h in ("fit", "eval"))

    def file(self, split: str) -> Path:
        """The file `split` (or its halves) is read from."""
        base, _ = base_split(split)
        if base not in self.real_splits:
            raise UsageError(f"dataset {self.name!r} has no split {split!r}; splits: {', '.join(self.splits)}")
        return split_file(self.data_dir, self.folder, self.pattern, base, self.config["path"])

    def image_dir(self) -> Path | None:
        if self.config["images"]:
            return Path(self.config["images"]).expanduser()
        return Path(self.data_dir) / self.image_folder if self.data_dir else None

    def expected_files(self, split: str) -> list[Path]:
        return [self.file(split)]

    def image_folders(self) -> list[Path]:
        folder = self.image_dir()
        return [folder] if folder is not None else []

    def load(self, split: str) -> list[Example]:  # type: ignore[override]
        """The split's Examples (a list; the session accepts it like a datasets.Dataset)."""
        _, half = base_split(split)
        path = self.file(split)
        counts: dict[str, Any] = {}
        examples = type(self).reader(path, self.image_dir(), summary=counts,
                                     **{k: self.config[k] for k in self.policies})
        kept = take_half(examples, half, int(self.config["half_seed"]))
        if not hasattr(self, "_summaries"):
            self._summaries: dict[str, dict[str, Any]] = {}
        self._summaries[split] = {"dataset": self.name, "split": split, "file": str(path), **counts,
                                  "examples": len(kept)}
        return kept

    def summary(self, split: str) -> dict[str, Any]:
        """Counts from reading the split's file: rows kept, repeated ids and answer-count
        mismatches accepted under `duplicates=keep-first` / `answers=lenient`."""
        if split not in getattr(self, "_summaries", {}):
            self.load(split)
        return self._summaries[split]

    def fingerprint(self, split: str) -> str:
        """The split's file by its size and modification time, named relative to `--data-dir`."""
        return digest({"dataset": self.name, "split": split, "config": self.config,
                       "file": file_stamps([self.file(split)], root=self.data_dir)})


class ESNLIVE(_EvilDataset):
    name = "e-snli-ve"
    description = "e-SNLI-VE (e-ViL CSV): image-hypothesis entailment with explanations"
    folder, pattern, image_folder = "esnlive", "esnlive_{split}.csv", "flickr30k_images"
    real_splits = ("train", "dev", "test")
    release = ("e-SNLI-VE, e-ViL release (esnlive_{train,dev,test}.csv) — https://github.com/maximek3/e-ViL; "
               "images: Flickr30k — https://shannon.cs.illinois.edu/DenotationGraph/")
    provides = frozenset({"label", "choices", "explanations"})
    reader = staticmethod(read_esnlive)
    options = {**_EvilDataset.options, "duplicates": duplicates_option("pairID")}


class VQAX(_EvilDataset):
    name = "vqa-x"
    description = "VQA-X (JSON): VQA v2 questions with 10 answers and 3 explanations (val/test)"
    folder, pattern, image_folder = "vqax", "vqaX_{split}.json", "coco"
    real_splits = ("train", "val", "test")
    release = ("VQA-X (Park et al. 2018) — https://github.com/Seth-Park/MultimodalExplanations; the JSON files "
               "vqaX_{train,val,test}.json as distributed with NLX-GPT — https://github.com/fawazsammani/nlxgpt; "
               "images: MS COCO 2014 — https://cocodataset.org/#download")
    provides = frozenset({"answers", "answer_type", "question_type", "label", "explanations"})
    reader = staticmethod(read_vqax)
    options = {**_EvilDataset.options, "duplicates": duplicates_option("question id (a key used twice)"),
               "answers": answers_option("10 answers per question")}
    policies = ("duplicates", "answers")


class VCR(_EvilDataset):
    name = "vcr"
    description = "VCR (jsonl): 4-way multiple choice with the correct rationale as explanation"
    folder, pattern, image_folder = "vcr", "{split}.jsonl", "vcr/vcr1images"
    real_splits = ("train", "val", "test")
    release = "VCR 1.0 (annotations and vcr1images) — https://visualcommonsense.com/download/"
    provides = frozenset({"label", "choices", "explanations"})
    labelled_splits = ("train", "val", "train-fit", "train-eval", "val-fit", "val-eval")
    reader = staticmethod(read_vcr)
    options = {**_EvilDataset.options, "duplicates": duplicates_option("annot_id"),
               "answers": answers_option("4 answer choices and 4 rationale choices")}
    policies = ("duplicates", "answers")

    def load(self, split: str) -> list[Example]:  # type: ignore[override]
        """As the base; a labelled split read from a file without labels (the release's
        test.jsonl as val, or `path=` at it) is an error, not S_T = 0."""
        examples = super().load(split)
        if self.is_labelled(split) and examples and not examples[0].label:
            raise data_error(self.file(split), 1, "answer_label",
                             f"missing; split {split!r} is scored against labels (the VCR release's test.jsonl has "
                             "none: read it as split test)")
        return examples
