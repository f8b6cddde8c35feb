"""The run folder `runs/<run-id>/` (its files: docs/architecture.md, "The run folder"); where
a probe's files go is decided in one place, `RunDir.probe_files`."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Iterator

from .digest import digest, digest_stream
from .errors import DataError, PluginError, UsageError
from .fileio import atomic_write_json, atomic_write_text, atomic_writer, write_jsonl
from .project import MANIFEST_SCHEMA_VERSION, TABLES_SCHEMA_VERSION, schema_problem
from .types import ResultRow, Task

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: a second writer is not detected
    fcntl = None  # type: ignore[assignment]

__all__ = ["RunDir", "ProbeFiles", "safe_name", "task_folder", "TABLES_FILE", "DEFAULT_TASK",
           "WRITER_FILE"]

#: The table layouts and row tags of a run (written by the run, read by the leaderboard).
TABLES_FILE = "tables.json"
#: The task folder of a task that is only its dataset and split.
DEFAULT_TASK = "default"
#: The writer's lock: its pid while it runs, and space kept for the last manifest (`claim`).
WRITER_FILE = ".writer"
#: Bytes the writer keeps allocated, freed to mark the manifest when the disk is full.
RESERVE_BYTES = 512 * 1024


def safe_name(text: str) -> str:
    """A file-system-safe form of a spec; never `.` or `..` (a split `..`: the folder above)."""
    name = re.sub(r"[^A-Za-z0-9._=-]+", "_", text).strip("_") or "_"
    return f"_{name}" if name in (".", "..") else name


def task_folder(task: Task) -> str:
    """`task`'s folder among the tasks on its split: `DEFAULT_TASK` for a bare task, else its
    label (or training data) and a digest of training data, label, probe options: "UB-3f2a9c1e"."""
    if task.train is None and not task.label and not task.probe_options:
        return DEFAULT_TASK
    readable = task.label or (f"train={task.train[0]}/{task.train[1]}" if task.train else "options")
    ident = digest({"train": list(task.train) if task.train else None, "label": task.label,
                    "probe_options": {k: dict(v) for k, v in task.probe_options.items()}}, 8)
    return f"{safe_name(readable)[:48]}-{ident}"


class RunDir:
    """One run's folder."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.run_id = self.path.name
        self._writer: int | None = None  # the lock's file descriptor while this process writes
        self._written: dict[str, tuple[Path, int]] = {}  # prediction files by content: ProbeFiles

    def claim(self) -> None:
        """Become the one process writing this run folder (a lock on `.writer` until `release`
        or death); one UsageError line for a folder another process holds, or a read-only one."""
        path = self.path / WRITER_FILE
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise UsageError(f"run folder {self.path} cannot be written ({exc.strerror or exc}); make it "
                             "writable, or run without --resume to start a new run elsewhere (--out)") from None
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                pid = self.writer()
                raise UsageError(f"run folder {self.path} is being written by another harness process"
                                 f"{f' (pid {pid})' if pid else ''}; one process writes a run folder at a time: "
                                 "wait for it to finish or stop it, then re-run") from None
        self._writer = fd  # held from here on, so `release` closes it whatever fails below
        head = f"{os.getpid()}\n".encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, head, 0)
        with contextlib.suppress(OSError, AttributeError):  # full, or no fallocate: no reserve
            os.posix_fallocate(fd, len(head), RESERVE_BYTES)

    def free_reserve(self) -> None:
        """Give back the space `claim` kept (the disk is full: the manifest comes first)."""
        if self._writer is not None:
            os.ftruncate(self._writer, len(f"{os.getpid()}\n"))

    def release(self) -> None:
        """Stop writing; the lock file stays (removing it races with the next one opening it)."""
        if self._writer is not None:
            fd, self._writer = self._writer, None
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing drops the lock

    def writer(self) -> int | None:
        """The pid of the process writing this run now (0 when unreadable); None when none is."""
        if fcntl is None:
            return None
        try:
            fd = os.open(self.path / WRITER_FILE, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:  # no lock file: written before locks, or never started
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            head = os.pread(fd, 32, 0).split(b"\n", 1)[0]
            return int(head) if head.isdigit() else 0
        finally:
            os.close(fd)  # also drops a lock just taken
        return None

    @classmethod
    def create(cls, out_root: Path, model_spec: str, suite: str) -> "RunDir":
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        base = f"{stamp}-{safe_name(model_spec)}-{safe_name(suite)}"
        out_root = Path(out_root)
        out_root.mkdir(parents=True, exist_ok=True)
        for i in range(1000):
            path = out_root / (base if i == 0 else f"{base}-{i}")
            with contextlib.suppress(FileExistsError):
                path.mkdir()
                return cls(path)
        raise RuntimeError("could not create a run directory")

    @classmethod
    def find_resumable(cls, out_root: Path, config_digest: str) -> "RunDir | None":
        """The newest run with the same configuration, when it did not complete (an older one
        that did not is passed over: the leaderboard shows the newer run's rows)."""
        path, data = next(cls.manifests(out_root, config_digest), (None, {}))
        return cls(path) if path is not None and data.get("status") != "complete" else None

    @staticmethod
    def manifests(out_root: Path, config_digest: str | None) -> Iterator[tuple[Path, dict[str, Any]]]:
        """The run folders under `out_root` with this configuration (None: any), newest first, with
        their manifests (one unreadable, not JSON or of another schema is not a run to continue)."""
        out_root = Path(out_root)
        for path in sorted(out_root.iterdir(), reverse=True) if out_root.is_dir() else ():
            manifest = path / "manifest.json"
            if not manifest.is_file():
                continue
            try:
                data = json.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, ValueError):  # unreadable, not UTF-8, not JSON
                continue
            if (isinstance(data, dict) and not schema_problem(data, (MANIFEST_SCHEMA_VERSION,), "")
                    and config_digest in (None, data.get("config_digest"))):
                yield path, data

    @property
    def manifest_path(self) -> Path:
        return self.path / "manifest.json"

    def read_manifest(self) -> dict[str, Any]:
        """The manifest ({} when there is none); DataError for one of an unknown schema."""
        if not self.manifest_path.is_file():
            return {}
        data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        if problem := schema_problem(data, (MANIFEST_SCHEMA_VERSION,), str(self.manifest_path)):
            raise DataError(problem)
        return data

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        atomic_write_json(self.manifest_path, manifest)

    def probe_files(self, task: Task, probe: str) -> "ProbeFiles":
        """Where `probe`'s files on `task` go, keyed by dataset, split, `task_folder` and probe."""
        where = (safe_name(task.dataset), safe_name(task.split), task_folder(task))
        return ProbeFiles(self.path.joinpath("predictions", *where, safe_name(probe)),
                          self.path.joinpath("artifacts", safe_name(probe), *where), self._written)

    def relative(self, paths: Iterable[Path]) -> list[str]:
        """Paths inside the run folder that exist, relative to it (sorted, unique)."""
        root = self.path.resolve()
        found = {path.resolve() for path in map(Path, paths) if path.is_file()}
        return sorted({p.relative_to(root).as_posix() for p in found if p.is_relative_to(root)})

    def write_results(self, rows: list[ResultRow]) -> None:
        write_jsonl(self.path / "results.jsonl", (r.to_json() for r in rows))

    def write_tables(self, layouts: dict[str, list[Any]], tags: list[Any],
                     headlines: dict[str, list[list[str]]] | None = None,
                     displays: dict[str, Any] | None = None) -> None:
        """`tables.json`: probe -> layouts, the row tags probes attached (harness.layouts),
        each probe's headline metrics (`Probe.headline`) and how the leaderboard shows it
        (`Probe.display()`, harness.display)."""
        atomic_write_json(self.path / TABLES_FILE, {
            "schema_version": TABLES_SCHEMA_VERSION,
            "layouts": {probe: [lay.to_json() for lay in found] for probe, found in sorted(layouts.items())},
            "tags": [t.to_json() for t in tags],
            "headlines": dict(sorted((headlines or {}).items())),
            "displays": {probe: d.to_json() for probe, d in sorted((displays or {}).items())},
        })

    def write_report(self, markdown: str) -> None:
        """report.md; a file of the run (`ctx.artifact`) is named relative to the run folder, so
        the report stays right when the folder moves. An undecodable path is written as
        `atomic_writer` writes it, as a stored output restored into a later run does."""
        atomic_write_text(self.path / "report.md", markdown.replace(f"{self.path}{os.sep}", ""))


