"""Run folders -> published output, through the registered publishers (the leaderboard is
one: `vqa_harness_leaderboard`, registered like any plugin). Neither the engine nor the
command line imports it."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, ContextManager, Sequence

from harness import folders
from harness.cache.locks import build_lock
from harness.errors import DataError, StorageError, UsageError
from harness.host import PluginHost
from harness.rundir import WRITER_FILE, RunDir

__all__ = ["publish", "check_output_folder", "build_turn"]


def check_output_folder(out: Path) -> None:
    """`harness.folders.check_output_folder` for `run --out`, `--leaderboard` and `leaderboard
    build --out` (a folder of runs or of leaderboard files), naming the default."""
    folders.check_output_folder(out, hint="(default: results/)")


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
        where = ", ".join(map(str, inputs))
        writing = sum(_being_written(Path(p)) for p in inputs)
        if writing:  # the first runs into a folder, not ended yet: "no run folder" beside them misleads
            raise DataError(f"no run folder in {where} has results yet: its {writing} run(s) are still being "
                            "written; build the leaderboard once one has ended (`harness run` builds it when it "
                            "ends); nothing published")
        raise DataError(f"no run folder in {where} (a run folder holds results.jsonl; "
                        "`harness run` writes them); nothing published")
    written: list[Path] = []
    # One build into a folder at a time, reading the runs once it holds it: two `harness run`
    # commands ending together would interleave their files, and the build that read the runs
    # first could finish last, without the other's rows.
    with build_turn(Path(out), lambda: progress and progress(
            f"waiting for another leaderboard build into {out} to finish...")):
        for entry in host.publishers:
            publisher = entry.obj()
            try:
                written += publisher.publish([Path(p) for p in inputs], Path(out), latest_only=latest_only,
                                             progress=progress)
            except OSError as exc:  # a full disk, say: one line, not a traceback
                if folders.storage_error(exc, out) is None:
                    raise
                raise StorageError(f"cannot write {exc.filename or out}: {exc.strerror}; {entry.name}: nothing of "
                                   f"this build was published, {out} is left as it was") from None
            text = publisher.summary() if summary is not None else ""
            if text:
                summary(text)
    return written


def build_turn(out: Path, waiting: Callable[[], None] | None = None) -> ContextManager[None]:
    """This process's turn to build into `out` (a lock on `out/.build.lock`)."""
    return build_lock(out / "build", waiting)


def _being_written(path: Path) -> int:
    """How many run folders `path` is, or holds, that a process is writing now."""
    try:
        folders = [path] if (path / WRITER_FILE).is_file() else [c for c in path.iterdir() if c.is_dir()]
    except OSError:
        return 0
    return sum(RunDir(folder).writer() is not None for folder in folders)


def _holds_runs(path: Path) -> bool:
    """Whether `path` is a run folder with results, or a folder holding one."""
    if (path / "results.jsonl").is_file():
        return True
    try:
        return path.is_dir() and any((child / "results.jsonl").is_file() for child in path.iterdir())
    except OSError:
        return False
