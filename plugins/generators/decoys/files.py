"""The released decoy-file format: {qa_id: {"IoU_decoys": [...], "QoU_decoys": [...]}}."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from harness.errors import DataError
from harness.fileio import atomic_write_text
from harness.jsonio import read_json
from vqa_harness_plugins.validation import Tally, check_object, check_str_list, describe

__all__ = ["read_decoy_file", "write_decoy_file", "KEYS"]

KEYS = ("IoU_decoys", "QoU_decoys")


def read_decoy_file(path: Path | str, *, duplicates: str = "error") -> dict[str, dict[str, list[str]]]:
    """Parse and check a decoy file; DataError naming the file, the qa_id and the field. A
    qa_id used twice as a key (JSON readers silently keep one) is an error, or with
    `duplicates="keep-first"` the first entry is kept."""
    path = Path(path)
    data = read_json(path, "decoy file", duplicate_keys="record")
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected an object keyed by qa_id, got {describe(data)}")
    tally = Tally(path, id_name="qa_id", duplicates=duplicates)
    repeated_keys = getattr(data, "duplicates", ())  # the first entry of each was kept
    for qa_id in dict.fromkeys(repeated_keys):
        tally.seen(qa_id, f"qa_id {qa_id}")
    for qa_id in repeated_keys:
        tally.seen(qa_id, f"qa_id {qa_id} (repeated key)")
    out: dict[str, dict[str, list[str]]] = {}
    for qa_id, entry in data.items():
        where = f"qa_id {qa_id}"
        check_object(entry, path, where)
        rec = {}
        for key in KEYS:
            rec[key] = check_str_list(entry.get(key, []), path, where, key)
        out[str(qa_id)] = rec
    return out


def write_decoy_file(path: Path | str, released: Mapping[str, Mapping[str, Any]]) -> Path:
    """Write the released shape atomically (keys sorted for stable diffs)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(released, sort_keys=True, ensure_ascii=False) + "\n")
    return path
