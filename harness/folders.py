"""Whether output folders and files can be created and written, checked before the work (every
command's `--out`), and the one-line StorageError for a disk that cannot take what a run writes
(full, over quota, read-only). The writing itself is `harness.fileio`'s atomic writers."""

from __future__ import annotations

import contextlib
import errno
import os
import random
import stat
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from .errors import STORAGE_ERRNOS, StorageError, UsageError

__all__ = ["check_folder_links", "check_writable_folder", "check_writable_file", "check_outside_runs",
           "check_outside_packages", "check_output_folder", "run_folder_of", "storage_error"]


def check_folder_links(folder: Path | str, what: str = "output folder") -> None:
    """UsageError when `folder` or a folder above it is a symbolic link that leads nowhere (a
    broken link, a link loop): creating the folder through it would fail half-way, after the
    work (`mkdir -p` refuses a dangling link too)."""
    folder = Path(folder)
    for p in reversed((folder, *folder.parents)):
        if not os.path.islink(p):
            continue
        where = f"{what} {folder}" + ("" if p == folder else f": {p}")
        try:
            os.stat(p)
        except FileNotFoundError:
            raise UsageError(f"{where} is a broken symbolic link (to {os.readlink(p)}); "
                             "create its target or choose another folder") from None
        except OSError as exc:
            reason = "a symbolic link loop" if exc.errno == errno.ELOOP else (
                f"a symbolic link that cannot be followed ({exc.strerror or exc})")
            raise UsageError(f"{where} is {reason}; choose another folder") from None


def check_writable_folder(folder: Path | str, what: str = "output folder") -> None:
    """UsageError, before any work, when `folder` cannot be created or written (`/proc/x`, a
    path under a file, a read-only mount, a broken symbolic link or a link loop on the way);
    the check leaves nothing behind. Several processes may check one folder at once (the ranks
    of a `torchrun` job): a folder another created in between counts as existing, and a check
    that lost a race (its folder removed by the other's clean-up) is tried again."""
    folder = Path(folder)
    check_folder_links(folder, what)
    for attempt in range(_CHECK_ATTEMPTS):
        try:
            _check_writable_once(folder, what)
            return
        except FileNotFoundError as exc:
            if attempt == _CHECK_ATTEMPTS - 1:
                raise UsageError(f"{what} {folder} cannot be created or written ({exc.strerror or exc}); "
                                 "choose another folder") from None
            time.sleep(random.uniform(0, 0.001 * (attempt + 1)))  # so racing checkers fall out of step


def check_writable_file(path: Path | str, what: str = "--out") -> None:
    """check_writable_folder for the file's folder, and a name its file system takes: one
    too long would fail only when the finished output is put in place, after the work. A
    file inside a run folder is refused: it would replace the run's results, manifest or
    artifacts (a command's own default output there does not come through this check)."""
    path = Path(path)
    try:
        kind = os.stat(path).st_mode if path.name else stat.S_IFDIR  # `--json ''`: the current folder
    except OSError:  # missing, or a name too long (said below)
        kind = stat.S_IFREG
    if stat.S_ISDIR(kind):  # the rename failed after the work
        raise UsageError(f"{what} {str(path)!r} is a folder; name a file")
    if not stat.S_ISREG(kind):  # the atomic rename would replace the device or pipe itself
        raise UsageError(f"{what} {path} is not a regular file (a device, pipe or socket); name a file")
    if os.path.islink(path):  # ... or the link (/dev/stdout when the shell redirects it to a file)
        raise UsageError(f"{what} {path} is a symbolic link (to {os.readlink(path)}); the file is written under "
                         "a new name and renamed, which would replace the link: name the file it leads to")
    check_writable_folder(path.parent, f"folder of {what}")
    check_outside_packages(path.parent, what)
    run = run_folder_of(path.expanduser().resolve().parent)  # the folder a linked folder leads to
    if run is not None:  # `perturb --out runs/<id>/results.jsonl` replaced the run's rows
        raise UsageError(f"{what} {path} is inside the run folder {run} (it would overwrite the run's own "
                         "files); write it outside the run")
    existing = next(p for p in (path.parent, *path.parent.parents) if p.is_dir())
    if len(os.fsencode(path.name)) > os.pathconf(existing, "PC_NAME_MAX"):
        raise UsageError(f"{what} {path}: the file name is longer than this file system takes; choose a shorter one")


def check_outside_runs(path: Path | str, runs: Sequence[Path | str], what: str = "--out") -> None:
    """UsageError when the output file `path` is one of the run folders `runs` or inside one
    (`compare --json runs/A/results.jsonl`: it would replace the run's own files), then
    check_writable_file, all before any work."""
    path = Path(path).expanduser()
    check_folder_links(path.parent, f"folder of {what}")  # resolve() cannot follow a link loop
    target = path.resolve()
    for run in map(Path, runs):
        home = run.resolve()
        if target == home or home in target.parents:
            raise UsageError(f"{what} {path} is inside the run folder {run} (it would overwrite the run's own "
                             "files); write it outside the run")
    check_writable_file(path, what)


