"""Shared plumbing for the offline NLP resources: status records, where NLTK data lives,
the install manifest and a bounded `nltk.download` attempt."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import socket
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import ResourceError, UsageError
from harness.fileio import atomic_write_json
from harness.paths import HOME_ENV, data_home

__all__ = [
    "MANIFEST_NAME",
    "ResourceCache",
    "ResourceStatus",
    "candidate_roots",
    "check_cached",
    "default_target",
    "ensure_nltk_path",
    "first_root",
    "folder_stamps",
    "is_file",
    "lookup_state",
    "make_private",
    "make_target",
    "nltk_refusal",
    "nltk_search_path",
    "quick_state",
    "read_manifest",
    "record_source",
    "resolve_target",
    "try_nltk_download",
]

#: Written into the target folder by `install`: which resource came from where.
MANIFEST_NAME = "vqa_harness_resources.json"

#: Seconds a socket may wait during `nltk.download`; offline machines must fail fast.
DOWNLOAD_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class ResourceStatus:
    """One resource as `harness resources status` shows it.

    `location` is where it is (or would be) read from; `source` where it came from;
    `detail` says how to fix it when `present` is false (empty otherwise)."""

    name: str
    present: bool
    location: str
    source: str
    detail: str = ""


def default_target() -> Path:
    """The harness's own NLTK data folder: `harness.paths.data_home("nltk_data")`, created
    by an install (`make_target`), not by a look-up: with a read-only home and NLTK data in
    $NLTK_DATA or /usr/share/nltk_data, every use of WordNet was "cannot be used as a folder"."""
    return data_home("nltk_data", create=False)


def resolve_target(target: Path | str | None) -> Path:
    """`target` as an absolute Path, or the default data home when None."""
    if target is None:
        return default_target()
    return Path(target).expanduser().resolve()


def make_target(target: Path | str | None) -> Path:
    """Create the install folder `target` (None: the data home) and return it resolved; a path
    that cannot be a folder (a file in the way, no permission, a read-only or virtual file
    system) is one UsageError naming `--target` (or the data home's variable)."""
    folder = resolve_target(target)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not os.access(folder, os.W_OK | os.X_OK):  # an existing folder of another account's
            raise PermissionError(13, "Permission denied")
    except OSError as exc:
        reason = "a file is in the way" if isinstance(exc, (FileExistsError, NotADirectoryError)) else (
            exc.strerror or str(exc))
        if target is None:
            raise UsageError(f"{folder} cannot be used as a folder ({reason}); set {HOME_ENV} to a writable "
                             f"folder (now {os.environ.get(HOME_ENV) or 'unset'})") from None
        raise UsageError(f"--target {folder} cannot be used as a folder ({reason}); choose another folder") from None
    return folder


def _nltk_sandboxed() -> bool:
    """Whether NLTK refuses data another account could have written (its `nltk.pathsec`,
    ENFORCE on), known without importing nltk (about 3 s) unless it is imported already."""
    if os.name != "posix":
        return False
    live = sys.modules.get("nltk.pathsec")
    if live is not None:
        return bool(getattr(live, "ENFORCE", False))
    # Not imported: a sandbox present is taken as enforced (its default). Wrong only where a
    # user turned it off, and then the worst is a copy named as refused that NLTK would read.
    spec = importlib.util.find_spec("nltk")
    return bool(spec and spec.origin and (Path(spec.origin).parent / "pathsec.py").is_file())


def _chain(root: Path, resource: Path) -> list[Path]:
    """`root`, each folder from it down to `resource`, `resource`, then every entry under it."""
    parts = resource.relative_to(root).parts
    chain = [root.joinpath(*parts[:i]) for i in range(len(parts) + 1)]
    if resource.is_dir():
        for folder, dirs, files in os.walk(resource):
            chain += [Path(folder, name) for name in sorted(dirs + files)]
    return chain


def nltk_refusal(root: Path, resource: Path) -> str:
    """Why NLTK will not read `resource` (a folder or file under the data root `root`), or "".

    NLTK's data sandbox (nltk.data.find) reads nothing another account could have written:
    the root, each folder down to the resource and every entry under it must belong to this
    user or root and carry no group or world write bit (links: their owner only). A copy
    written under umask 002 (the default of many desktop accounts) was listed as installed
    and every run reading it failed."""
    if not _nltk_sandboxed():
        return ""
    for path in _chain(root, resource):
        try:
            st = path.lstat()
        except OSError:
            continue
        if st.st_uid not in (os.geteuid(), 0):
            why = f"owned by user id {st.st_uid}, not by you or root"
        elif not stat.S_ISLNK(st.st_mode) and st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            why = f"writable by other accounts (mode {stat.S_IMODE(st.st_mode):04o})"
        else:
            continue
        return (f"NLTK will not read {path}: {why}; it reads no data another account could have written "
                f"(run `harness resources install` for the harness's own copy, or `chmod -R go-w {root}` "
                "on a folder of yours)")
    return ""


def make_private(root: Path, resource: Path) -> None:
    """Take the group and world write bits off `root`, the folders down to `resource` and
    everything under it that this user owns, whatever the umask (see `nltk_refusal`)."""
    for path in _chain(root, resource):
        with contextlib.suppress(OSError):
            st = path.lstat()
            if st.st_uid == os.geteuid() and not stat.S_ISLNK(st.st_mode) and st.st_mode & 0o022:
                os.chmod(path, stat.S_IMODE(st.st_mode) & ~0o022)


def is_file(path: Path) -> bool:
    """`path.is_file()`, False where a folder on the way cannot be read (another account's)."""
    try:
        return path.is_file()
    except OSError:
        return False


def ensure_nltk_path(target: Path | str | None = None) -> Path:
    """Append the harness NLTK data folder to `nltk.data.path` (idempotent); return it.

    Appended, not prepended: NLTK data the user already has (NLTK_DATA, ~/nltk_data)
    keeps priority. NLTK's path sandbox only opens files under `nltk.data.path`, so the
    folder must be listed before any reader touches it."""
    import nltk.data  # heavy: nltk takes about 1 s; only its own reader and tagger need it

    root = resolve_target(target)
    if str(root) not in [str(p) for p in nltk.data.path]:
        nltk.data.path.append(str(root))
    return root


def nltk_search_path() -> list[str]:
    """`nltk.data.path` without importing nltk (about 3 s): the live list when nltk is
    already imported, else the defaults NLTK computes at import (nltk/data.py, UNIX)."""

    live = sys.modules.get("nltk.data")
    if live is not None:
        return [str(getattr(p, "path", p)) for p in live.path]
    path = [os.path.expanduser(d) for d in os.environ.get("NLTK_DATA", "").split(os.pathsep) if d]
    if "APPENGINE_RUNTIME" not in os.environ and os.path.expanduser("~/") != "~/":
        path.append(os.path.expanduser("~/nltk_data"))
    path += [os.path.join(sys.prefix, "nltk_data"), os.path.join(sys.prefix, "share", "nltk_data"),
             os.path.join(sys.prefix, "lib", "nltk_data"), "/usr/share/nltk_data",
             "/usr/local/share/nltk_data", "/usr/lib/nltk_data", "/usr/local/lib/nltk_data"]
    return path


def candidate_roots(target: Path) -> list[Path]:
    """NLTK data folders to search, in priority order: NLTK_DATA, `nltk.data.path`, target.

    This is "existing NLTK data first": a resource found earlier in the list wins."""
    seen: list[Path] = []
    entries = [e for e in os.environ.get("NLTK_DATA", "").split(os.pathsep) if e]
    entries += nltk_search_path()
    entries.append(str(target))
    for entry in entries:
        # Zip files on the path and unreadable entries cannot hold our folder layout.
        if entry.lower().endswith(".zip"):
            continue
        path = Path(entry).expanduser()
        try:
            path = path.resolve()
        except OSError:
            continue
        if path not in seen:
            seen.append(path)
    return seen


def first_root(target: Path, holds: Callable[[Path], bool]) -> Path | None:
    """The first of `candidate_roots(target)` that `holds` a resource, else None."""
    return next((root for root in candidate_roots(target) if holds(root)), None)


def folder_stamps(folder: Path, names: Sequence[str], fix: str) -> list[list[Any]]:
    """[name, size, mtime_ns] of each file of an installed resource (its cache key); a file
    that cannot be read is one ResourceError naming it, followed by `fix`."""
    stamps = []
    for name in names:
        try:
            st = (folder / name).stat()
        except OSError as exc:
            raise ResourceError(f"{folder / name}: cannot read ({exc.strerror or exc}); {fix}") from None
        stamps.append([name, st.st_size, st.st_mtime_ns])
    return stamps


def check_cached(cache_file: Path, load: Callable[[], Any]) -> str:
    """"" when an installed resource's files are usable: the cache file built from these
    very files exists, or `load()` (which builds and caches it) succeeds; else the
    ResourceError's text."""
    try:
        if cache_file.is_file():
            return ""
        load()
    except ResourceError as exc:
        return str(exc)
    return ""


def lookup_state(target: Path | str | None) -> tuple[Any, ...]:
    """A hashable snapshot of everything that decides where a resource is found (a cache key)."""
    return (str(resolve_target(target)), os.environ.get("NLTK_DATA", ""), tuple(nltk_search_path()))


def quick_state(target: Path | str | None) -> tuple[Any, ...]:
    """A cheap key (no file-system calls) for memoizing where a resource was found: the
    target and every variable that moves the search path."""

    live = sys.modules.get("nltk.data")
    return (
        None if target is None else str(target),
        *(os.environ.get(v, "") for v in ("NLTK_DATA", "VQA_HARNESS_HOME", "XDG_DATA_HOME", "HOME")),
        None if live is None else tuple(str(getattr(p, "path", p)) for p in live.path),
    )


def read_manifest(target: Path) -> dict[str, dict[str, str]]:
    """The install manifest of `target` ({} when absent or unreadable)."""
    try:
        data = json.loads((target / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record_source(target: Path, name: str, source: str) -> None:
    """Remember in the manifest where resource `name` in `target` came from (atomic write)."""
    manifest = read_manifest(target)
    manifest[name] = {"source": source}
    atomic_write_json(target / MANIFEST_NAME, manifest)


def try_nltk_download(package: str, target: Path, timeout_s: float = DOWNLOAD_TIMEOUT_S) -> bool:
    """Try `nltk.download(package)` into `target` with a short socket timeout; True on success.

    Never raises and never hangs: without network the download fails within `timeout_s`.
    Restricted on purpose: only `harness resources install --allow-download` calls it (off by
    default; never a run, a test or the install script),
    for the two package names fixed in wordnet_corpus.py and tagger.py, into the harness's own
    NLTK folder; both have offline fallbacks (Debian WordNet, the converted tagger). The
    reason: a machine that can reach NLTK's data server gets NLTK's own copies."""

    import nltk  # heavy: nltk takes about 1 s; only its own reader and tagger need it

    ensure_nltk_path(target)
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(timeout_s)
    try:
        # The downloader prints its own errors; the status line says what happened instead.
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink):
            return bool(  # restricted as the docstring says: --allow-download, two fixed names, our folder
                nltk.download(package, download_dir=str(target), quiet=True, print_error_to=sink)
            )
    # Any network, parsing or sandbox failure just means "not downloaded".
    except Exception:  # noqa: BLE001
        return False
    finally:
        socket.setdefaulttimeout(previous)


class ResourceCache:
    """Loaded NLTK objects (a WordNet reader, a tagger), one per data root, found per target.

    Locating costs a few `stat` calls, so the root found for a lookup state is remembered too.
    Every call re-adds the root to `nltk.data.path`: NLTK readers open files lazily and its
    sandbox refuses any file outside the roots listed at that moment."""

    def __init__(
        self,
        locate: Callable[[Path], Path | None],
        load: Callable[[Path], Any],
        what: str,
        missing: str,
        refusal: Callable[[Path], str] = lambda root: "",
    ) -> None:
        self._locate, self._load, self._what, self._missing = locate, load, what, missing
        self._refusal = refusal  # root -> why NLTK will not read the resource there ("" when it will)
        self._roots: dict[tuple[Any, ...], Path] = {}
        self._objects: dict[Path, Any] = {}

    def get(self, target: Path | str | None) -> Any:
        """The loaded object for `target`, or ResourceError (`missing`) when nothing is installed."""
        key = lookup_state(target)
        root = self._roots.get(key)
        if root is None:
            root = self._locate(resolve_target(target))
            if root is None:
                raise ResourceError(self._missing)
        ensure_nltk_path(root)
        self._roots[key] = self._roots[lookup_state(target)] = root
        if root not in self._objects:
            if problem := self._refusal(root):
                raise ResourceError(f"{self._what} under {root}: {problem}")
            try:
                self._objects[root] = self._load(root)
            except (LookupError, OSError, ValueError) as exc:
                raise ResourceError(
                    f"{self._what} under {root} is unreadable ({exc}); run `harness resources install`"
                ) from None
        return self._objects[root]
