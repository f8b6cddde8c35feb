"""How a run stops when it is asked to: the engine's half of Ctrl-C and SIGTERM. It installs
no handler (a library must not take over a process's signals): the command line hands each
signal to `request_stop`, and the first one raises `harness.errors.Stopped` where the run can
record it in its manifest (docs/architecture.md, "How a run ends", Signals)."""

from __future__ import annotations

import contextlib
import os
from types import SimpleNamespace
from typing import Iterator

from ..errors import Stopped

__all__ = ["claim_run", "release_run", "request_stop", "deferred", "raise_pending", "pending", "runs_here",
           "swallowed", "raise_swallowed"]


#: `owner`: the process whose model run a stop request stops (0: none; a forked worker copies
#: the parent's pid, which is not its own, so it ignores requests until it owns a run);
#: `received`: the first signal received, raised or not; `deferred`: open `deferred()` blocks.
_STATE = SimpleNamespace(owner=0, received=None, raised=False, deferred=0)


def claim_run(*, reset: bool = False) -> None:
    """This process now runs a model: the next stop request stops it. `reset`: start afresh
    (no request received yet, none raised), as a new command does."""
    if reset:
        _STATE.received, _STATE.raised, _STATE.deferred = None, False, 0
    _STATE.owner = os.getpid()


def release_run(*, reset: bool = False) -> None:
    """No model run of this process is to be stopped (requests are still remembered unless
    `reset`, as in a freshly forked worker)."""
    _STATE.owner = 0
    if reset:
        _STATE.received, _STATE.raised, _STATE.deferred = None, False, 0


def runs_here() -> bool:
    """True in the process that claimed the run."""
    return _STATE.owner == os.getpid()


def _armed() -> bool:
    return runs_here() and not _STATE.raised and not _STATE.deferred


def request_stop(signum: int) -> None:
    """A signal asks the run to stop: remembered, and raised as `Stopped` at once when this
    process owns a run outside a deferred block, once (a second Ctrl-C cannot cut the
    manifest's last write)."""
    if _STATE.received is None:
        _STATE.received = signum
    if _armed():
        _STATE.raised = True
        raise Stopped(signum)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """A stop request arriving inside the block waits for `raise_pending`."""
    _STATE.deferred += 1
    try:
        yield
    finally:
        _STATE.deferred -= 1


def raise_pending() -> None:
    """Raise `Stopped` for a request that arrived while it could not be raised."""
    if _STATE.received is not None and _armed():
        _STATE.raised = True
        raise Stopped(_STATE.received)


def pending() -> int | None:
    """The signal this process received (None when none)."""
    return _STATE.received


def swallowed() -> Stopped | None:
    """The stop this process's run was asked for, as a `Stopped` to raise again (None when
    none was asked for, or outside the process that claimed the run)."""
    if _STATE.received is None or not runs_here():
        return None
    _STATE.raised = True
    return Stopped(_STATE.received)


def raise_swallowed() -> None:
    """Raise `swallowed()`, if any (call it inside `except`): at a boundary that contains
    errors, an error that follows a stop request is that stop."""
    stop = swallowed()
    if stop is not None:
        raise stop
