"""Shared pieces of the e-ViL dataset loaders: paths, seeded halves, errors."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Sequence

from harness.errors import DataError, UsageError
from harness.types import Example
from vqa_harness_plugins.validation import fail

__all__ = ["HALF_SUFFIXES", "split_file", "base_split", "take_half", "data_error"]

#: Pseudo-splits "<split>-fit" / "<split>-eval": a seeded split of one file's examples into
#: halves BY IMAGE (no image in both), so a trainable explainer can be fitted on one half
#: and evaluated on the other when only a dev/val file is available.
HALF_SUFFIXES = ("-fit", "-eval")


def base_split(split: str) -> tuple[str, str]:
    """("dev", "fit") for "dev-fit"; (split, "") for a real split."""
    for suffix in HALF_SUFFIXES:
        if split.endswith(suffix):
            return split[: -len(suffix)], suffix[1:]
    return split, ""


def split_file(data_dir: Path | None, folder: str, pattern: str, split: str, path: str) -> Path:
    """The file of `split`: the explicit `path=` option, else `<data-dir>/<folder>/<pattern>`."""
    if path:
        return Path(path).expanduser()
    if data_dir is None:
        raise UsageError(f"no --data-dir given: the {folder} files are looked up as "
                         f"<data-dir>/{folder}/{pattern.format(split=split)} (or pass path=FILE)")
    return Path(data_dir) / folder / pattern.format(split=split)


def take_half(examples: Sequence[Example], half: str, seed: int) -> list[Example]:
    """The `half` ("fit" or "eval") of `examples`: images shuffled with `seed`, the first
    ceil(n/2) images fit, the rest eval; example order is kept."""
    if not half:
        return list(examples)
    images = sorted({ex.image_id or ex.id for ex in examples})
    random.Random(seed).shuffle(images)
    fit = set(images[: (len(images) + 1) // 2])
    want_fit = half == "fit"
    return [ex for ex in examples if ((ex.image_id or ex.id) in fit) == want_fit]


def data_error(path: Path, row: object, field: str, problem: str) -> DataError:
    """A one-line DataError naming the file, the row and the field (`vqa_harness_plugins.validation.fail`)."""
    return fail(path, f"row {row}", problem, field)
