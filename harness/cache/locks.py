"""One builder at a time for a cache entry shared by concurrent processes (`--jobs`, two runs
on one cache): the second waits, checks the entry again and reads what the first wrote.
The empty lock file stays after the build, one per entry, and goes with its kind (`harness
cache clear`): removing it on release would let a process that opened it before the removal
and one that opens a new one hold "the" lock together."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Callable, Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: concurrent builders duplicate work
    fcntl = None  # type: ignore[assignment]

__all__ = ["build_lock"]


@contextlib.contextmanager
def build_lock(path: Path, waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold an exclusive advisory lock on `.<name>.lock` beside `path` (released on exit,
    and by the OS when the process dies, so a killed builder never blocks the next one);
    `waiting` is called once when another holder makes this one wait."""
    lock = path.parent / f".{path.name}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+b") as fh:
        if fcntl is not None:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if waiting is not None:
                    waiting()
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
