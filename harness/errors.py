"""Errors shown to the user as one line (llm's `ModelError`, pytest's `ExitCode`)."""

from __future__ import annotations

import enum

__all__ = ["ExitCode", "HarnessError", "UsageError", "DataError", "PluginError", "ResourceError", "StopRun"]


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
    """Missing or malformed data; the message names the file, row and field."""

    exit_code = ExitCode.DATA


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

    def __init__(self, message: str, exit_code: ExitCode = ExitCode.RESOURCE) -> None:
        super().__init__(message)
        self.exit_code = exit_code
