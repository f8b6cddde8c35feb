"""The suite-file format's vocabulary, shared by the reader (`read`) and the writer (`write`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from harness.suites import SUITE_FILE_SUFFIXES
from harness.types import Suite

__all__ = ["TASK_KEYS", "TRAIN_KEYS", "SCALARS", "top_keys", "is_suite_file",
           "option_text"]

TASK_KEYS = ("label", "dataset", "options", "split", "probes", "probe_options", "train")
TRAIN_KEYS = ("dataset", "options", "split")
SCALARS = (str, int, float, bool)
#: Suite fields that say where a suite came from, not what it is: never keys of the file.
NOT_KEYS = ("file_sha256", "file")


def top_keys() -> tuple[str, ...]:
    """name, description, tasks and Suite's boolean flags (toy, partial, ...)."""
    flags = [f.name for f in dataclasses.fields(Suite) if f.name not in ("name", "description", "tasks", *NOT_KEYS)]
    return ("name", "description", *flags, "tasks")


def is_suite_file(name: str) -> bool:
    """True when `name` ends in .yaml/.yml/.toml or names an existing file."""
    if Path(name).suffix.lower() in SUITE_FILE_SUFFIXES:
        return True
    try:
        return Path(name).is_file()
    except OSError:  # a name too long to be a file's: not a suite file (a suite name, or a typo)
        return False


def option_text(value: Any) -> str:
    """A YAML/TOML scalar as option text (what `--model name:key=value` would carry)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
