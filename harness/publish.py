"""Run folders -> published output, through the registered publishers (the leaderboard is
one: `vqa_harness_leaderboard`, registered like any plugin). The core never imports it."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from .errors import UsageError
from .fileio import check_writable_folder
from .host import PluginHost

__all__ = ["publish", "check_output_folder"]


def check_output_folder(out: Path) -> None:
    """Refuse an output folder inside an installed or importable package (a folder with an
    `__init__.py`): generated files must never land in a source package; and one that cannot
    be created or written (`/proc/x`, a path under a file), before any work starts."""

    out = Path(out).resolve()
    for folder in (out, *out.parents):
        if (folder / "__init__.py").is_file():
            raise UsageError(f"output folder {out} is inside the Python package {folder}; "
                             "choose a folder outside any package (default: results/)")
    check_writable_folder(out)


def publish(host: PluginHost, inputs: Sequence[Path], out: Path, *, latest_only: bool = True,
            progress: Callable[[str], None] | None = None,
            summary: Callable[[str], None] | None = None) -> list[Path]:
    """Call every registered publisher; UsageError when none is installed. `progress` hears
    what a publisher wants the user to see (skipped rows); `summary` hears each publisher's
    closing text (`Publisher.summary`: the answer at a glance, where the output is)."""
    if not len(host.publishers):
        raise UsageError("no publisher is installed (the leaderboard plugin is missing or blocked); "
                         "run folders are complete without it")
    for path in inputs:
        if Path(path).exists() and not Path(path).is_dir():
            raise UsageError(f"{path}: is a file, expected a run folder or a folder of runs")
    check_output_folder(out)
    written: list[Path] = []
    for entry in host.publishers:
        publisher = entry.obj()
        written += publisher.publish([Path(p) for p in inputs], Path(out), latest_only=latest_only,
                                     progress=progress)
        text = publisher.summary() if summary is not None else ""
        if text:
            summary(text)
    return written
