"""Deterministic random streams keyed by strings (str `hash()` is salted per process)."""

from __future__ import annotations

import hashlib
import random
from typing import Any

__all__ = ["seeded_random"]


def seeded_random(*parts: Any) -> random.Random:
    """A `random.Random` seeded by SHA-256 of the parts joined with "/" (same parts, same stream)."""
    blob = "/".join(str(p) for p in parts).encode()
    return random.Random(int.from_bytes(hashlib.sha256(blob).digest()[:8], "big"))
