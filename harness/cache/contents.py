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
from ..paths import cache_dir, tag_cache_folder
from ..project import CACHE_ENV

__all__ = ["CONTENTS_KIND", "CONTENTS_LIMIT", "file_content", "forget_contents", "save_contents"]

_CONTENT_MEMO: dict[tuple[Any, ...], str] = {}

#: The kind (a folder of the harness cache) of the remembered digests of `file_content`.
CONTENTS_KIND = "digests"
#: Entries kept in it: past this, those whose file no longer stats as recorded are dropped,
#: then the oldest (a digest dropped is only read again).
CONTENTS_LIMIT = 400_000
#: The store is a log of JSON lines `[path, size, mtime_ns, ctime_ns, inode, device, digest]`,
#: the last line of a path winning: a save appends the new digests alone (rewriting a store of
#: 400,000 entries, 62 MB, took 2.7 s per save, and a run saves after each task). It is rewritten
#: (`_compact`) only once it holds twice `CONTENTS_LIMIT` lines or a damaged one.
_STORE_NAME = "files.jsonl"
#: A store larger than this is not read (it is damaged), and is written anew.
_STORE_BYTES = 1 << 30
#: New digests a process holds before it writes them (a run also writes after each task).
_SAVE_EVERY = 20_000
#: A digest is remembered, even by the process, only for a file changed longer ago than this
#: (ns): a file rewritten within the file system's timestamp granularity of being read could
#: keep every stamp (ext3, HFS+, FAT; a kernel's clock tick).
_SETTLED_NS = 2 * 10**9


def file_content(path: Path | str) -> str | None:
    """Digest of a file's bytes, None when it cannot be read: the same wherever the file is
    moved, another for a file rewritten. Memoized per process, and remembered across processes
    in the harness cache (`CONTENTS_KIND`), by absolute path, size, modification and change
    times, inode and device: a file rewritten keeps none of them all (its ctime moves even when
    `touch -r` or `cp -p` restores size and mtime), so it is read again; a new process only
    stats a file it has digested before; a folder moved or copied is read once more, with the
    same digests; a file changed less than `_SETTLED_NS` ago is read each time
    (docs/architecture.md, "The caches")."""
    try:
        st = os.stat(path)
        full = os.path.abspath(path)
        stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
        key = (full, *stamp)
        found = _CONTENT_MEMO.get(key)
        if found is None:
            known = _contents().files.get(full)
            if known is not None and known[:5] == stamp:
                found = _CONTENT_MEMO[key] = known[5]
            else:
                found = digest_bytes(Path(path).read_bytes(), DIGEST_LENGTH)
                if time.time_ns() - max(st.st_ctime_ns, st.st_mtime_ns) > _SETTLED_NS:
                    _CONTENT_MEMO[key] = found
                    _remember(full, [*stamp, found])
        return found
    except OSError:
        return None


class _Contents:
    """The remembered digests of one harness cache: loaded once (one file read), added to in
    memory, appended by `save_contents`."""

    def __init__(self, where: tuple[str, ...]) -> None:
        self.where = where  # the variables that place the harness cache, as they were
        self.path: Path | None = None
        self.files: dict[str, list[Any]] = {}
        self.new: dict[str, list[Any]] = {}
        self.lines = 0  # in the stored file, as far as this process knows
        self.damaged = False
        with contextlib.suppress(HarnessError, OSError):  # no usable cache: digests are not remembered
            self.path = cache_dir(CONTENTS_KIND) / _STORE_NAME
            self.files, self.lines, self.damaged = _read_contents(self.path)


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


def _entry(line: bytes) -> Any:
    """One stored line's JSON value; None for a line that is not JSON (torn by a crash)."""
    try:
        return json.loads(line.decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError):
        return None


