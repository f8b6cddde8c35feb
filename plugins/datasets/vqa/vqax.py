"""Dataset plugin `vqax-vqa`: the VQA v2 questions of a VQA-X file, as a VQA dataset.

VQA-X (`vqaX_{split}.json`, keyed by question id: `question`, `answers` (10 objects),
`explanation` (list), `image_id`, `image_name`) carries real VQA v2 questions with their 10
human answers. It has no annotation types, so question type and answer type are derived
the official way (`harness.metrics.question_type` / `answer_type`), and `label` (the
stand-in for `multiple_choice_answer`) is the most frequent answer, ties broken by first
occurrence. The reference explanations are kept in `explanations`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from harness.api import DatasetPlugin, Option
from harness.errors import DataError, UsageError
from harness.metrics import answer_type, question_type

from .arrow_cache import cache_key, cached_dataset
from .official import COLUMNS, most_common_answer, read_json

if TYPE_CHECKING:  # pragma: no cover
    import datasets

__all__ = ["VQAXAsVQA", "parse_vqax"]


class VQAXAsVQA(DatasetPlugin):
    """VQA-X's VQA v2 subset (default `<data-dir>/vqax/vqaX_<split>.json`)."""

    name = "vqax-vqa"
    description = "the real VQA v2 questions (10 answers) of a VQA-X file, types derived officially"
    splits: ClassVar[tuple[str, ...]] = ("train", "val", "test")
    options: ClassVar[Mapping[str, Option]] = {
        "path": Option("", "the VQA-X JSON file (relative to --data-dir; default vqax/vqaX_<split>.json)"),
        "images": Option("", "folder holding the COCO image folders (relative to --data-dir; default coco)"),
    }

    def _resolve(self, value: str) -> Path:
        path = Path(value)
        return path if path.is_absolute() else (self.data_dir or Path.cwd()) / path

    def file(self, split: str) -> Path:
        """The JSON file read for `split`."""
        if split not in self.splits:
            raise UsageError(f"dataset {self.name!r} has no split {split!r}; splits: {', '.join(self.splits)}")
        return self._resolve(self.config["path"] or f"vqax/vqaX_{split}.json")

    def expected_files(self, split: str) -> list[Path]:
        return [self.file(split)]

    def load(self, split: str) -> "datasets.Dataset":
        """The split as an Arrow `datasets.Dataset` (parsed once, then cached)."""
        path = self.file(split)
        images = self._resolve(self.config["images"] or "coco")
        key = cache_key(self.name, split, {**self.config, "images_root": str(images)}, [path])
        table, _ = cached_dataset(key, lambda: (parse_vqax(read_json(path), path, images), {"file": str(path)}))
        return table


def _field(path: Path, where: str, value: Any, kind: type, what: str) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise DataError(f"{path}: {where}: expected {what}, got {type(value).__name__}")
    return value


def parse_vqax(data: Any, path: Path, images_root: Path | None) -> dict[str, list]:
    """Example columns from a parsed VQA-X file; DataError naming file and field otherwise."""
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected a JSON object keyed by question id (VQA-X format)")
    cols: dict[str, list] = {c: [] for c in COLUMNS}
    for qid, item in data.items():
        where = f"[{qid!r}]"
        _field(path, where, item, dict, "an object")
        for key in ("question", "answers", "image_id"):
            if key not in item:
                raise DataError(f"{path}: {where}.{key}: missing")
        question = _field(path, f"{where}.question", item["question"], str, "a string")
        raw = _field(path, f"{where}.answers", item["answers"], list, "a list of answer objects")
        answers = []
        for j, ans in enumerate(raw):
            if not isinstance(ans, dict) or not isinstance(ans.get("answer"), str):
                raise DataError(f"{path}: {where}.answers[{j}].answer: expected a string")
            answers.append(ans["answer"])
        if not answers:
            raise DataError(f"{path}: {where}.answers: empty")
        image_id = item["image_id"]
        if not isinstance(image_id, (str, int)) or isinstance(image_id, bool):
            raise DataError(f"{path}: {where}.image_id: expected a string or integer")
        explanations = item.get("explanation", [])
        if not isinstance(explanations, list) or not all(isinstance(e, str) for e in explanations):
            raise DataError(f"{path}: {where}.explanation: expected a list of strings")
        name = item.get("image_name") or f"COCO_val2014_{int(image_id):012d}.jpg"
        _field(path, f"{where}.image_name", name, str, "a string")
        folder = name.split("_")[1] if name.count("_") >= 2 else "val2014"
        cols["id"].append(str(qid))
        cols["question"].append(question)
        cols["image_id"].append(str(image_id))
        cols["image"].append(str(Path(images_root) / folder / name) if images_root is not None else "")
        cols["answers"].append(answers)
        cols["answer_type"].append(answer_type(answers))
        cols["question_type"].append(question_type(question))
        cols["choices"].append([])
        cols["label"].append(most_common_answer(answers))
        cols["explanations"].append(explanations)
        cols["pair_id"].append("")
        cols["meta"].append("{}")
    return cols
