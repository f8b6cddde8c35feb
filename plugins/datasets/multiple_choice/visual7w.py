"""`visual7w`: the Visual7W telling release (`dataset_v7w_telling.json`).

Layout: {"images": [{"image_id", "filename", "split", "qa_pairs": [{"qa_id", "image_id",
"question", "answer", "multiple_choices", "type"}]}]}. Answers are normalized as the
release expects (lower case, trailing period stripped). `decoys=` selects the candidates;
IoU/QoU decoys come from the authors' released decoy file (`decoy_file=`, per qa_id
`IoU_decoys` / `QoU_decoys`) or, without one, from the generator (cached).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping

from harness.api import Option
from harness.digest import digest, file_stamps
from harness.errors import DataError, UsageError
from harness.jsonio import read_json
from harness.types import Example
from vqa_harness_plugins.generators.decoys import (
    normalize_for_match,
    normalize_release,
    read_decoy_file,
    variant_parts,
)
from vqa_harness_plugins.validation import (
    Field,
    Tally,
    answers_option,
    check_choice,
    check_list,
    check_nonempty,
    check_record,
    describe,
    duplicates_option,
    fail,
)
from vqa_harness_plugins.validation.accepted import PolicyCounts

from .mc import (
    MC_OPTIONS,
    attach_decoys,
    check_orig_decoys,
    decoy_config,
    generated_decoys,
    generation_summary,
    with_generator,
)

__all__ = ["Visual7W", "released_sets", "check_normalized", "released_file", "released_fingerprint", "IMAGE", "QA_PAIR", "ORIG_DECOYS"]

#: Original decoys per telling question (4 candidates with the target).
ORIG_DECOYS = 3
#: Record formats of the telling file (vqa_harness_plugins.validation schemas).
IMAGE = {"image_id": Field("key"), "split": Field("str"), "qa_pairs": Field("list"),
         "filename": Field("str", required=False)}
QA_PAIR = {"qa_id": Field("key"), "question": Field("text"), "answer": Field("text"),
           "multiple_choices": Field("str-list", required=False), "type": Field("str", required=False),
           "image_id": Field("key", required=False)}


def check_normalized(text: str, path: Path, row: str, field: str) -> None:
    """DataError naming the record and field for an answer or decoy with nothing left once
    normalized (".", "!?"): it would be an empty candidate, or a target no decoy can differ from."""
    if not normalize_for_match(text):
        raise fail(path, row, f"{text!r} is empty once normalized (lower case, punctuation removed)", field)


def released_sets(path: Path, examples_by_id: Mapping[str, Example], all_ids: set[str], *,
                  duplicates: str = "error", variant: str = "orig") -> dict[str, dict[str, list[str]]]:
    """Read a released decoy file; DataError (count, examples) for qa_ids with no question,
    for decoys equal to their target (a repeated qa_id key follows `duplicates`) and for a
    question of `examples_by_id` without a non-empty list of each set `variant` uses."""
    data = read_decoy_file(path, duplicates=duplicates)
    orphans = [q for q in data if q not in all_ids]
    if orphans:
        raise DataError(f"{path}: {len(orphans)} qa_id(s) have no question in the dataset "
                        f"(e.g. {', '.join(orphans[:5])})")
    equal = []
    sets = {}
    for qa_id, entry in data.items():
        ex = examples_by_id.get(qa_id)
        for key in ("IoU_decoys", "QoU_decoys"):
            for k, d in enumerate(entry[key]):
                check_normalized(d, path, f"qa_id {qa_id}", f"{key}[{k}]")
        iou = [normalize_release(d) for d in entry["IoU_decoys"]]
        qou = [normalize_release(d) for d in entry["QoU_decoys"]]
        # Compared as the candidate lists are de-duplicated (`normalize_for_match`): "A dog!"
        # is the target "A dog." there, and would silently leave the set one decoy short.
        target = normalize_for_match(ex.meta["mc_target"]) if ex is not None else None
        if target is not None and any(normalize_for_match(d) == target for d in iou + qou):
            equal.append(qa_id)
        sets[qa_id] = {"iou": iou, "qou": qou}
    if equal:
        raise DataError(f"{path}: {len(equal)} qa_id(s) list the target as a decoy (e.g. {', '.join(equal[:5])})")
    _check_coverage(path, data, examples_by_id, variant)
    return sets


def _check_coverage(path: Path, data: Mapping[str, Mapping[str, list[str]]], examples_by_id: Mapping[str, Example],
                    variant: str) -> None:
    """Released files must be complete: every question the split keeps has a non-empty list
    of each released set the variant uses (a gap would leave it on fewer candidates, e.g.
    the 4 Orig ones among the 10-way questions of decoys=all)."""
    keys = [k for part, k in (("iou", "IoU_decoys"), ("qou", "QoU_decoys")) if part in variant_parts(variant)]
    gaps = []
    for qa_id in examples_by_id:
        entry = data.get(qa_id)
        lacking = [k for k in keys if entry is None or not entry[k]]
        if lacking:
            gaps.append(f"{qa_id} ({'missing' if entry is None else 'no ' + ' or '.join(lacking)})")
    if gaps:
        raise DataError(f"{path}: {len(gaps)} question(s) have no {' / '.join(keys)} for decoys={variant} "
                        f"(e.g. qa_id {', '.join(gaps[:5])}); a released decoy file must cover every question")


#: Where `decoy_file=auto` looks for the authors' released decoys (relative to --data-dir).
AUTO_DECOYS = "visual7w/decoys.json"


def released_file(option: str, resolve: Callable[[str], Path], auto: str) -> Path | None:
    """The released decoy file an option names: "" -> none (generate), "auto" -> `auto` if
    that file exists, else the named file (which must exist: it is an expected file)."""
    if not option:
        return None
    if option == "auto":
        path = resolve(auto)
        return path if path.is_file() else None
    return resolve(option)


def _source(variant: str, released: Path | None) -> str:
    """Where the candidates' decoys come from, for decoy-audit's `generation/source=` row:
    "original" (the file's own choices, decoys=orig), "released:<file>" or "generated"."""
    if variant == "orig":
        return "original"
    return f"released:{released}" if released else "generated"


def released_fingerprint(base: str, option: str, resolve: Callable[[str], Path], auto: str,
                         data_dir: Path | None) -> str:
    """A dataset fingerprint (`base`) extended by the released decoy file the option may read:
    with "auto" the file is read when present, so its absence is stamped too and adding,
    editing or removing it changes the fingerprint (cached predictions and probe outputs). The
    file is named relative to `data_dir` (`file_stamps`): a moved --data-dir keeps it."""
    path = None if not option else resolve(auto if option == "auto" else option)
    return digest({"base": base, "decoy_file": file_stamps([path], root=data_dir)})


class Visual7W(PolicyCounts):
    """Visual7W telling: 4 candidates per question (target + 3 human decoys)."""

    name = "visual7w"
    description = "Visual7W telling QA (multiple choice; Orig, IoU, QoU, IoU+QoU, All decoy sets)"
    release = ("Visual7W telling (dataset_v7w_telling.json, images) — https://ai.stanford.edu/~yukez/visual7w/; "
               "Chao et al.'s IoU/QoU decoys — http://www.teds.usc.edu/website_vqa/")
    provides = frozenset({"choices", "label", "question_type"})
    splits: ClassVar[tuple[str, ...]] = ("train", "val", "test")
    options: ClassVar[Mapping[str, Option]] = {
        "file": Option("visual7w/dataset_v7w_telling.json", "telling JSON (relative to --data-dir)"),
        "images": Option("visual7w/images", "image folder (relative to --data-dir)"),
        "decoy_file": Option("auto", "released decoy JSON (per qa_id IoU_decoys, QoU_decoys); auto: "
                                     "visual7w/decoys.json when present, else generated; empty: generate"),
        "duplicates": duplicates_option("qa_id"),
        "answers": answers_option("3 original decoys (multiple_choices) per question"),
        **MC_OPTIONS,
    }

    def _path(self, value: str) -> Path:
        p = Path(value)
        return p if p.is_absolute() else (self.data_dir or Path.cwd()) / p

    def decoy_file(self) -> Path | None:
        """The released decoy file used (None: decoys are generated)."""
        return released_file(self.config["decoy_file"], self._path, AUTO_DECOYS)

    def image_folders(self) -> list[Path]:
        return [self._path(self.config["images"])]

    def expected_files(self, split: str) -> list[Path]:
        files = [self._path(self.config["file"])]
        if self.config["decoy_file"] not in ("", "auto"):
            files.append(self._path(self.config["decoy_file"]))
        return files

    def fingerprint(self, split: str) -> str:
        """The default fingerprint and the released decoy file (`decoy_file=auto` included)."""
        base = released_fingerprint(super().fingerprint(split), self.config["decoy_file"], self._path, AUTO_DECOYS,
                                    self.data_dir)
        return with_generator(base, self.config["decoys"] != "orig" and self.decoy_file() is None)

    def all_examples(self) -> dict[str, list[Example]]:
        """Every split's examples (MC fields in meta), parsed and checked; the load summary
        (repeated qa_ids and decoy counts accepted by the policies) is kept for `summary()`."""
        path = self._path(self.config["file"])
        data = read_json(path, "Visual7W telling file; see docs/decoys.md", duplicate_keys="error")
        if not isinstance(data, dict) or "images" not in data:
            raise DataError(f"{path}: expected {{\"images\": [...]}} (Visual7W telling format), got {describe(data)}")
        images = check_list(data["images"], path, "", "images")
        check_nonempty(images, path, "images", "the 'images' list is empty")
        tally = Tally(path, id_name="qa_id", duplicates=self.config["duplicates"], answers=self.config["answers"],
                      expected=ORIG_DECOYS, answers_field="multiple_choices")
        out: dict[str, list[Example]] = {s: [] for s in self.splits}
        mismatched: list[str] = []
        folder = self._path(self.config["images"])
        split_of: dict[str, tuple[str, str]] = {}  # image_id -> (split, first record)
        for i, img in enumerate(images):
            where = f"images[{i}]"
            check_record(img, IMAGE, path, where)
            image_id, filename = str(img["image_id"]).strip(), img.get("filename", "")
            split = check_choice(img["split"], self.splits, path, where, "split")
            first = split_of.setdefault(image_id, (split, where))
            if first[0] != split:  # Visual7W is split by image: one in two splits leaks
                raise fail(path, where, f"image_id {image_id} is in split {split!r} here but in split "
                                        f"{first[0]!r} at {first[1]}; an image belongs to one split", "image_id")
            for j, qa in enumerate(img["qa_pairs"]):
                row = f"{where}.qa_pairs[{j}]"
                check_record(qa, QA_PAIR, path, row)
                qa_id = str(qa["qa_id"]).strip()
                if not tally.seen(qa_id, row):
                    continue
                mc = qa.get("multiple_choices", [])
                tally.count_ok(len(mc), qa_id, row)
                if "image_id" in qa and str(qa["image_id"]).strip() != image_id:
                    mismatched.append(qa_id)
                target = normalize_release(qa["answer"])
                check_normalized(target, path, row, "answer")
                for k, d in enumerate(mc):
                    check_normalized(d, path, row, f"multiple_choices[{k}]")
                out[split].append(Example(
                    id=qa_id, question=qa["question"].strip(), image_id=image_id,
                    image=str(folder / filename) if filename else "",
                    question_type=qa.get("type", ""), label=target,
                    meta={"mc_target": target, "decoys": {"orig": [normalize_release(d) for d in mc]},
                          "type": qa.get("type", "")},
                ))
        if mismatched:
            raise DataError(f"{path}: {len(mismatched)} qa_pair(s) name an image_id other than their image's "
                            f"(unknown image ids; e.g. qa_id {', '.join(mismatched[:5])})")
        self._load_summary = {"file": str(path), **tally.summary()}
        return out

    def summary(self, split: str) -> dict[str, Any]:
        """Counts from reading the file: repeated qa_ids (duplicates=keep-first) and
        questions with other than 3 original decoys (answers=lenient)."""
        if not hasattr(self, "_load_summary"):
            self.all_examples()
        found = self.decoy_file()
        generated = {} if found or self.config["decoys"] == "orig" else generation_summary(
            decoy_config(self.config), self._generation_key(split))
        return {"dataset": self.name, "split": split, **self._load_summary,
                "decoy_source": _source(self.config["decoys"], found), **generated}

    def _generation_key(self, split: str) -> dict[str, Any]:
        """What generated decoys depend on: the file (its size and modification time: an
        edited file is generated again; named relative to --data-dir) and the split."""
        (name, size, mtime_ns), = file_stamps([self._path(self.config["file"])], root=self.data_dir)
        return {"dataset": "visual7w", "file": name, "split": split, "size": size, "mtime_ns": mtime_ns}

    def load(self, split: str, limit: int | None = None) -> list[Example]:  # type: ignore[override]
        """The split with the `decoys=` candidates; with `limit` (`--limit`) its first `limit`
        questions, whose decoys are generated from the whole split as in a full run."""
        if split not in self.splits:
            raise UsageError(f"dataset 'visual7w' has no split {split!r}; splits: {', '.join(self.splits)}")
        every = self.all_examples()
        examples = every[split]
        check_nonempty(examples, self._path(self.config["file"]), f"questions in split {split!r}",
                       "no image of the file has this split")
        source = f"{self.config['file']} ({split})"
        kept = examples if limit is None else examples[:limit]
        check_orig_decoys(kept, source)
        released = self.decoy_file()
        if released is not None:
            all_ids = {ex.id for exs in every.values() for ex in exs}
            sets = released_sets(released, {e.id: e for e in kept}, all_ids,
                                 duplicates=self.config["duplicates"], variant=self.config["decoys"])
        elif self.config["decoys"] == "orig":
            sets = {}
        else:
            sets = generated_decoys(examples, decoy_config(self.config), key=self._generation_key(split),
                                    source=source, limit=limit)
        # Generated sets may leave a question without a valid decoy (every candidate too close
        # to its target): the probes leave it out and count it. Released files must be complete.
        return attach_decoys(kept, sets, variant=self.config["decoys"], seed=int(self.config["decoy_seed"]),
                             scoring="target", source=source,
                             allow_partial=released is None and self.config["decoys"] != "orig")
