"""Deterministic random streams keyed by strings (str `hash()` is salted per process)."""

from __future__ import annotations

# hashlib directly, not harness.digest: the seed is the first 8 raw bytes of the SHA-256
# (an integer for random.Random), not a hex digest, and changing it would change every
# seeded stream (toy data, samples, splits).
import hashlib
import random
from typing import Any

from .errors import UsageError

__all__ = ["seeded_random", "MAX_SEED", "check_seed"]

#: Largest run seed: 2^32 - 1, what every seeded library (random, numpy, torch) accepts.
MAX_SEED = 2**32 - 1


def check_seed(seed: Any) -> int:
    """`seed` if it is an integer in [0, MAX_SEED]; UsageError otherwise (a negative seed
    made probes fail with zero rows while the run reported itself complete)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise UsageError(f"seed {seed!r} must be an integer from 0 to {MAX_SEED} (2^32 - 1)")
    return seed


def seeded_random(*parts: Any) -> random.Random:
    """A `random.Random` seeded by SHA-256 of the parts joined with "/" (same parts, same stream)."""
    blob = "/".join(str(p) for p in parts).encode()
    return random.Random(int.from_bytes(hashlib.sha256(blob).digest()[:8], "big"))
