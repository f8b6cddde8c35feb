"""Errors shown to the user as one line (llm's `ModelError`, pytest's `ExitCode`)."""

from __future__ import annotations

import enum
import errno
import re
import signal
from typing import Any, Callable, TypeVar

__all__ = ["ExitCode", "HarnessError", "UsageError", "DataError", "PluginError", "ResourceError", "StopRun",
           "StorageError", "FitError", "Stopped", "plugin_call", "STORAGE_ERRNOS",
           "SURROGATE", "printable", "one_line"]

T = TypeVar("T")


class ExitCode(enum.IntEnum):
    OK = 0
    #: The run finished but some examples or probes failed; see the report.
    PARTIAL = 1
    #: Bad command line: unknown name, bad option.
    USAGE = 2
    #: Bad or missing input data.
    DATA = 3
    #: A plugin failed to load or broke its contract.
    PLUGIN = 4
    #: A needed resource (WordNet, tagger, Java, model weights) is missing.
    RESOURCE = 5


class HarnessError(Exception):
    """An expected failure, displayed to the user as one line; never a traceback."""

    exit_code: ExitCode = ExitCode.DATA


class UsageError(HarnessError):
    """Unknown name, bad option or bad argument on the command line."""

    exit_code = ExitCode.USAGE


class DataError(HarnessError):
    """Missing or malformed data; the message names the file, row and field (exit code DATA,
    the default of every HarnessError)."""


class PluginError(HarnessError):
    """A plugin failed to import, register, or keep its contract; the message names it."""

    exit_code = ExitCode.PLUGIN


class ResourceError(HarnessError):
    """A resource is missing; the message says how to install it."""

    exit_code = ExitCode.RESOURCE


class StopRun(HarnessError):
    """A model cannot go on (its endpoint is unreachable, its usage budget is spent): the
    runner and the probe boundary re-raise it instead of recording per-example errors, and
    the run stops with this one line, keeping every prediction already cached (`--resume`
    continues). `exit_code` is chosen by the raiser (e.g. PARTIAL for a spent budget)."""

    #: The manifest status of a run this ends.
    status = "stopped"

    def __init__(self, message: str, exit_code: ExitCode = ExitCode.RESOURCE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class StorageError(StopRun):
    """The run folder or a cache cannot be written (disk full, read-only) or was deleted while
    the run used it: the run ends `failed` with this one line; what was written before stays
    (every file is replaced atomically, harness.fileio)."""

    status = "failed"


class FitError(StopRun):
    """A model could not be trained: every later prediction would come from an untrained
    model, so the run ends `failed` instead of scoring one."""

    status = "failed"

    def __init__(self, message: str, exit_code: ExitCode = ExitCode.PLUGIN) -> None:
        super().__init__(message, exit_code)


class Stopped(KeyboardInterrupt):
    """A run stopped by a signal: SIGINT (Ctrl-C) or SIGTERM (`kill`, a job scheduler, a
    container stop), handled alike (harness.run.stops; the command line installs the
    handlers: vqa_harness_cli.launch.signals). A KeyboardInterrupt, so everything that lets
    Ctrl-C through lets it through."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = int(signum)

    @property
    def status(self) -> str:
        """The manifest status of a run it stops: `terminated` (SIGTERM) or `interrupted`."""
        return "terminated" if self.signum == signal.SIGTERM else "interrupted"

    @property
    def exit_code(self) -> int:
        """128 + the signal number, as a shell reports a process the signal ended."""
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


#: A lone surrogate: text no UTF-8 file can hold (a `\udce9` escape in a server's JSON reply, a
#: file name's undecodable bytes as Python decodes them).
SURROGATE = re.compile("[\ud800-\udfff]")


def one_line(exc: BaseException) -> str:
    """`Type: first line of the message` (`Type` alone when it says nothing)."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def printable(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD: an error message, or a value shown
    to a reader, that the run's UTF-8 files (report, manifest, predictions) can hold."""
    return SURROGATE.sub("\ufffd", text)


#: Errors of the disk the harness writes to, not of the input it reads (harness.folders.storage_error).
STORAGE_ERRNOS = {errno.ENOSPC: "disk full", errno.EDQUOT: "disk quota exceeded", errno.EROFS: "read-only"}


def plugin_call(what: str, fn: "Callable[..., T]", *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)`, plugin code the run cannot go on without (building a model or a
    dataset, `setup`, `load`): an exception that is not a HarnessError becomes one PluginError
    line, `what` (which names the plugin) and the exception, instead of a traceback; a
    HarnessError (a bad option, a DataError naming a file) passes unchanged, and so does a
    full or read-only disk (`STORAGE_ERRNOS`: the disk, not the plugin; the run says so)."""
    try:
        return fn(*args, **kwargs)
    except HarnessError:
        raise
    except Exception as exc:
        if isinstance(exc, OSError) and exc.errno in STORAGE_ERRNOS:
            raise
        raise PluginError(f"{what}: {type(exc).__name__}: {' '.join(str(exc).split())}".rstrip(": ")) from exc