@dataclass(frozen=True)
class ProbeFiles:
    """The folders of one probe's files on one task (made by `RunDir.probe_files`)."""

    predictions_folder: Path
    artifacts_folder: Path
    #: content digest -> (file, inode) of the run's prediction files (shared by its ProbeFiles)
    written: dict[str, tuple[Path, int]] = field(default_factory=dict, compare=False, repr=False)

    def predictions(self, variant: str) -> Path:
        """The JSON-lines file of the predictions of one variant."""
        return self.predictions_folder / f"{safe_name(variant or 'default')}.jsonl"

    def clear(self) -> None:
        """Remove the files an earlier attempt of the run (`--resume`) left here: the probe now
        runs or is restored anew, and a file it does not write again (the traceback of a failure)
        would be taken for this attempt's."""
        for folder in (self.predictions_folder, self.artifacts_folder):
            shutil.rmtree(folder, ignore_errors=True)

    def write_predictions(self, variant: str, rows: Iterable[dict[str, Any]]) -> Path:
        """Write `rows` as `predictions(variant)` (as `write_jsonl`); a file with the same bytes
        as one this run wrote before becomes a hard link to it (docs/architecture.md, "The run
        folder": up to six copies, 330 of a 356 MB run at 200,000 VQA v2 questions)."""
        path = self.predictions(variant)
        with atomic_writer(path) as fh:
            def lines() -> Iterator[str]:
                for row in rows:
                    line = json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n"
                    fh.write(line)
                    yield line

            key = digest_stream(lines())  # of the lines as written, while they are written
        first = self.written.get(key)
        if first is None or first[0] == path or not _link_over(first, path):
            self.written[key] = (path, path.stat().st_ino)
        return path

    def artifact(self, name: str) -> Path:
        """A path for an extra output file (its folder is created): `name` is relative and stays
        inside the probe's folder (no absolute path, no `..`), else a PluginError."""
        parts = PurePosixPath(str(name)).parts
        if not parts or PurePosixPath(str(name)).is_absolute() or Path(str(name)).is_absolute() or ".." in parts:
            raise PluginError(f"ctx.artifact({name!r}): the name leads outside the probe's folder; give a "
                              "relative name without '..' (e.g. 'scores/per_question.json')")
        path = self.artifacts_folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return path


def _link_over(source: tuple[Path, int], target: Path) -> bool:
    """Replace `target` by a hard link to `source` (a path and the inode it was written as),
    atomically; False, leaving `target`, when `source` was replaced or removed since (or holds
    other bytes), or the file system has no hard links."""
    path, inode = source
    tmp = target.with_name(f".{target.name}.link.tmp")
    try:
        # The inode alone does not say the file is the one written: a file system gives a freed
        # inode number to the next new file (the path rewritten twice since), so the bytes decide.
        if path.stat().st_ino != inode or not _same_bytes(path, target):
            return False
        tmp.unlink(missing_ok=True)
        os.link(path, tmp)
        os.replace(tmp, target)
        return True
    except OSError:
        tmp.unlink(missing_ok=True)
        return False


def _same_bytes(a: Path, b: Path) -> bool:
    if a.stat().st_size != b.stat().st_size:
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            block = fa.read(1 << 20)
            if block != fb.read(1 << 20):
                return False
            if not block:
                return True
