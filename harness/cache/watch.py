"""Notice a cache deleted or replaced while a run uses it.

A run reads and writes the harness cache throughout: the prediction cache, trained weights,
generated data, probe outputs. If that folder (or a `--cache` file) is deleted mid-run, what
follows is not the run that was asked for: an open SQLite connection goes on writing into a
file nobody can open again, a deferred fit finds no weights, generated data is half gone. The
run checks its caches after every probe (`CacheWatch.check`) and fails with one line rather
than complete on such grounds; `--resume` then starts from what is left.

A path is "the same" while it names the same file (device and inode): deleted, or deleted and
created again, it is not.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import StorageError
from ..paths import cache_dir
from .predictions import PredictionCache

__all__ = ["CacheWatch"]


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class CacheWatch:
    """The caches one run uses, as they were when it started."""

    def __init__(self, cache: PredictionCache) -> None:
        paths = [cache.path, cache_dir()]
        if cache.outputs_root is not None:
            paths.append(cache.outputs_root.parent)
        self._seen = {path: _identity(path) for path in paths}

    def lost(self) -> StorageError | None:
        """The error naming a cache that is gone or replaced since the run started (None
        when every one is still there)."""
        gone = [path for path, seen in self._seen.items() if seen is not None and _identity(path) != seen]
        if not gone:
            return None
        return StorageError(f"the cache {gone[0]} was deleted or replaced during the run, so what the run "
                            "computed since cannot be trusted (a model's weights or predictions may be gone); the "
                            "run is marked failed: re-run with --resume to redo it")

    def check(self) -> None:
        """Raise `lost()`'s error, if any."""
        error = self.lost()
        if error is not None:
            raise error
