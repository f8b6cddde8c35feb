"""Content-addressed artifacts: model-independent work computed once, shared by every model and
run. An entry is `<kind>/<digest of the caller's key and the harness version>/`: the key holds
all the entry depends on (dataset fingerprint, options, a version of the code that builds it),
so a stale entry is never read; old ones stay until `harness cache clear`."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .. import __version__
from ..digest import digest
from ..errors import DataError
from ..fileio import atomic_folder
from ..paths import CACHE_TAG, cache_dir, tag_cache_folder
from ..types import Example
from ..locations import Locations
from .locks import build_lock

__all__ = ["ArtifactStore", "KindStatus", "cache_kinds", "cache_status", "clear_cache", "foreign_folders"]

#: The files of one artifact entry live in <root>/<kind>/<key>/; COMPLETE marks a finished write.
COMPLETE = ".complete"


@dataclass(frozen=True)
class KindStatus:
    """What `harness cache status` shows per kind."""

    kind: str
    entries: int
    #: bytes on disk, each file once however many links it has in the kind
    bytes: int
    path: Path
    #: of `bytes`, those of files also linked from outside the kind (run folders: stored probe
    #: outputs are hard links to a run's files), which stay on disk when the kind is cleared
    shared: int = 0


class ArtifactStore:
    """Artifacts under `root` (default: `$VQA_HARNESS_CACHE/artifacts`)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else cache_dir("artifacts")

    def key(self, kind: str, key: Any) -> str:
        return digest({"kind": kind, "key": key, "harness": __version__})

    def folder(self, kind: str, key: Any) -> Path:
        """The entry's folder (it exists only once the entry is complete)."""
        return self.root / _safe(kind) / self.key(kind, key)

    def has(self, kind: str, key: Any) -> bool:
        return (self.folder(kind, key) / COMPLETE).is_file()

    def entry(self, kind: str, key: Any, build: Callable[[Path], None]) -> Path:
        """The folder of a complete entry; `build(tmp_folder)` writes its files when absent
        (one process at a time: a concurrent builder waits, then finds the entry)."""
        final = self.folder(kind, key)
        if not (final / COMPLETE).is_file():
            with build_lock(final):
                if not (final / COMPLETE).is_file():
                    _write_entry(final, build)
        return final

    def json(self, kind: str, key: Any, build: Callable[[], Any]) -> Any:
        """A JSON value, computed by `build()` once per key."""
        path = self.folder(kind, key) / "value.json"

        def write(folder: Path) -> None:
            (folder / "value.json").write_text(json.dumps(build(), ensure_ascii=False, sort_keys=True),
                                               encoding="utf-8")

        # Read back what was written: the same value (key order, types) as every later read.
        return self._value(path, write, lambda: json.loads(path.read_text(encoding="utf-8")), (OSError, ValueError))

    def examples(self, kind: str, key: Any, build: Callable[[], list["Example"]]) -> list["Example"]:
        """A list of Examples (JSON lines of `Example.to_row`), built once per key. A path into
        the harness cache (a toy image) is stored relative to it (`Locations`), so a moved cache
        gives the images where they are now; entries stored with absolute paths have another key."""
        path = self.folder(kind, {"examples": key, "paths": "located"}) / "examples.jsonl"
        where = Locations({"harness-cache": cache_dir()})
        built: list[list[Example]] = []

        def write(folder: Path) -> None:
            built.append(build())
            with (folder / "examples.jsonl").open("wb") as fh:
                for ex in built[0]:
                    fh.write(where.store(json.dumps(ex.to_row(), ensure_ascii=False).encode("utf-8")) + b"\n")

        def read() -> list[Example]:
            if built:
                return built[0]
            text = where.restore(path.read_bytes())
            if text is None:  # cannot be: the harness cache is always known
                raise ValueError(f"{path}: names a folder not known here")
            return [Example.from_row(json.loads(line)) for line in text.decode("utf-8").split("\n") if line.strip()]

        return self._value(path, write, read, (OSError, ValueError, KeyError))

    def _value(self, path: Path, write: Callable[[Path], None], read: Callable[[], Any],
               damaged: tuple[type[Exception], ...]) -> Any:
        """`read()` of a complete entry; a damaged one is removed and rebuilt, under the entry's
        lock (so no process removes an entry another one has just rebuilt)."""
        folder = path.parent
        for _ in range(3):
            if (folder / COMPLETE).is_file():
                with contextlib.suppress(*damaged):
                    return read()
            with build_lock(folder):
                if (folder / COMPLETE).is_file():
                    try:
                        return read()  # complete and readable now (another process rebuilt it)
                    except damaged:
                        shutil.rmtree(folder, ignore_errors=True)
                _write_entry(folder, write)
        raise DataError(f"{folder}: this cache entry cannot be read back after rebuilding it; "
                        "check the disk or run `harness cache clear`")


