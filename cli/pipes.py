"""Output to a reader that has gone (`harness run ... | head`): a broken pipe is not a failure.

Python ignores SIGPIPE, so a write to a closed pipe raises BrokenPipeError wherever it
happens: in the middle of a run (a model's "training on ..." line in a worker process), it
failed the model and lost what the run had left to compute. While a command runs, its
standard streams are wrapped: the first broken pipe points the stream's descriptor at
os.devnull and the command goes on, writing its files and ending with its own exit code.
Worker processes forked meanwhile inherit the wrapped streams.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from typing import Any, Iterator

__all__ = ["survive_broken_pipes"]


class _PipeSafe:
    """`stream` (a text stream, or the binary one under it) whose writes and flushes after a
    broken pipe go nowhere."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._buffer: _PipeSafe | None = None

    @property
    def buffer(self) -> _PipeSafe:
        """The binary stream under the text one, as safe: click writes there through a text
        stream of its own when the stream's encoding is ASCII (LC_ALL=C without UTF-8 mode),
        and so did a broken pipe end `harness list suites | head -1` with exit 1 there."""
        if self._buffer is None:
            self._buffer = _PipeSafe(self._stream.buffer)  # AttributeError: __getattr__ says so too
        return self._buffer

    def write(self, text: Any) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._discard()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._discard()

    def _discard(self) -> None:
        try:
            fd = self._stream.fileno()
        except (OSError, ValueError, io.UnsupportedOperation):  # not a file (captured output)
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, fd)  # what is still buffered goes there too, on the next flush
        finally:
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:  # isatty, encoding, buffer, fileno...
        return getattr(self._stream, name)


@contextlib.contextmanager
def survive_broken_pipes() -> Iterator[None]:
    """sys.stdout and sys.stderr wrapped (`_PipeSafe`) for the block; restored after it."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (_PipeSafe(s) if s is not None else s for s in saved)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):  # what is buffered, while a broken pipe is still absorbed
            if stream is not None:
                stream.flush()
        sys.stdout, sys.stderr = saved
