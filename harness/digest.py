"""SHA-256 digests: every key the harness derives from structured data (cache keys,
fingerprints, run identity) is `digest` of its canonical JSON, so equal inputs give equal keys
everywhere and the length is chosen in one place."""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import importlib.util
import inspect
import json
import os
import sys
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Iterable

from .errors import HarnessError
from .fileio import atomic_write_bytes
from .locations import Locations
from .paths import cache_dir
from .project import CACHE_ENV

__all__ = ["digest", "digest_bytes", "digest_stream", "file_stamps", "file_content", "save_contents",
           "CONTENTS_KIND", "source_digest",
           "class_source_digest", "DIGEST_LENGTH"]

#: Hex characters kept (128 bits): ample for cache keys, short enough for folder names.
DIGEST_LENGTH = 32


def canonical_json(obj: Any) -> bytes:
    """Sorted-key JSON (non-JSON values through `str`), the bytes every digest hashes. A path
    Python could not decode (a folder named with a Latin-1 byte, `o\\xe9`, kept as `o\\udce9`)
    counts as the bytes of its name (surrogateescape): the run identity holds the absolute
    --data-dir, which such a working folder is part of. Any other text gives the bytes it gave."""
    return json.dumps(obj, sort_keys=True, default=str, ensure_ascii=False).encode("utf-8", "surrogateescape")


def file_stamps(paths: Iterable[Path | str | None], root: Path | str | None = None) -> list[list[Any]]:
    """[path, size, mtime_ns] of each file for a key, [path, None, None] for one that is
    absent (so adding, removing or editing it changes the key); None paths are skipped. A
    path inside `root` (a dataset's `--data-dir`) is written relative to it, after the token
    `<<data-dir>>/`, so the folder moved or copied elsewhere with its files' sizes and
    modification times (`mv`, `cp -a`, `rsync -a`) gives the same stamps (`Locations.path`, as
    probe outputs name it); the token keeps it apart from the same relative path outside any
    root (docs/architecture.md, "The caches")."""
    where = Locations({"data-dir": root})
    stamps: list[list[Any]] = []
    for path in paths:
        if path is None:
            continue
        full = os.path.abspath(path)
        inside = where.path(full)
        name = inside if inside != full else str(path)  # outside `root`: as given
        try:
            st = os.stat(path)
            stamps.append([name, st.st_size, st.st_mtime_ns])
        except OSError:
            stamps.append([name, None, None])
    return stamps


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


def digest(obj: Any, length: int = DIGEST_LENGTH) -> str:
    """Hex SHA-256 of `obj`'s canonical JSON, truncated to `length` characters."""
    return hashlib.sha256(canonical_json(obj)).hexdigest()[:length]


def digest_bytes(blob: bytes, length: int = 64) -> str:
    """Hex SHA-256 of raw bytes (file contents)."""
    return hashlib.sha256(blob).hexdigest()[:length]


def digest_stream(items: Iterable[Any], length: int = 64) -> str:
    """Hex SHA-256 over the JSON of each item in order, one per line (no list is built)."""
    h = hashlib.sha256()
    for item in items:
        h.update(json.dumps(item, ensure_ascii=False, default=str).encode())
        h.update(b"\n")
    return h.hexdigest()[:length]


_SOURCE_MEMO: dict[str, str] = {}


def source_digest(modules: Iterable[str]) -> str:
    """Digest of the Python source of the top-level packages of `modules` and the harness, to
    key cached outputs that depend on code such as probe outputs (memoized per process; ~200
    files, a few ms). A module that cannot be found by name (`__main__` of a script or a
    notebook) is digested from what the process holds, never memoized (`_loaded_module_digest`:
    a notebook cell can redefine it)."""
    tops = sorted({m.split(".")[0] for m in modules} | {"harness"})
    parts = []
    for top in tops:
        if top in _SOURCE_MEMO:
            parts.append((top, _SOURCE_MEMO[top]))
            continue
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):  # ValueError: `__main__.__spec__ is None` (a script, a notebook)
            spec = None
        if spec is None and top in sys.modules:
            parts.append((top, _loaded_module_digest(sys.modules[top])))
            continue
        roots = list(spec.submodule_search_locations or []) if spec else []
        files = [(Path(spec.origin).name, Path(spec.origin))] if spec and spec.origin and not roots else []
        for root in roots:
            files += [(p.relative_to(root).as_posix(), p) for p in sorted(Path(root).rglob("*.py"))]
        h = hashlib.sha256()
        for name, path in files:
            h.update(name.encode())
            h.update(path.read_bytes())
        _SOURCE_MEMO[top] = h.hexdigest()[:DIGEST_LENGTH]
        parts.append((top, _SOURCE_MEMO[top]))
    return digest(parts)


def _loaded_module_digest(module: ModuleType) -> str:
    """Its file's bytes, else the source of the classes and functions it defines (a notebook
    keeps cell sources for `inspect`); an object whose source is nowhere counts by its
    identity, so its outputs are never reused by another process or a redefinition."""
    path = getattr(module, "__file__", None)
    if path:
        try:
            return digest_bytes(Path(path).read_bytes(), DIGEST_LENGTH)
        except OSError:
            pass  # a file that is gone: digested like a notebook below
    found = []
    for key, obj in sorted(vars(module).items()):
        if (inspect.isclass(obj) or inspect.isfunction(obj)) and getattr(obj, "__module__", None) == module.__name__:
            try:
                found.append((key, inspect.getsource(obj)))
            except (OSError, TypeError):
                found.append((key, f"(no source) {id(obj)} {os.getpid()}"))
    return digest({"module": module.__name__, "definitions": found})


def class_source_digest(cls: type) -> str:
    """Digest of the source files defining `cls` and its base classes (the code a fitted
    model's state depends on); builtins are skipped, and a class defined where no file
    holds it (a notebook cell) counts by its source text, else by its identity."""
    files: list[str] = []
    texts: list[str] = []
    for klass in cls.__mro__:
        if klass.__module__ == "builtins":
            continue
        try:
            path = inspect.getsourcefile(klass)
        except (OSError, TypeError):  # no file: `__main__` of a notebook or an interactive session
            path = None
        if path and Path(path).is_file():
            if path not in files:
                files.append(path)
            continue
        if getattr(sys.modules.get(klass.__module__), "__file__", None):
            continue  # compiled code (an extension module): its version is in the manifest
        try:
            texts.append(inspect.getsource(klass))
        except (OSError, TypeError):
            texts.append(f"(no source) {klass.__qualname__} {id(klass)} {os.getpid()}")
    h = hashlib.sha256()
    for path in files:
        h.update(Path(path).read_bytes())
    for text in texts:
        h.update(text.encode())
    return h.hexdigest()[:DIGEST_LENGTH]
