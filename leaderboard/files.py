"""File writing for published outputs: atomic, and readable by a static web server; inside
`staged()`, every write and removal of a build takes effect together at its end."""

from __future__ import annotations

import contextlib
import os
import sys
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Iterator

from harness import fileio

__all__ = ["write_public", "remove_public", "staged"]

#: The open build's files written in full beside their places, and the files it removes.
_STAGE: ContextVar[tuple[list[Any], list[Path]] | None] = ContextVar("leaderboard_stage", default=None)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_public(path: Path, text: str) -> None:
    """`atomic_write_text`, then the usual 0644-minus-umask mode (temp files are created 0600,
    which a web server running as another user could not read). Inside `staged()` the file
    is written beside `path` and takes its name when the build ends."""
    stage = _STAGE.get()
    if stage is None:
        fileio.atomic_write_text(path, text)
        os.chmod(path, 0o666 & ~_umask())
        return
    place = fileio.atomic_path(path)
    tmp = place.__enter__()
    stage[0].append(place)
    with open(tmp, "w", encoding="utf-8", errors=fileio.NAME_BYTES, newline="\n") as fh:
        fh.write(text)


def remove_public(path: Path) -> None:
    """Remove a published file (inside `staged()`: when the build ends, if it ends well)."""
    stage = _STAGE.get()
    if stage is None:
        path.unlink(missing_ok=True)
    else:
        stage[1].append(path)


@contextlib.contextmanager
def staged() -> Iterator[None]:
    """A build whose files change together: each `write_public` in the block is written in full
    beside its place (nothing of it shows), and when the block ends they all take their names,
    in the order written, and the `remove_public` files go. A block that raises (a full disk,
    a bad run folder found late) leaves every published file as it was, with no temporary
    file beside it. (Renames, not one: a reader in the moment of them can see both builds.)"""
    places: list[Any] = []
    removed: list[Path] = []
    token = _STAGE.set((places, removed))
    try:
        yield
    except BaseException:
        for place in places:  # each temporary file is removed
            place.__exit__(*sys.exc_info())
        raise
    finally:
        _STAGE.reset(token)
    for i, place in enumerate(places):
        try:
            place.__exit__(None, None, None)  # synced, made readable, renamed into place
        except BaseException:
            for rest in places[i + 1:]:
                rest.__exit__(*sys.exc_info())
            raise
    for path in removed:
        path.unlink(missing_ok=True)
