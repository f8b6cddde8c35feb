"""The released decoy-file format: {qa_id: {"IoU_decoys": [...], "QoU_decoys": [...]}}."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from harness.errors import DataError

from ..jsonio import read_json

__all__ = ["read_decoy_file", "write_decoy_file", "KEYS"]

KEYS = ("IoU_decoys", "QoU_decoys")


def read_decoy_file(path: Path | str) -> dict[str, dict[str, list[str]]]:
    """Parse and check a decoy file; DataError naming the file and the first bad qa_id."""
    path = Path(path)
    data = read_json(path, "decoy file")
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected an object keyed by qa_id, got {type(data).__name__}")
    out: dict[str, dict[str, list[str]]] = {}
    for qa_id, entry in data.items():
        if not isinstance(entry, dict):
            raise DataError(f"{path}: qa_id {qa_id}: expected an object with {', '.join(KEYS)}")
        rec = {}
        for key in KEYS:
            value = entry.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise DataError(f"{path}: qa_id {qa_id}: field {key}: expected a list of strings")
            rec[key] = value
        out[str(qa_id)] = rec
    return out


def write_decoy_file(path: Path | str, released: Mapping[str, Mapping[str, Any]]) -> Path:
    """Write the released shape atomically (keys sorted for stable diffs)."""
    from harness.runstore import atomic_write_text

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(released, sort_keys=True, ensure_ascii=False) + "\n")
    return path
