"""File writing for published outputs: atomic, and readable by a static web server."""

from __future__ import annotations

import os
from pathlib import Path

from harness.fileio import atomic_write_text

__all__ = ["write_public"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_public(path: Path, text: str) -> None:
    """`atomic_write_text`, then the usual 0644-minus-umask mode (temp files are created 0600,
    which a web server running as another user could not read)."""
    atomic_write_text(path, text)
    os.chmod(path, 0o666 & ~_umask())
