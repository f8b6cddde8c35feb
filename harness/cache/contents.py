"""Digests of files' bytes (`file_content`), memoized per process and remembered across
processes in the harness cache (kind `digests`), so a re-run in a new process stats each image
instead of reading it (docs/architecture.md, "The caches"; `benchmarks/image_digests.py`)."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from ..digest import DIGEST_LENGTH, digest_bytes
from ..errors import HarnessError
from ..fileio import atomic_write_bytes
from ..paths import cache_dir
from ..project import CACHE_ENV

__all__ = ["CONTENTS_KIND", "CONTENTS_LIMIT", "file_content", "forget_contents", "save_contents"]

_CONTENT_MEMO: dict[tuple[Any, ...], str] = {}

#: The kind (a folder of the harness cache) of the remembered digests of `file_content`.
CONTENTS_KIND = "digests"
#: Entries kept in it: past this, those whose file no longer stats as recorded are dropped,
#: then the oldest (a digest dropped is only read again).
CONTENTS_LIMIT = 400_000
#: New digests a process holds before it writes them (a run also writes after each task).
_SAVE_EVERY = 20_000
#: A digest is remembered only for a file changed longer ago than this (ns): a file rewritten
#: within the file system's timestamp granularity of being read could keep every stamp.
_SETTLED_NS = 2 * 10**9


def file_content(path: Path | str) -> str | None:
    """Digest of a file's bytes, None when it cannot be read: the same wherever the file is
    moved, another for a file rewritten. Memoized per process, and remembered across processes
    in the harness cache (`CONTENTS_KIND`), by absolute path, size, modification and change
    times, inode and device: a file rewritten keeps none of them all (its ctime moves even when
    `touch -r` or `cp -p` restores size and mtime), so it is read again; a new process only
    stats a file it has digested before; a folder moved or copied is read once more, with the
    same digests (docs/architecture.md, "The caches")."""
    try:
        st = os.stat(path)
        full = os.path.abspath(path)
        stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
        key = (full, *stamp)
        if key not in _CONTENT_MEMO:
            known = _contents().files.get(full)
            if isinstance(known, list) and len(known) == 6 and known[:5] == stamp and isinstance(known[5], str):
                _CONTENT_MEMO[key] = known[5]
            else:
                _CONTENT_MEMO[key] = digest_bytes(Path(path).read_bytes(), DIGEST_LENGTH)
                if time.time_ns() - max(st.st_ctime_ns, st.st_mtime_ns) > _SETTLED_NS:
                    _remember(full, [*stamp, _CONTENT_MEMO[key]])
        return _CONTENT_MEMO[key]
    except OSError:
        return None


class _Contents:
    """The remembered digests of one harness cache: loaded once (one file read), added to in
    memory, written back by `save_contents`."""

    def __init__(self, where: tuple[str, ...]) -> None:
        self.where = where  # the variables that place the harness cache, as they were
        self.path: Path | None = None
        self.files: dict[str, Any] = {}
        self.new: dict[str, list[Any]] = {}
        with contextlib.suppress(HarnessError, OSError):  # no usable cache: digests are not remembered
            self.path = cache_dir(CONTENTS_KIND) / "files.json"
            self.files = _read_contents(self.path)


_CONTENTS: list[_Contents] = []
#: Held while the remembered digests change (a model's threads key their inputs at once).
_CONTENTS_LOCK = threading.RLock()


def _cache_place() -> tuple[str, ...]:
    return tuple(os.environ.get(name, "") for name in (CACHE_ENV, "XDG_CACHE_HOME", "HOME"))


def _contents() -> _Contents:
    where = _cache_place()
    if not _CONTENTS or _CONTENTS[0].where != where:  # another cache (a test's, a program's)
        with _CONTENTS_LOCK:
            if not _CONTENTS or _CONTENTS[0].where != where:
                save_contents()
                _CONTENTS[:] = [_Contents(where)]
    return _CONTENTS[0]


def _remember(full: str, entry: list[Any]) -> None:
    with _CONTENTS_LOCK:
        store = _contents()
        store.files[full] = store.new[full] = entry
        if len(store.new) >= _SAVE_EVERY:
            save_contents()


def _read_contents(path: Path) -> dict[str, Any]:
    """The stored digests; {} for a store that is absent or damaged (it is written anew)."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8", "surrogateescape"))
    except (OSError, ValueError, RecursionError):
        return {}
    files = data.get("files") if isinstance(data, dict) and data.get("version") == 1 else None
    return files if isinstance(files, dict) else {}


def save_contents() -> None:
    """Write the digests `file_content` found since the last save into the harness cache, merged
    with what other processes wrote meanwhile (two writing at once: one's additions are lost,
    read again next time; the file is replaced atomically, never torn). A cache that cannot be
    written keeps nothing, silently: the digests are only a shortcut."""
    with _CONTENTS_LOCK:
        if _CONTENTS and _CONTENTS[0].new and _CONTENTS[0].path is not None:
            _save(_CONTENTS[0])


def _save(store: _Contents) -> None:
    files = _read_contents(store.path)
    for full, entry in store.new.items():
        files.pop(full, None)
        files[full] = entry  # last: the newest are kept when the store is cut
    if len(files) > CONTENTS_LIMIT:
        files = _prune(files)
    blob = json.dumps({"version": 1, "files": files}, ensure_ascii=False, separators=(",", ":"))
    with contextlib.suppress(HarnessError, OSError):
        cache_dir(CONTENTS_KIND)  # made and tagged again if `harness cache clear` removed it meanwhile
        atomic_write_bytes(store.path, blob.encode("utf-8", "surrogateescape"))
    store.files, store.new = files, {}


def _prune(files: dict[str, Any]) -> dict[str, Any]:
    """Entries whose file still stats as recorded, the newest `CONTENTS_LIMIT` of them."""
    kept = {}
    for full, entry in files.items():
        try:
            st = os.stat(full)
        except OSError:
            continue
        if isinstance(entry, list) and entry[:5] == [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]:
            kept[full] = entry
    return dict(list(kept.items())[-CONTENTS_LIMIT:])


atexit.register(save_contents)  # a forked worker (`--jobs`) exits without it: the run saves after each task


def forget_contents() -> None:
    """Drop what this process memoized and loaded, as a new process starts (tests, benchmarks);
    nothing stored is removed."""
    with _CONTENTS_LOCK:
        _CONTENT_MEMO.clear()
        _CONTENTS.clear()
