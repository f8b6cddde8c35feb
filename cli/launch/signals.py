"""Signals stop a run the way Ctrl-C does: SIGINT and SIGTERM alike.

`harness run` installs one handler for both (`stop_on_signals`); the engine installs none
and only records and raises what it is handed (`harness.run.stops`). The first signal raises
`harness.errors.Stopped` in the process running a model: the run records it in its manifest
(`interrupted` for SIGINT, `terminated` for SIGTERM) and releases its folder; the command
prints one line and exits 128 + the signal number. Later signals are ignored, so a second
Ctrl-C cannot cut the manifest's last write in half (SIGKILL still ends everything).

With `--jobs`, worker processes get the same handler by fork, but a worker only stops while
it runs a model (`worker_run`): an idle worker ignores the terminal's SIGINT (which reaches
the whole process group) instead of dying with a traceback. The command's process passes
the signal it received on to every worker (`forward`), so a SIGTERM sent to it alone stops
them too; a worker takes the first signal, from whichever source, and ignores the rest. A
worker whose parent dies without a word (SIGKILL) gets SIGTERM from the kernel
(`die_with_parent`) and exits once its run is marked.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
from typing import Any, Iterable, Iterator

from harness.errors import Stopped
from harness.run import stops

__all__ = ["stop_on_signals", "sigterm_as_ctrl_c", "forward", "worker_started", "worker_run", "parent_gone"]

SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: prctl(2) option: the signal the kernel sends this process when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1


class _Worker:
    #: The parent this worker was forked from (0 in the command's process).
    parent = 0


def _handler(signum: int, frame: Any) -> None:
    stops.request_stop(signum)  # raises Stopped in the process that runs a model
    if not stops.runs_here() and parent_gone():  # an idle orphan: nothing to record
        os._exit(128 + signum)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """SIGINT and SIGTERM stop the run of this process (see the module docstring); the
    previous handlers are restored afterwards. Outside the main thread (where Python cannot
    install handlers) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _handler) for s in SIGNALS}
    stops.claim_run(reset=True)
    _Worker.parent = 0
    try:
        yield
    finally:
        stops.release_run()
        for s, handler in previous.items():
            signal.signal(s, handler)


class _Terminate:
    """Raises Stopped(SIGTERM) the first time, then ignores SIGTERM until the command ends."""

    def __init__(self) -> None:
        self.raised = False

    def __call__(self, signum: int, frame: Any) -> None:
        if not self.raised:
            self.raised = True
            raise Stopped(signum)


@contextlib.contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """Every command: SIGTERM (`kill`, `timeout`, a job scheduler) raises `Stopped` as Ctrl-C
    raises KeyboardInterrupt, so the command's clean-up runs (an atomic writer's temporary file
    is removed: under the default action `harness leaderboard build` left its `.NAME.XXXX.tmp`
    files in the leaderboard folder) and it ends in one line, exit 143. A second SIGTERM waits
    for that clean-up (SIGKILL does not). `harness run` installs its own handler over this one
    (`stop_on_signals`). Outside the main thread, or over a handler not set from Python,
    nothing changes."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _Terminate())
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def forward(pids: Iterable[int], signum: int) -> None:
    """Send `signum` to each worker (a worker already gone is skipped)."""
    for pid in pids:
        try:
            os.kill(pid, signum)
        except OSError:
            pass


# ------------------------------------------------------------------ worker processes


def worker_started() -> None:
    """In a freshly forked worker: no signal received yet, none raised until `worker_run`,
    and SIGTERM from the kernel if the parent dies."""
    stops.release_run(reset=True)
    _Worker.parent = os.getppid()
    die_with_parent()


@contextlib.contextmanager
def worker_run() -> Iterator[None]:
    """A worker runs a model: the first signal now stops it. A worker whose parent has died
    exits as soon as the run is marked, since nobody reads its result."""
    stops.claim_run()
    try:
        stops.raise_pending()
        yield
    except Stopped as exc:
        if parent_gone():
            os._exit(exc.exit_code)
        raise
    finally:
        stops.release_run()


def parent_gone() -> bool:
    """True in a worker whose parent process has died."""
    return bool(_Worker.parent) and os.getppid() != _Worker.parent


def die_with_parent() -> None:
    """Ask Linux to send this process SIGTERM when its parent dies (a no-op elsewhere)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        # dlopen(NULL): the C library the interpreter is linked with (no search for it).
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: an orphan is then left to a SIGTERM of its own
        return
    if parent_gone():  # the parent died before the request took effect
        os._exit(128 + signal.SIGTERM)
