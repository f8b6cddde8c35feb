"""Dataset plugins `vqa2` and `vqa1`: the official VQA files under `--data-dir`.

Layout (docs/datasets.md): `<data-dir>/vqa2/` (or `root=`) holds the JSON files,
`<data-dir>/coco/` (or `images=`) the COCO image folders `train2014/`, `val2014/`,
`test2015/`. Splits `train` and `val` have annotations; `test-dev` and `test` do not, so
runs only export predictions for them (`labelled_splits`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from harness.api import Option
from harness.errors import UsageError
from harness.paths import cache_dir
from vqa_harness_plugins.generators.decoys import normalize_for_match
from vqa_harness_plugins.validation import Tally, answers_option, duplicates_option, fail
from vqa_harness_plugins.validation.accepted import PolicyCounts

from .arrow_cache import cache_key, cached_dataset, read_summary
from .official import (
    N_ANSWERS,
    build_columns,
    parse_annotations,
    parse_pairs,
    parse_questions,
    read_json,
)

if TYPE_CHECKING:  # pragma: no cover
    import datasets

__all__ = ["OfficialVQA", "VQA1", "VQA2", "SPLIT_TAGS", "IMAGE_FOLDERS"]

#: User-facing split -> the tag in the official file names.
SPLIT_TAGS: Mapping[str, str] = {"train": "train2014", "val": "val2014",
                                 "test-dev": "test-dev2015", "test": "test2015"}
#: User-facing split -> COCO image folder (test-dev images live in test2015).
IMAGE_FOLDERS: Mapping[str, str] = {"train": "train2014", "val": "val2014",
                                    "test-dev": "test2015", "test": "test2015"}


class OfficialVQA(PolicyCounts):
    """Shared reader of the official VQA files (v1 and v2 differ in names and extras)."""

    splits: ClassVar[tuple[str, ...]] = ("train", "val", "test-dev", "test")
    labelled_splits: ClassVar[tuple[str, ...] | None] = ("train", "val")
    prefix: ClassVar[str] = ""
    default_root: ClassVar[str] = ""
    options: ClassVar[Mapping[str, Option]] = {
        "root": Option("", "folder of the JSON files (relative to --data-dir; default <data-dir>/vqa2 or vqa1)"),
        "images": Option("", "folder holding the COCO image folders (relative to --data-dir; default <data-dir>/coco)"),
        "duplicates": duplicates_option("question_id (in the questions or the annotations file)"),
        "answers": answers_option("10 human answers per annotation (VQA v1: 18 multiple choices)"),
    }

    # ------------------------------------------------------------------ paths
    def _resolve(self, value: str, default: str) -> Path:
        path = Path(value or default)
        if not path.is_absolute():
            path = (self.data_dir or Path.cwd()) / path
        return path

    @property
    def root(self) -> Path:
        """Folder of the JSON files."""
        return self._resolve(self.config["root"], self.default_root)

    @property
    def images_root(self) -> Path:
        """Folder holding train2014/, val2014/, test2015/."""
        return self._resolve(self.config["images"], "coco")

    def _check(self, split: str) -> str:
        if split not in self.splits:
            raise UsageError(f"dataset {self.name!r} has no split {split!r}; splits: {', '.join(self.splits)}")
        return SPLIT_TAGS[split]

    def questions_file(self, split: str) -> Path:
        return self.root / f"{self.prefix}OpenEnded_mscoco_{self._check(split)}_questions.json"

    def annotations_file(self, split: str) -> Path:
        return self.root / f"{self.prefix}mscoco_{self._check(split)}_annotations.json"

    def extra_files(self, split: str) -> list[Path]:
        """Version-specific files (v2: complementary pairs)."""
        return []

    def expected_files(self, split: str) -> list[Path]:
        """Files `load(split)` needs: questions, annotations (labelled splits), extras."""
        files = [self.questions_file(split)]
        if self.is_labelled(split):
            files.append(self.annotations_file(split))
        return files + self.extra_files(split)

    def optional_files(self, split: str) -> list[Path]:
        """Files read when present (v1: the MultipleChoice questions with 18 choices)."""
        return []

    def image_folders(self) -> list[Path]:
        """The COCO folders of the splits (train2014, val2014, test2015)."""
        return [self.images_root / f for f in dict.fromkeys(IMAGE_FOLDERS.values())]

    # ------------------------------------------------------------------- load
    def source_files(self, split: str) -> list[Path]:
        """The files the split is read from: the expected ones and the optional ones present."""
        return self.expected_files(split) + [p for p in self.optional_files(split) if p.is_file()]

    def load(self, split: str) -> "datasets.Dataset":
        """The split as an Arrow `datasets.Dataset` (parsed once, then cached)."""
        table, _ = cached_dataset(self._key(split), lambda: self._parse(split), recheck=lambda: self._key(split))
        return table

    def _key(self, split: str) -> str:
        """The parsed split's cache key: loader version, options, the source files' stat."""
        return cache_key(self.name, split, {**self.config, "images_root": str(self.images_root)},
                         self.source_files(split))

    def summary(self, split: str) -> dict[str, Any]:
        """Counts from parsing `split` (questions, pairs used, pairs with unknown ids)."""
        key = self._key(split)
        summary = read_summary(cache_dir("vqa-official") / key)
        if not summary:
            _, summary = cached_dataset(key, lambda: self._parse(split), recheck=lambda: self._key(split))
        return summary

    def _pairs(self, split: str, questions: Mapping[int, Any]) -> tuple[dict[int, int], dict[str, Any]]:
        return {}, {}

    def _tally(self, path: Path, expected: int | None = None) -> Tally:
        return Tally(path, id_name="question_id", duplicates=self.config["duplicates"],
                     answers=self.config["answers"], expected=expected)

    def _parse(self, split: str) -> tuple[dict[str, list], dict[str, Any]]:
        qpath = self.questions_file(split)
        qtally = self._tally(qpath)
        # A key twice in one record is an error (json.loads would keep the last value silently).
        questions = parse_questions(read_json(qpath, duplicate_keys="error"), qpath, with_choices=True,
                                    tally=qtally)
        tallies = [qtally] + self._add_choices(split, questions)
        annotations = None
        apath = None
        if self.is_labelled(split):
            apath = self.annotations_file(split)
            atally = self._tally(apath, N_ANSWERS)
            annotations = parse_annotations(read_json(apath, duplicate_keys="error"), apath, tally=atally)
            tallies.append(atally)
        partner, summary = self._pairs(split, questions)
        cols = build_columns(questions, annotations, partner, questions_path=qpath, annotations_path=apath,
                             images_root=self.images_root, image_folder=IMAGE_FOLDERS[split])
        summary = {"dataset": self.name, "split": split, "questions": len(questions),
                   "labelled": annotations is not None, **summary, **_merge(tallies)}
        return cols, summary

    def _add_choices(self, split: str, questions: dict[int, dict[str, Any]]) -> list[Tally]:
        return []


def _merge(tallies: list[Tally]) -> dict[str, Any]:
    """One load summary from the questions / annotations / choices tallies (counts added)."""
    out: dict[str, Any] = {}
    for tally in tallies:
        for key, value in tally.summary().items():
            if key.endswith("_shown"):
                out[key] = (out.get(key, []) + value)[: Tally.SHOWN]
            elif isinstance(value, int) and key != "expected_answers":
                out[key] = out.get(key, 0) + value
            else:
                out.setdefault(key, value)
    return out


class VQA2(OfficialVQA):
    """VQA v2 (balanced): questions, annotations and complementary pairs."""

    name = "vqa2"
    description = "VQA v2 (balanced, complementary pairs) from the official files under --data-dir"
    prefix = "v2_"
    default_root = "vqa2"
    release = ("VQA v2 (questions, annotations, complementary pairs) — https://visualqa.org/download.html; "
               "images: MS COCO train2014, val2014, test2015 — https://cocodataset.org/#download")
    provides = frozenset({"answers", "answer_type", "question_type", "label", "pair_id"})

    def pairs_file(self, split: str) -> Path:
        return self.root / f"v2_mscoco_{self._check(split)}_complementary_pairs.json"

    def extra_files(self, split: str) -> list[Path]:
        return [self.pairs_file(split)] if split in ("train", "val") else []

    def _pairs(self, split: str, questions: Mapping[int, Any]) -> tuple[dict[int, int], dict[str, Any]]:
        if split not in ("train", "val"):
            return {}, {}
        path = self.pairs_file(split)
        return parse_pairs(read_json(path, duplicate_keys="error"), path, questions)


class VQA1(OfficialVQA):
    """VQA v1 (unbalanced): open-ended questions plus the 18 multiple choices when present."""

    name = "vqa1"
    description = "VQA v1 (unbalanced, 18 multiple choices) from the official files under --data-dir"
    prefix = ""
    default_root = "vqa1"
    release = ("VQA v1 (real images: OpenEnded and MultipleChoice questions, annotations) — "
               "https://visualqa.org/vqa_v1_download.html; images: MS COCO — https://cocodataset.org/#download")
    provides = frozenset({"answers", "answer_type", "question_type", "label", "choices"})

    def mc_questions_file(self, split: str) -> Path:
        return self.root / f"MultipleChoice_mscoco_{self._check(split)}_questions.json"

    def optional_files(self, split: str) -> list[Path]:
        return [self.mc_questions_file(split)]

    def _add_choices(self, split: str, questions: dict[int, dict[str, Any]]) -> list[Tally]:
        # The 18 choices live in the MultipleChoice questions file (same question ids).
        path = self.mc_questions_file(split)
        if not path.is_file():
            return []

        tally = self._tally(path)
        data = read_json(path, duplicate_keys="error")
        mc = parse_questions(data, path, with_choices="required", tally=tally)
        rows: dict[int, str] = {}  # question_id -> its (first) record, parsed and checked above
        for i, item in enumerate(data["questions"]):
            rows.setdefault(item["question_id"], f"questions[{i}]")
        open_ended = self.questions_file(split)
        for qid, rec in mc.items():
            if qid not in questions:
                raise fail(path, "questions", f"question_id {qid} is not in {open_ended}", "question_id")
            # The choices belong to this exact question: the same image and text as the
            # OpenEnded file's (as an annotation's image_id must be).
            q = questions[qid]
            if rec["image_id"] != q["image_id"]:
                raise fail(path, rows[qid], f"question_id {qid} is on image_id {rec['image_id']} here but on "
                                            f"image_id {q['image_id']} in {open_ended}", "image_id")
            if rec["question"].strip() != q["question"].strip():
                raise fail(path, rows[qid], f"question_id {qid} asks {rec['question']!r} here but "
                                            f"{q['question']!r} in {open_ended}", "question")
            if "choices" in rec:
                for k, choice in enumerate(rec["choices"]):
                    if not normalize_for_match(choice):  # "" or "." (nothing left to match), as Visual7W
                        raise fail(path, rows[qid], f"an empty choice ({choice!r} once normalized)",
                                   f"multiple_choices[{k}]")
                q["choices"] = rec["choices"]
        return [tally]
