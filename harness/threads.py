"""A thread pool that a stop cannot wedge, for plugins (docs/architecture.md, "How a run
ends"). A signal's Python handler runs in the main thread between two bytecodes, and the
exception it raises (`harness.errors.Stopped`, KeyboardInterrupt) can land while that thread
holds one of a `ThreadPoolExecutor`'s own locks: every worker then waits for a lock nobody
will release, and the process hangs in `shutdown`. While a chunk of work runs, and while the
pool shuts down, `thread_map` notes SIGINT and SIGTERM instead, and hands each one noted to the
handler that was in place once the chunk is done, where no lock is held. It replaces the
handlers only for that moment, and only in the main thread (where Python runs them)."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Iterator, TypeVar

__all__ = ["thread_map"]

_In = TypeVar("_In")
_Out = TypeVar("_Out")

_HELD = (signal.SIGINT, signal.SIGTERM)


class _Held:
    """The handler while a block runs: notes each signal; once the block is over, puts the
    handler from before back and hands the signal on (a signal that raised while the handlers
    were being put back could otherwise leave this one in place, noting signals for good)."""

    def __init__(self, before: dict[int, Any]) -> None:
        self.before, self.noted, self.over = before, [], False

    def __call__(self, signum: int, frame: Any) -> None:
        if not self.over:
            self.noted.append((signum, frame))
            return
        signal.signal(signum, self.before[signum])
        _hand_on(self.before[signum], signum, frame)


def _hand_on(handler: Any, signum: int, frame: Any) -> None:
    if handler == signal.SIG_DFL:
        os.kill(os.getpid(), signum)
    elif callable(handler):
        handler(signum, frame)  # KeyboardInterrupt, harness.errors.Stopped: raised here


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM noted during the block, then given to the handlers in place before
    it (the default action of SIG_DFL, nothing for SIG_IGN); off the main thread, or where a
    handler was not set from Python (it could not be put back), nothing."""
    before = {signum: signal.getsignal(signum) for signum in _HELD}
    if threading.current_thread() is not threading.main_thread() or None in before.values():
        yield
        return
    held = _Held(before)
    try:
        for signum in _HELD:
            signal.signal(signum, held)
        yield
    finally:
        held.over = True
        for signum, handler in before.items():
            signal.signal(signum, handler)
        for signum, frame in held.noted:
            _hand_on(before[signum], signum, frame)


def thread_map(fn: Callable[[_In], _Out], items: Iterable[_In], *, threads: int,
               chunk: int = 256) -> list[_Out]:
    """`[fn(x) for x in items]` on up to `threads` threads, in order; in the calling thread for
    one thread or one item. A stop asked for during a chunk is raised when the chunk is done
    (a chunk should take a second or less); an exception of `fn` is raised as pool.map raises it."""
    items = list(items)
    if threads <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    out: list[_Out] = []
    step = max(1, chunk)
    pool = ThreadPoolExecutor(max_workers=min(threads, len(items)))
    try:
        for start in range(0, len(items), step):
            with _signals_held():
                out.extend(pool.map(fn, items[start:start + step]))
    finally:
        with _signals_held():
            pool.shutdown(wait=True, cancel_futures=True)
    return out
