"""`harness data status [--data-dir D]`: which dataset files are there, which suites can run.

Nothing is downloaded: the command asks each registered dataset for the files of each
split (`DatasetPlugin.expected_files`) and its image folders (`DatasetPlugin.image_folders`),
checks them on disk (stat and a directory scan), and prints where each dataset is officially
released (`DatasetPlugin.release`). "found" means the file exists; with `--check` each split
whose files exist is also loaded (parsed and checked as a run would), and a file that does not
parse (a truncated annotations file) is "unreadable", its split not ready. A suite is ready
when every task's files are present; training files count only for models the harness trains
(a pretrained model needs the evaluated split only), and a partial suite says how many tasks
each kind of model can run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

import click

from harness.data.session import Session
from harness.errors import HarnessError
from harness.host import get_host
from harness.specs import Place, parse_spec
from harness.suites import resolve_suite, suite_names

if TYPE_CHECKING:  # pragma: no cover
    from harness.api import Suite
    from harness.host import PluginHost

__all__ = ["data", "status_lines", "IMAGE_SUFFIXES"]

#: File endings counted as image files in an image folder.
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp", ".tif", ".tiff"})
#: Missing image folders (and missing files of a suite) shown by name before "(+N more)".
SHOWN = 3


@click.group()
def data() -> None:
    """Check the downloaded datasets under a data folder (nothing is downloaded)."""


@data.command("status")
@click.option("--data-dir", type=Place(file_okay=False, path_type=Path), default=None,
              help="Folder with downloaded datasets, as given to `harness run --data-dir`.")
@click.option("--check", is_flag=True,
              help="Also load every split whose files exist (parse and check them as a run would; slow on large data).")
def status(data_dir: Path | None, check: bool) -> None:
    """For every dataset: files found and missing (exact paths), image folders with a count
    of image files, where it is released; then which suites can run now."""

    host = get_host()
    for line in status_lines(host, data_dir, check=check):
        click.echo(line)
    for failure in host.failures:
        click.echo(f"warning: {failure}", err=True)


@dataclass
class _Files:
    """What one dataset (default options) needs per split, and what is on disk."""

    name: str
    splits: dict[str, list[Path]] = field(default_factory=dict)
    problem: dict[str, str] = field(default_factory=dict)  # split -> why its files are unknown
    broken: dict[str, str] = field(default_factory=dict)  # split -> why its files do not load (--check)

    def missing(self, split: str) -> list[Path]:
        return [p for p in self.splits.get(split, []) if _kind(p) != "file"]  # a folder is no file


def status_lines(host: "PluginHost", data_dir: Path | None, *, check: bool = False) -> list[str]:
    """The report, line by line (the command prints it; tests compare lines). `check`:
    load every split whose files exist, so a file that does not parse is not "found"."""
    session = Session(host, data_dir=data_dir)
    lines = [f"data folder: {data_dir}" if data_dir is not None else
             "data folder: none given (--data-dir); paths are looked up as `harness run` without it would"]
    known: dict[str, _Files] = {}
    for entry in host.datasets:
        plugin = session.dataset(entry.name)
        files = _dataset_files(plugin)
        if check:
            _check_loads(session, entry.name, plugin, files)
        known[entry.name] = files
        lines += [""] + _dataset_lines(entry.name, plugin, files)
    lines += ["", "suites (ready: every task's files are present; ready*: for pretrained models, the files "
                  "a trainable model is trained on are missing):"]

    for name in suite_names(host):
        try:
            suite = resolve_suite(host, name)
        except HarnessError as exc:
            lines.append(f"  unknown    {name}: {exc}")
            continue
        lines.append("  " + _suite_line(suite, session, known, check))
    return lines


def _check_loads(session: Session, spec: str, plugin: Any, files: _Files) -> None:
    """Load each split whose files all exist; record why one does not load."""
    for split in plugin.splits:
        if split in files.problem or files.missing(split):
            continue
        reason = _load_problem(session, spec, split)
        if reason:
            files.broken[split] = reason


def _load_problem(session: Session, spec: str, split: str) -> str:
    """Why `spec`/`split` does not load ("" when it does)."""
    try:
        session.load(spec, split)
    except HarnessError as exc:
        return str(exc)
    except Exception as exc:  # a plugin bug: reported as the split's problem, the command goes on
        return f"plugin error: {type(exc).__name__}: {exc}"
    return ""


def _dataset_files(plugin: Any) -> _Files:
    files = _Files(plugin.name)
    for split in plugin.splits:
        try:
            files.splits[split] = [Path(p) for p in plugin.expected_files(split)]
        except HarnessError as exc:
            files.problem[split] = str(exc)
    return files


def _dataset_lines(name: str, plugin: Any, files: _Files) -> list[str]:
    lines = [f"{name} — {plugin.description}" if plugin.description else name]
    lines.append(f"  release: {getattr(plugin, 'release', '') or '(not stated by the plugin)'}")
    by_path: dict[Path, list[str]] = {}
    for split, paths in files.splits.items():
        for p in paths:
            by_path.setdefault(p, []).append(split)
    unreadable = {p for reason in files.broken.values() for p in by_path if str(p) in reason}
    for path, splits in by_path.items():
        kind = _kind(path)
        state = ("found  " if kind == "file" and path not in unreadable else
                 "unreadable" if kind in ("file", "unreadable") else kind)
        lines.append(f"  {state}  {path}  ({', '.join(splits)})")
    for problem in dict.fromkeys(files.problem.values()):
        splits = [s for s, p in files.problem.items() if p == problem]
        lines.append(f"  unknown  {problem}  ({', '.join(splits)})")
    for split, reason in files.broken.items():
        lines.append(f"  broken   {split}: {reason}")
    lines += _image_lines(plugin)
    if not by_path and not files.problem and not files.broken:
        lines.append("  no files needed: every split is ready")
        return lines
    ready = [s for s in plugin.splits if s in files.splits and not files.missing(s) and s not in files.broken]
    not_ready = [s for s in plugin.splits if s not in ready]
    lines.append(f"  ready: {', '.join(ready) or 'none'}" + (f"; not ready: {', '.join(not_ready)}" if not_ready else ""))
    return lines


def _kind(path: Path) -> str:
    """"file", "a folder", "missing", or "unreadable": a folder on the way this user may not
    search, a name too long (Path.exists raises for those; the listing goes on)."""
    try:
        return "a folder" if path.is_dir() else "file" if path.exists() else "missing"
    except OSError:
        return "unreadable"


def _image_lines(plugin: Any) -> list[str]:
    try:
        folders = [Path(f) for f in plugin.image_folders()]
    except (HarnessError, OSError) as exc:  # OSError: a folder on the way this user may not search
        return [f"  images   unknown: {exc}"]
    lines, missing = [], []
    for folder in dict.fromkeys(folders):
        if _kind(folder) == "a folder":
            n = count_images(folder)
            lines.append(f"  images   {folder}: {n:,} image file{'' if n == 1 else 's'}")
        else:
            missing.append(folder)
    if missing:
        shown = ", ".join(str(m) for m in missing[:SHOWN]) + (f" (+{len(missing) - SHOWN} more)" if len(missing) > SHOWN else "")
        lines.append(f"  images   missing: {shown}")
    return lines


def count_images(folder: Path) -> int:
    """Image files under `folder` (sub-folders included), by name only."""
    total, stack = 0, [str(folder)]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                for entry in it:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif os.path.splitext(entry.name)[1].lower() in IMAGE_SUFFIXES:
                        total += 1
        except OSError:
            continue
    return total


def _needed(session: Any, known: dict[str, _Files], spec: str, split: str, check: bool) -> tuple[list[Path], str]:
    """(missing files, problem) of `spec`/`split`; default-option datasets come from `known`;
    with `check`, a split that does not load has that as its problem."""
    name, options = parse_spec(spec)
    if not options and name in known:
        files = known[name]
        return files.missing(split), files.problem.get(split, "") or files.broken.get(split, "")
    try:
        plugin = session.dataset(spec)
        missing = [Path(p) for p in plugin.expected_files(split) if _kind(Path(p)) in ("missing", "unreadable")]
    except HarnessError as exc:
        return [], str(exc)
    return missing, (_load_problem(session, spec, split) if check and not missing else "")


def _suite_line(suite: "Suite", session: Any, known: dict[str, _Files], check: bool = False) -> str:
    """One suite: ready (every model), ready* (pretrained models only), partial (how many
    tasks pretrained and trainable models can run) or not ready, with the first reason."""
    eval_missing: list[Path] = []
    train_missing: list[Path] = []
    problems: list[str] = []
    train_problems: list[str] = []
    runnable, skipped, trainable, untrained = [], [], 0, 0
    for task in suite.tasks:
        missing, problem = _needed(session, known, task.dataset, task.split, check)
        eval_missing += missing
        problems += [problem] if problem else []
        (skipped if missing or problem else runnable).append(f"{task.dataset}/{task.split}")
        try:
            source = task.train_source(session.dataset(task.dataset).splits)
        except HarnessError as exc:
            train_problems.append(str(exc))
            continue
        if source is None:  # a model the harness trains skips a task without training data
            untrained += 1
            continue
        t_missing, t_problem = _needed(session, known, *source, check)
        train_missing += t_missing
        train_problems += [t_problem] if t_problem else []
        trainable += not (missing or problem or t_missing or t_problem)
    eval_missing = list(dict.fromkeys(eval_missing))
    train_missing = [p for p in dict.fromkeys(train_missing) if p not in eval_missing]
    why_train = (f"{len(train_missing)} missing file(s), e.g. {_few(train_missing)}" if train_missing
                 else train_problems[0] if train_problems else "")
    why_trainable = why_train or f"training data, which {untrained} task(s) do not name"
    if not skipped:
        if not why_train:
            return f"ready      {suite.name}"
        return f"ready*     {suite.name}: trainable models need {why_train}"
    if getattr(suite, "partial", False) and runnable:
        counts = (f"{len(runnable)} of {len(suite.tasks)} tasks can run" if trainable == len(runnable) else
                  f"{len(runnable)} of {len(suite.tasks)} tasks can run for pretrained models, {trainable} for "
                  f"trainable models (they need {why_trainable})")
        return f"partial    {suite.name}: {counts}; skipped: {', '.join(skipped)}"
    if eval_missing:
        return f"not ready  {suite.name}: {len(eval_missing)} file(s) missing, e.g. {_few(eval_missing)}"
    return f"not ready  {suite.name}: {problems[0]}"


def _few(paths: Iterable[Path]) -> str:
    paths = list(paths)
    return ", ".join(str(p) for p in paths[:SHOWN]) + (f" (+{len(paths) - SHOWN} more)" if len(paths) > SHOWN else "")
