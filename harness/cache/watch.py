"""Notice a cache deleted or replaced while a run uses it (docs/architecture.md, "The caches":
what is watched, and why)."""

from __future__ import annotations

import os
from pathlib import Path

from .contents import CONTENTS_KIND
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
    """The caches one run uses, as they were when it started (a kind: when it first appeared)."""

    def __init__(self, cache: PredictionCache) -> None:
        self._root = cache_dir()
        own = [] if cache.outputs_root is None else [cache.outputs_root.parent]
        self._seen = {path: _identity(path) for path in [cache.path, self._root, *own]}
        self._note_kinds()

    def _note_kinds(self) -> None:
        """Watch the cache's kinds not watched yet (a kind made since the last check)."""
        try:
            kinds = cache_kinds(self._root)
        except OSError:  # the folder is going away now: `lost` tells
            return
        self._seen.update({path: _identity(path) for path in kinds
                           if path.name not in (OUTPUTS_KIND, CONTENTS_KIND) and path not in self._seen})

    def lost(self) -> StorageError | None:
        """The error naming a cache gone or replaced since the run started; None if none is."""
        gone = [path for path, seen in self._seen.items() if seen is not None and _identity(path) != seen]
        if not gone:
            return None
        return StorageError(f"the cache {gone[0]} was deleted or replaced during the run, so what the run "
                            "computed since cannot be trusted (a model's weights or predictions may be gone); the "
                            "run is marked failed: re-run with --resume to redo it")

    def check(self) -> None:
        """Raise `lost()`'s error, if any; else watch the kinds made since the last check."""
        if (error := self.lost()) is not None:
            raise error
        self._note_kinds()