def check_outside_packages(folder: Path | str, what: str = "output folder", hint: str = "") -> None:
    """UsageError when `folder` lies in a Python package (a folder with an `__init__.py`):
    generated output never lands in a source package. A folder that cannot be looked into (a
    name too long, no permission) is left to the writer's own check."""
    folder = Path(folder).expanduser()
    check_folder_links(folder, what)  # before resolve(): a link loop is a RuntimeError there
    folder = folder.resolve()
    for above in (folder, *folder.parents):
        if _is_file(above / "__init__.py"):
            raise UsageError(f"{what} {folder} is inside the Python package {above}; "
                             f"choose a folder outside any package{f' {hint}' if hint else ''}")


def _is_file(path: Path) -> bool:
    """`path.is_file()`, False where it cannot be looked up (a name too long raises there)."""
    try:
        return path.is_file()
    except OSError:
        return False


def check_output_folder(out: Path | str, what: str = "output folder", *, own_run: Path | str | None = None,
                        hint: str = "") -> None:
    """UsageError, before any work, for a folder a command writes files into that is the root of
    the file system (`--out /`), cannot be written (check_writable_folder), lies inside a run
    folder other than `own_run` (its files would land among the run's own) or inside a Python
    package (generated output never lands in a source package). `hint` ends each message."""
    check_folder_links(out, what)  # before resolve(): it follows a dangling link, and a loop is a RuntimeError
    out = Path(out).resolve()
    end = f" {hint}" if hint else ""
    if out == Path(out.anchor):  # runs and leaderboard files among the system's folders, scanned as runs
        raise UsageError(f"{what} {out} is the root of the file system; choose a folder of its own{end}")
    check_writable_folder(out, what)  # first (it leaves nothing behind): the stats below raise in a folder
    # this user may not search, or under a name too long
    run = run_folder_of(out)
    if run is not None and (own_run is None or run != Path(own_run).resolve()):
        raise UsageError(f"{what} {out} is inside the run folder {run}; choose a folder outside any run{end}")
    check_outside_packages(out, what, hint)


def run_folder_of(path: Path | str) -> Path | None:
    """The run folder (holding manifest.json and results.jsonl) that `path` is or lies in, or None."""
    path = Path(path).expanduser().resolve()
    for folder in (path, *path.parents):
        if (folder / "manifest.json").is_file() and (folder / "results.jsonl").is_file():
            return folder
    return None


#: Tries of check_writable_folder when another process removes the folder under it.
_CHECK_ATTEMPTS = 20  # under load, 5 were lost in a row (CI, four threads)


def _check_writable_once(folder: Path, what: str) -> None:
    created: list[Path] = []
    try:
        if folder.is_file():  # not "exists and not a dir": another checker may remove it between
            raise UsageError(f"{what} {folder} is a file, not a folder")
        missing = [p for p in (folder, *folder.parents) if not p.exists()]
        for p in reversed(missing):
            try:
                p.mkdir()
                created.append(p)
            except FileExistsError:
                # another process made it meanwhile (and may remove it again: then a later
                # step meets FileNotFoundError and the check is tried again); not ours to remove
                if p.is_file():
                    raise
        fd, probe = tempfile.mkstemp(prefix=".write-check-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except (UsageError, FileNotFoundError):
        raise
    except OSError as exc:
        raise UsageError(f"{what} {folder} cannot be created or written ({exc.strerror or exc}); "
                         "choose another folder") from None
    finally:
        for p in reversed(created):
            with contextlib.suppress(OSError):
                p.rmdir()


def storage_error(exc: BaseException, folder: Path | str | None = None) -> StorageError | None:
    """The one-line StorageError for an OSError that says the disk cannot take what the run
    writes (disk full, quota exceeded, a read-only file system; a permission refused inside
    `folder`), else None. Nothing is half-written (every writer here is atomic)."""
    if not isinstance(exc, OSError) or exc.errno is None:
        return None
    where = Path(exc.filename) if isinstance(exc.filename, (str, os.PathLike)) else Path(folder or ".")
    inside = folder is not None and (where == Path(folder) or Path(folder) in where.parents)
    if exc.errno not in STORAGE_ERRNOS and not (exc.errno in (errno.EACCES, errno.EPERM) and inside):
        return None
    what = STORAGE_ERRNOS.get(exc.errno, "permission denied")
    return StorageError(f"cannot write {where}: {exc.strerror or what} ({what}); what was computed before is kept "
                        "(the prediction cache, the run folder's last complete write); make room or make it "
                        "writable, then re-run with --resume")
