"""`vqa1-mc` / `vqa2-mc`: multiple-choice views of the official VQA loaders.

The target is the annotation's `multiple_choice_answer`; VQA v1's 18 `multiple_choices`
minus the target are the Orig decoys (17); VQA v2 has none (use decoys=iou, qou, iou+qou).
Accuracy is the VQA accuracy of the picked candidate against the 10 human answers
(`mc_scoring="vqa"`). Only labelled splits (train, val) are offered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Mapping

from harness.api import DatasetPlugin, Option
from harness.digest import digest, file_stamps
from harness.errors import DataError, UsageError
from harness.types import Example
from vqa_harness_plugins.datasets.vqa import VQA1, VQA2
from vqa_harness_plugins.generators.decoys import EMPTY_TARGETS, VARIANTS, normalize_for_match
from vqa_harness_plugins.validation import answers_option, duplicates_option
from vqa_harness_plugins.validation.accepted import PolicyCounts

from .mc import (
    GENERATOR_OPTIONS,
    attach_decoys,
    check_orig_decoys,
    decoy_config,
    generated_decoys,
    generation_summary,
    with_generator,
)

__all__ = ["VQA1MC", "VQA2MC"]


class _VQAMC(PolicyCounts):
    splits: ClassVar[tuple[str, ...]] = ("train", "val")
    base_name: ClassVar[str] = ""
    default_decoys: ClassVar[str] = "orig"
    options: ClassVar[Mapping[str, Option]] = {}

    def _base(self) -> DatasetPlugin:
        cls = VQA1 if self.base_name == "vqa1" else VQA2
        return cls(data_dir=self.data_dir, root=self.config["root"], images=self.config["images"],
                   duplicates=self.config["duplicates"], answers=self.config["answers"])

    def orig_file(self, split: str) -> Path | None:
        """The file of the original decoys (VQA v1: MultipleChoice_mscoco_<split>_questions.json,
        the 18 choices); None for VQA v2, which has none."""
        base = self._base()
        return base.mc_questions_file(split) if hasattr(base, "mc_questions_file") else None

    def expected_files(self, split: str) -> list[Path]:
        """The base loader's files, and the original decoys' file when `decoys=` uses them
        (orig, all): optional for `vqa1`, required here."""
        files = list(self._base().expected_files(split))
        orig = self.orig_file(split) if self.config["decoys"] in ("orig", "all") else None
        return files + ([orig] if orig is not None else [])

    def fingerprint(self, split: str) -> str:
        """The default fingerprint and every file the split is read from, the MultipleChoice
        file included whatever `decoys=` is (its choices are the Orig decoys and the generator's
        fill-ins), stamped present or absent."""
        return with_generator(digest({"base": super().fingerprint(split),
                                      "files": file_stamps([*self._base().source_files(split), self.orig_file(split)],
                                                           root=self.data_dir)}), self.config["decoys"] != "orig")

    def image_folders(self):
        return self._base().image_folders()

    def summary(self, split: str) -> dict[str, Any]:
        """The base loader's load summary (repeated ids, answer counts, pairs) and where the
        decoys come from: "original" (the 18 choices) for decoys=orig, else "generated" (VQA
        has no released IoU/QoU decoys)."""
        generated = {} if self.config["decoys"] == "orig" else generation_summary(decoy_config(self.config),
                                                                                  self._generation_key(split))
        source = "original" if self.config["decoys"] == "orig" else "generated"  # orig: the 18 choices
        return {**self._base().summary(split), "decoy_source": source, **generated, **self._skipped(split)}

    def _skipped(self, split: str) -> dict[str, Any]:
        """Under empty_targets=skip with generated decoys: the questions whose target is empty
        once normalized, left out of the generation (count and first ids, as the generator's)."""
        if self.config["empty_targets"] != "skip" or self.config["decoys"] == "orig":
            return {}
        ids = sorted((ex.id for ex in self.base_examples(split) if not normalize_for_match(ex.meta["mc_target"])),
                     key=str)
        return {"empty_targets": "skip", "empty_targets_skipped": len(ids), "empty_targets_skipped_shown": ids[:10]}

    def _generation_key(self, split: str) -> dict[str, Any]:
        """What generated decoys depend on: the base split's fingerprint and every file read,
        its size and modification time (the sets of iou, qou, iou+qou and all are one generation)."""
        skip = {"empty_targets": "skip"} if self.config["empty_targets"] == "skip" else {}  # default: keys as before
        return {"dataset": self.name, "split": split, "fingerprint": self._base().fingerprint(split),
                "files": file_stamps(self._base().source_files(split), root=self.data_dir), **skip}

    def base_examples(self, split: str, limit: int | None = None) -> list[Example]:
        """The base VQA split (its first `limit` questions) as MC-ready examples (target,
        original decoys in meta)."""
        rows = self._base().load(split)
        if limit is not None and limit < len(rows):
            rows = rows[:limit] if isinstance(rows, list) else rows.select(range(limit))
        exs = rows if isinstance(rows, list) else [Example.from_row(r) for r in (rows.to_list() if hasattr(rows, "to_list") else rows)]
        out, absent = [], []
        for ex in exs:
            target = ex.label
            orig = [c for c in ex.choices if normalize_for_match(c) != normalize_for_match(target)]
            if ex.choices and len(orig) == len(ex.choices):
                absent.append(f"question_id {ex.id}: {target!r}")
            out.append(ex.with_(meta={**ex.meta, "mc_target": target, "decoys": {"orig": orig}}))
        mc_file = self.orig_file(split)  # None for vqa2-mc (no original choices)
        bare = [ex.id for ex in exs if not ex.choices] if mc_file is not None and mc_file.is_file() else []
        if bare and self.config["answers"] == "strict":  # its decoys would be filled from frequent targets
            raise DataError(f"{mc_file}: {len(bare)} question(s) of the split have no record here (e.g. question_id "
                            f"{', '.join(bare[:3])}); each takes its 18 choices from this file; pass "
                            "answers=lenient to accept them (their decoys are then filled from the frequent targets)")
        unlabelled = [ex.id for ex in out if not ex.meta["mc_target"]]
        if unlabelled:
            raise DataError(f"{self.name}/{split}: {len(unlabelled)} question(s) have no multiple_choice_answer "
                            f"(e.g. {', '.join(unlabelled[:5])})")
        if absent:  # scored, it would be a 19-way question the file never offered
            base = self._base()
            raise DataError(f"{self.orig_file(split)}: field 'multiple_choices': {len(absent)} question(s) do not "
                            f"offer their target (the multiple_choice_answer of {base.annotations_file(split)}) "
                            f"among their 18 choices (e.g. {'; '.join(absent[:3])}); fix the file, choices are "
                            "never patched")
        return out

    def load(self, split: str, limit: int | None = None) -> list[Example]:  # type: ignore[override]
        """The split with the `decoys=` candidates; with `limit` (`--limit`) its first `limit`
        questions, whose decoys are generated from the whole split as in a full run."""
        if split not in self.splits:
            raise UsageError(f"dataset {self.name!r} has no split {split!r}; splits: {', '.join(self.splits)}")
        source = f"{self.name}/{split}"
        generate = self.config["decoys"] != "orig"
        base = self.base_examples(split, None if generate else limit)  # generated decoys: all are candidates
        check_orig_decoys(base, source)
        sets: dict[str, Any] = {}
        if generate:
            # The files read, whatever `decoys` is: the sets of iou, qou, iou+qou and all are
            # one generation, and its fill-ins read the 18 choices when that file is there.
            sets = generated_decoys(base, decoy_config(self.config), key=self._generation_key(split), source=source,
                                    limit=limit, empty_targets=self.config["empty_targets"])
        kept = base if limit is None else base[:limit]
        orig = self.orig_file(split)
        hint = None if orig is None else (f"the original decoys are the 18 multiple choices of {orig}"
                                          + ("" if orig.is_file() else ", which is missing"))
        # IoU / QoU sets are generated and may leave a question without a valid decoy (the
        # probes leave it out and count it); the original 18 choices must be complete.
        return attach_decoys(kept, sets, variant=self.config["decoys"], seed=int(self.config["decoy_seed"]),
                             scoring="vqa", source=source, orig_hint=hint,
                             allow_partial=self.config["decoys"] != "orig")


_COMMON = {
    "root": Option("", "folder of the VQA JSON files (as for vqa1 / vqa2)"),
    "images": Option("", "COCO image folder (as for vqa1 / vqa2)"),
    "duplicates": duplicates_option("question_id (as for vqa1 / vqa2)"),
    "answers": answers_option("10 human answers, 18 multiple choices (as for vqa1 / vqa2)"),
    "empty_targets": Option("error", "a question whose multiple_choice_answer is empty once normalized ('?', '...'): "
                                     "error, or skip (left out of the decoy generation, counted in the load summary)",
                            choices=EMPTY_TARGETS),
    **GENERATOR_OPTIONS,
}


class VQA1MC(_VQAMC):
    name = "vqa1-mc"
    description = "VQA v1 multiple choice (18 candidates) with Orig/IoU/QoU/IoU+QoU/All decoy sets"
    base_name = "vqa1"
    release = "the vqa1 files (VQA v1) — https://visualqa.org/vqa_v1_download.html"
    provides = frozenset({"answers", "answer_type", "question_type", "label", "choices"})
    options = {"decoys": Option("orig", "candidate set in `choices`", choices=VARIANTS), **_COMMON}


class VQA2MC(_VQAMC):
    name = "vqa2-mc"
    description = "VQA v2 as multiple choice with generated IoU/QoU decoys (no original decoys)"
    base_name = "vqa2"
    release = "the vqa2 files (VQA v2) — https://visualqa.org/download.html"
    provides = frozenset({"answers", "answer_type", "question_type", "label", "choices", "pair_id"})
    options = {"decoys": Option("iou+qou", "candidate set in `choices`", choices=("iou", "qou", "iou+qou")), **_COMMON}
