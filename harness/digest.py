"""One digest helper: SHA-256 of canonical JSON (cache keys, fingerprints, run identity).

Every key the harness derives from structured data goes through `digest`, so equal inputs
give equal keys everywhere and the length is chosen in one place.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import json
from pathlib import Path
from typing import Any, Iterable

__all__ = ["digest", "digest_bytes", "digest_stream", "source_digest", "class_source_digest", "DIGEST_LENGTH"]

#: Hex characters kept (128 bits): ample for cache keys, short enough for folder names.
DIGEST_LENGTH = 32


def canonical_json(obj: Any) -> bytes:
    """Sorted-key JSON (non-JSON values through `str`), the bytes every digest hashes."""
    return json.dumps(obj, sort_keys=True, default=str, ensure_ascii=False).encode()


def digest(obj: Any, length: int = DIGEST_LENGTH) -> str:
    """Hex SHA-256 of `obj`'s canonical JSON, truncated to `length` characters."""
    return hashlib.sha256(canonical_json(obj)).hexdigest()[:length]


def digest_bytes(blob: bytes, length: int = 64) -> str:
    """Hex SHA-256 of raw bytes (file contents)."""
    return hashlib.sha256(blob).hexdigest()[:length]


def digest_stream(items: Iterable[Any], length: int = 64) -> str:
    """Hex SHA-256 over the canonical JSON of each item in order, one per line (no list
    of the whole stream is built)."""
    h = hashlib.sha256()
    for item in items:
        h.update(json.dumps(item, ensure_ascii=False, default=str).encode())
        h.update(b"\n")
    return h.hexdigest()[:length]


_SOURCE_MEMO: dict[str, str] = {}


def source_digest(modules: Iterable[str]) -> str:
    """Digest of the Python source of the top-level packages of `modules`, plus the harness
    itself: any code change in them changes it (memoized per process; ~200 files, a few ms).
    Used to key cached outputs that depend on code, such as probe outputs."""

    tops = sorted({m.split(".")[0] for m in modules} | {"harness"})
    parts = []
    for top in tops:
        if top not in _SOURCE_MEMO:
            spec = importlib.util.find_spec(top)
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


def class_source_digest(cls: type) -> str:
    """Digest of the source files defining `cls` and its base classes (the code a fitted
    model's state depends on); builtins and classes without a source file are skipped."""

    files = []
    for klass in cls.__mro__:
        try:
            path = inspect.getsourcefile(klass)
        except TypeError:
            continue
        if path and path not in files:
            files.append(path)
    h = hashlib.sha256()
    for path in files:
        with open(path, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()[:DIGEST_LENGTH]
