"""One digest helper: SHA-256 of canonical JSON (cache keys, fingerprints, run identity).

Every key the harness derives from structured data goes through `digest`, so equal inputs
give equal keys everywhere and the length is chosen in one place.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable

__all__ = ["digest", "digest_bytes", "digest_stream", "DIGEST_LENGTH"]

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
