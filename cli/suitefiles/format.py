"""The suite-file format's vocabulary, shared by the reader (`read`) and the writer (`write`)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from harness.types import Suite

__all__ = ["SUFFIXES", "TASK_KEYS", "TRAIN_KEYS", "SCALARS", "NAME_PATTERN", "top_keys", "is_suite_file",
           "option_text"]

#: File name endings read as suite files (YAML, or TOML for `.toml`).
SUFFIXES = (".yaml", ".yml", ".toml")
TASK_KEYS = ("label", "dataset", "options", "split", "probes", "probe_options", "train")
TRAIN_KEYS = ("dataset", "options", "split")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
SCALARS = (str, int, float, bool)


def top_keys() -> tuple[str, ...]:
    """name, description, tasks and Suite's boolean flags (toy, partial, ...)."""
    flags = [f.name for f in dataclasses.fields(Suite) if f.compare and f.name not in ("name", "description", "tasks")]
    return ("name", "description", *flags, "tasks")


def is_suite_file(name: str) -> bool:
    """True when `name` ends in .yaml/.yml/.toml or names an existing file."""
    return Path(name).suffix.lower() in SUFFIXES or Path(name).is_file()


def option_text(value: Any) -> str:
    """A YAML/TOML scalar as option text (what `--model name:key=value` would carry)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
