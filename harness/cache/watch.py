"""Notice a cache deleted or replaced while a run uses it.

A run reads and writes the harness cache throughout: the prediction cache, trained weights,
generated data (the toy benchmark's images among them), decoy sets, perturbations. If that
folder, or one of its kinds (`harness cache clear KIND`), or a `--cache` file is deleted
mid-run, what follows is not the run that was asked for: an open SQLite connection goes on
writing into a file nobody can open again, a deferred fit finds no weights, a probe finds
half of its images gone and scores the rest. The run checks its caches after every probe
(`CacheWatch.check`) and fails with one line rather than complete on such grounds (and the
probe that ran on them is not stored for reuse); `--resume` then starts from what is left.

A path is "the same" while it names the same file (device and inode): deleted, or deleted and
created again, it is not. The kinds are those present when the run starts and those that
appear by a later check; the probe-output kind is not watched (the run only adds to it:
clearing it mid-run changes no number).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import StorageError
from ..paths import cache_dir
from .artifacts import cache_kinds
from .outputs import KIND as OUTPUTS_KIND
from .predictions import PredictionCache

__all__ = ["CacheWatch"]


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class CacheWatch:
    """The caches one run uses, as they were when it started (and each kind as it was when
    it first appeared)."""

    def __init__(self, cache: PredictionCache) -> None:
        self._root = cache_dir()
        paths = [cache.path, self._root]
        if cache.outputs_root is not None:
            paths.append(cache.outputs_root.parent)
        self._seen = {path: _identity(path) for path in paths}
        self._note_kinds()

    def _note_kinds(self) -> None:
        """Watch the cache's kinds not watched yet (a kind made since the last check)."""
        try:
            kinds = cache_kinds(self._root)
        except OSError:  # the folder is going away now: `lost` tells
            return
        for path in kinds:
            if path.name != OUTPUTS_KIND and path not in self._seen:
                self._seen[path] = _identity(path)

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
        """Raise `lost()`'s error, if any; else watch the kinds made since the last check."""
        error = self.lost()
        if error is not None:
            raise error
        self._note_kinds()
