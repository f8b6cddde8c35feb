"""Derived files of plain data in the harness cache: read when present, else built once.

Indexes built from installed resources (the WordNet index, the tagger's tables, word
statistics) are plain tuples, lists and dicts written with `marshal` (fast to read back;
only this process's own writes are ever read) under a name that carries a key of their
sources (`cache_name`: `<stem>-<source>-<key>.marshal`, where `<source>` names the source
itself, e.g. an installed folder, and `<key>` everything its content depends on). A missing,
damaged or foreign entry is rebuilt; the new file is written atomically
(`harness.fileio.atomic_write_bytes`) and older versions of it (the same stem and source with
another key) are removed, never the files of another source.
"""

from __future__ import annotations

import marshal
from pathlib import Path
from typing import Any, Callable

from harness.digest import digest
from harness.fileio import atomic_write_bytes

__all__ = ["cache_name", "marshal_file", "older_versions"]


def cache_name(stem: str, source: Any, key: Any) -> str:
    """`<stem>-<8 hex digits of source>-<16 hex digits of key>.marshal`."""
    return f"{stem}-{digest(source)[:8]}-{digest(key)[:16]}.marshal"


def older_versions(name: str) -> tuple[str, ...]:
    """Globs of the files a new `cache_name` file replaces: the same stem and source with
    another key, and files of the earlier one-part naming (`<stem>-<16 hex digits>.marshal`)."""
    stem, source, _key = name[: -len(".marshal")].rsplit("-", 2)
    return (f"{stem}-{source}-*.marshal", f"{stem}-{'?' * 16}.marshal")


def marshal_file(path: Path, build: Callable[[], Any], *, valid: Callable[[Any], bool] = lambda data: True,
                 older: str | tuple[str, ...] = "") -> Any:
    """The plain data in `path` when it reads back and passes `valid`, else `build()`'s,
    written to `path`; files beside it matching the glob(s) `older` are then removed."""
    try:
        data = marshal.loads(path.read_bytes())
        if valid(data):
            return data
    except (OSError, EOFError, ValueError, TypeError):
        pass  # missing or damaged: rebuild
    data = build()
    atomic_write_bytes(path, marshal.dumps(data))
    for old in {f for pattern in ((older,) if isinstance(older, str) else older) if pattern
                for f in path.parent.glob(pattern)}:
        if old != path:
            try:
                old.unlink()
            except OSError:
                pass
    return data