def _write_entry(final: Path, build: Callable[[Path], None]) -> None:
    """Build into a temporary folder beside `final` and rename it into place (a stale entry
    without its marker, left by a builder that died without the lock, is replaced)."""
    with atomic_folder(final) as tmp:
        build(tmp)
        (tmp / COMPLETE).write_text("", encoding="utf-8")
    tag_cache_folder(final.parent.parent)  # the store's root: <root>/<kind>/<key>


def _safe(kind: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in kind) or "_"


def _size(path: Path) -> tuple[int, int]:
    """(bytes, shared) of the files under `path`, each file (inode) counted once; shared: the
    files with more links than those under `path`. A file or folder gone by the time it is
    reached (a run renaming its temporary files into place, another `cache clear`) is skipped."""
    seen: dict[tuple[int, int], list[int]] = {}  # (device, inode) -> [size, links, links found here]
    for folder, _dirs, files in os.walk(path):  # os.walk skips a folder that is gone
        for name in files:
            try:
                st = (Path(folder) / name).lstat()
            except FileNotFoundError:
                continue
            if stat.S_ISREG(st.st_mode):
                seen.setdefault((st.st_dev, st.st_ino), [st.st_size, st.st_nlink, 0])[2] += 1
    return (sum(size for size, _, _ in seen.values()),
            sum(size for size, links, here in seen.values() if links > here))


def cache_kinds(root: Path | None = None) -> list[Path]:
    """Each kind's folder, as `harness cache clear` removes them: `artifacts/<kind>` and the other
    folders tagged `CACHE_TAG` by `cache_dir` (`predictions`, `models`, ...); nothing is sized."""
    base = Path(root) if root is not None else cache_dir()
    arts = base / "artifacts"
    out = sorted(p for p in arts.iterdir() if p.is_dir()) if (arts / CACHE_TAG).is_file() else []
    return out + (sorted(p for p in base.iterdir() if p.name != "artifacts" and (p / CACHE_TAG).is_file())
                  if base.is_dir() else [])


def cache_status(root: Path | None = None) -> list[KindStatus]:
    """Per kind (`cache_kinds`; the prediction cache and trained weights are kinds `predictions`
    and `models`): complete entries (not the `.<entry>.lock` files of harness.cache.locks, nor
    temporary files) and bytes on disk."""
    arts = (Path(root) if root is not None else cache_dir()) / "artifacts"
    out = []
    for kind in cache_kinds(root):
        try:
            entries = sum(1 for e in kind.iterdir() if (e / COMPLETE).is_file()) if kind.parent == arts else \
                sum(1 for f in kind.iterdir() if f.name != CACHE_TAG and not f.name.startswith("."))
        except FileNotFoundError:  # removed since it was listed (another `harness cache clear`)
            continue
        size, shared = _size(kind)
        out.append(KindStatus(kind.name, entries, size, kind, shared))
    return out


def foreign_folders(root: Path | None = None) -> list[str]:
    """Folders in the cache folder that the harness did not make (no `CACHE_TAG`): never
    listed as kinds nor removed (a cache variable set to a project folder must not cost it
    its files). Folders of a cache written before the tag get it when a run uses them."""
    base = Path(root) if root is not None else cache_dir()
    return sorted(p.name for p in base.iterdir() if p.is_dir() and not (p / CACHE_TAG).is_file()) \
        if base.is_dir() else []


def clear_cache(kinds: list[str] | None = None, root: Path | None = None) -> list[KindStatus]:
    """Remove the given kinds (all when None); returns what was removed."""
    removed = [status for status in cache_status(root) if kinds is None or status.kind in kinds]
    for status in removed:
        shutil.rmtree(status.path, ignore_errors=True)
    return removed