def _checked(entry: Any) -> list[Any] | None:
    """`entry` when it is `[path, size, mtime_ns, ctime_ns, inode, device, digest]`, else None."""
    if (isinstance(entry, list) and len(entry) == 7 and isinstance(entry[0], str)
            and all(type(n) is int for n in entry[1:6]) and isinstance(entry[6], str)
            and len(entry[6]) == DIGEST_LENGTH):
        return entry
    return None


def _read_contents(path: Path) -> tuple[dict[str, list[Any]], int, bool]:
    """The stored digests by path, the file's lines, and whether one was damaged; nothing for a
    store that is absent, not a file or over `_STORE_BYTES` (damaged: it is written anew)."""
    try:
        with open(path, "rb") as fh:
            if os.fstat(fh.fileno()).st_size > _STORE_BYTES:
                return {}, 0, True
            lines = fh.read().split(b"\n")
    except FileNotFoundError:
        return {}, 0, False
    except OSError:
        return {}, 0, True
    files: dict[str, list[Any]] = {}
    damaged = False
    lines = [line for line in lines if line]
    parsed = [_entry(line) for line in lines]
    for entry in map(_checked, parsed):
        if entry is None:
            damaged = True
        else:
            files.pop(entry[0], None)  # last: the newest are kept when the store is cut
            files[entry[0]] = entry[1:]
    return files, len(lines), damaged


def save_contents() -> None:
    """Append the digests `file_content` found since the last save to the harness cache (one
    write to a file opened for appending: processes appending at once do not mix their lines;
    a line torn by a crash is skipped when read). A cache that cannot be written keeps nothing,
    silently: the digests are only a shortcut."""
    with _CONTENTS_LOCK:
        if _CONTENTS and _CONTENTS[0].new and _CONTENTS[0].path is not None:
            _save(_CONTENTS[0])


def _line(full: str, entry: list[Any]) -> bytes:
    return json.dumps([full, *entry], ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogateescape")


def _save(store: _Contents) -> None:
    assert store.path is not None
    new, store.new = store.new, {}
    with contextlib.suppress(OSError):
        store.path.parent.mkdir(parents=True, exist_ok=True)  # `harness cache clear` removed it meanwhile
        tag_cache_folder(store.path.parent)
        if store.damaged or store.lines + len(new) > 2 * CONTENTS_LIMIT:
            _compact(store, new)
            return
        # a leading newline: a line a crash left unfinished stays apart from these
        blob = b"\n" + b"\n".join(_line(full, entry) for full, entry in new.items()) + b"\n"
        fd = os.open(store.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            os.write(fd, blob)
        finally:
            os.close(fd)
        store.lines += len(new) + 1


def _compact(store: _Contents, new: dict[str, list[Any]]) -> None:
    """Rewrite the store with what it holds now and this process's digests, one line a path, cut
    to `CONTENTS_LIMIT` (what another process appends meanwhile is lost: read again next time)."""
    assert store.path is not None
    files, _lines, _damaged = _read_contents(store.path)
    for full, entry in new.items():
        files.pop(full, None)
        files[full] = entry  # last: the newest are kept when the store is cut
    if len(files) > CONTENTS_LIMIT:
        files = _prune(files)
    atomic_write_bytes(store.path, b"".join(_line(full, entry) + b"\n" for full, entry in files.items()))
    store.files, store.lines, store.damaged = files, len(files), False


def _prune(files: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Entries whose file still stats as recorded, the newest `CONTENTS_LIMIT` of them."""
    kept = {}
    for full, entry in files.items():
        try:
            st = os.stat(full)
        except OSError:
            continue
        if entry[:5] == [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]:
            kept[full] = entry
    return dict(list(kept.items())[-CONTENTS_LIMIT:])


atexit.register(save_contents)  # a forked worker (`--jobs`) exits without it: the run saves after each task


def forget_contents() -> None:
    """Drop what this process memoized and loaded, as a new process starts (tests, benchmarks);
    nothing stored is removed."""
    with _CONTENTS_LOCK:
        _CONTENT_MEMO.clear()
        _CONTENTS.clear()
