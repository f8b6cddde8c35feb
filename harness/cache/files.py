"""Derived files of plain data in the harness cache: read when present, else built once.

Indexes built from installed resources (the WordNet index, the tagger's tables, word
statistics) are plain tuples, lists and dicts written with `marshal` (fast to read back;
only this process's own writes are ever read) under a name that carries a key of their
sources. A missing, damaged or foreign entry is rebuilt; the new file is written atomically
(`harness.fileio.atomic_write_bytes`) and older versions of it (the same stem with another
key) are removed.
"""

from __future__ import annotations

import marshal
from pathlib import Path
from typing import Any, Callable

from ..fileio import atomic_write_bytes

__all__ = ["marshal_file"]


def marshal_file(path: Path, build: Callable[[], Any], *, valid: Callable[[Any], bool] = lambda data: True,
                 older: str = "") -> Any:
    """The plain data in `path` when it reads back and passes `valid`, else `build()`'s,
    written to `path`; files beside it matching the glob `older` are then removed."""
    try:
        data = marshal.loads(path.read_bytes())
        if valid(data):
            return data
    except (OSError, EOFError, ValueError, TypeError):
        pass  # missing or damaged: rebuild
    data = build()
    atomic_write_bytes(path, marshal.dumps(data))
    for old in path.parent.glob(older) if older else ():
        if old != path:
            try:
                old.unlink()
            except OSError:
                pass
    return data
