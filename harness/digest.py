"""SHA-256 digests: every key the harness derives from structured data (cache keys,
fingerprints, run identity) is `digest` of its canonical JSON, so equal inputs give equal keys
everywhere and the length is chosen in one place."""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Iterable

from .locations import Locations

__all__ = ["digest", "digest_bytes", "digest_stream", "file_stamps", "source_digest", "class_source_digest",
           "DIGEST_LENGTH"]

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
