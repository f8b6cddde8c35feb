"""Run folders -> published output, through the registered publishers (the leaderboard is
one: `vqa_harness_leaderboard`, registered like any plugin). Neither the engine nor the
command line imports it."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from harness.errors import DataError, UsageError
from harness.folders import check_folder_links, check_writable_folder, run_folder_of
from harness.host import PluginHost

__all__ = ["publish", "check_output_folder"]


def check_output_folder(out: Path) -> None:
    """Refuse the root of the file system (`--out /`), an output folder inside an installed or
    importable package (a folder with an `__init__.py`): generated files must never land in a
    source package; one inside a run folder (`--out runs/<id>/lb`: the site would land among
    the run's own files); and one that cannot be created or written (`/proc/x`, a path under a
    file, a broken symbolic link or a link loop), before any work starts."""

    check_folder_links(out)  # before resolve(): it follows a dangling link, and a loop is a RuntimeError
    out = Path(out).resolve()
    if out == Path(out.anchor):  # runs and leaderboard files among the system's folders, scanned as runs
        raise UsageError(f"output folder {out} is the root of the file system; choose a folder of its own "
                         "(default: results/)")
    check_writable_folder(out)  # first (it leaves nothing behind): the stats below raise in a folder this
    # user may not search, or under a name too long
    run = run_folder_of(out)
    if run is not None:
        raise UsageError(f"output folder {out} is inside the run folder {run}; "
                         "choose a folder outside any run (default: results/leaderboard)")
    for folder in (out, *out.parents):
        if (folder / "__init__.py").is_file():
            raise UsageError(f"output folder {out} is inside the Python package {folder}; "
                             "choose a folder outside any package (default: results/)")


def publish(host: PluginHost, inputs: Sequence[Path], out: Path, *, latest_only: bool = True,
            progress: Callable[[str], None] | None = None, require_runs: bool = False,
            summary: Callable[[str], None] | None = None) -> list[Path]:
    """Call every registered publisher; UsageError when none is installed. `progress` hears
    what a publisher wants the user to see (skipped rows); `summary` hears each publisher's
    closing text (`Publisher.summary`: the answer at a glance, where the output is). With
    `require_runs`, inputs that hold no run folder (`results.jsonl` in it or in a folder in
    it) are one DataError line instead of an empty leaderboard."""
    if not len(host.publishers):
        raise UsageError("no publisher is installed (the leaderboard plugin is missing or blocked); "
                         "run folders are complete without it")
    for path in inputs:
        if Path(path).exists() and not Path(path).is_dir():
            raise UsageError(f"{path}: is a file, expected a run folder or a folder of runs")
    check_output_folder(out)
    if require_runs and not any(_holds_runs(Path(p)) for p in inputs):
        raise DataError(f"no run folder in {', '.join(map(str, inputs))} (a run folder holds results.jsonl; "
                        "`harness run` writes them); nothing published")
    written: list[Path] = []
    for entry in host.publishers:
        publisher = entry.obj()
        written += publisher.publish([Path(p) for p in inputs], Path(out), latest_only=latest_only,
                                     progress=progress)
        text = publisher.summary() if summary is not None else ""
        if text:
            summary(text)
    return written


def _holds_runs(path: Path) -> bool:
    """Whether `path` is a run folder with results, or a folder holding one."""
    if (path / "results.jsonl").is_file():
        return True
    try:
        return path.is_dir() and any((child / "results.jsonl").is_file() for child in path.iterdir())
    except OSError:
        return False
