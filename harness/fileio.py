"""Files in and out: reading input with one-line `DataError`s naming the path (re-exported by
`vqa_harness_plugins.validation`), and the atomic writers every file the harness or a plugin
writes goes through (docs/architecture.md, "The caches"): a reader never sees a half-written
file. Whether an output folder can be written is `harness.folders`."""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import itertools
import json
import os
import select
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence, TextIO, TypeVar

from .errors import DataError

__all__ = ["read_json_files", "fail", "type_name", "describe", "read_bytes", "decode_text",
           "read_text", "csv_rows", "exists", "NAME_BYTES", "atomic_path", "atomic_folder",
           "atomic_writer", "atomic_write_text", "atomic_write_bytes", "atomic_write_json",
           "write_jsonl"]


def fail(path: Path | str, row: str, problem: str, field: str | None = None) -> DataError:
    """The one-line DataError: `<file>: <row>: field '<field>': <problem>` (parts may be empty)."""
    parts = [str(path)]
    if row:
        parts.append(row)
    if field is not None:
        parts.append(f"field {field!r}")
    parts.append(" ".join(problem.split()))  # never more than one line
    return DataError(": ".join(parts))


def type_name(value: Any) -> str:
    """JSON-ish type name: null, bool, int, float, str, list, object."""
    if value is None:
        return "null"
    return "object" if isinstance(value, dict) else type(value).__name__


def describe(value: Any) -> str:
    """'str \\'abc\\'' - the type and a short repr, for 'expected X, got ...' messages."""
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{type_name(value)} {text}" if not isinstance(value, (dict, list)) else type_name(value)


#: Seconds a FIFO (named pipe) given as an input file may take to send its first bytes.
FIFO_WAIT_SECONDS = 30.0


def read_bytes(path: Path | str, hint: str = "") -> bytes:
    """The file's bytes, in one read; a missing file, a folder or an unreadable file is one
    line. A FIFO (named pipe) is read once, to its end, when a writer sends something within
    `FIFO_WAIT_SECONDS`; else one line, never a wait without end."""
    path = Path(path)
    about = f" ({hint})" if hint else ""
    try:
        if stat.S_ISFIFO(os.stat(path).st_mode):
            return _read_fifo(path, about)
        return path.read_bytes()
    except FileNotFoundError:
        raise DataError(f"missing file: {path}{about}") from None
    except IsADirectoryError:
        raise DataError(f"{path}: is a folder, expected a file{about}") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _read_fifo(path: Path, about: str) -> bytes:
    """Open without waiting for a writer, wait a bounded time for its first bytes, then read
    until the writer closes."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb", buffering=0) as fh:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        if not poller.poll(FIFO_WAIT_SECONDS * 1000):
            raise DataError(f"{path}: a named pipe (FIFO) that no writer sent anything to within "
                            f"{FIFO_WAIT_SECONDS:.0f} s{about}")
        os.set_blocking(fd, True)
        return fh.read()


def decode_text(blob: bytes, path: Path | str) -> str:
    """UTF-8 text (a leading byte-order mark is dropped); DataError with the byte offset and
    line of the first invalid byte."""
    try:
        return blob.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = blob.count(b"\n", 0, exc.start) + 1
        raise DataError(f"{path}: not UTF-8 text (byte {exc.start}, line {line}: "
                        f"{blob[exc.start:exc.start + 4]!r}); re-save the file as UTF-8") from None


def read_text(path: Path | str, hint: str = "") -> str:
    """A text file decoded as UTF-8, with one-line errors (see `read_bytes`, `decode_text`)."""
    return decode_text(read_bytes(path, hint), path)


def csv_rows(path: Path | str, columns: Sequence[str], hint: str = "") -> Iterator[tuple[int, dict[str, str]]]:
    """(row number from 1 after the header, row) for every data row of a CSV file whose header
    holds `columns`; a row with more or fewer fields than the header, a NUL byte, a stray or
    unterminated quote is one line naming the row."""
    text = read_text(path, hint)
    if not text.strip():
        raise DataError(f"{path}: empty file (expected a CSV header with {', '.join(columns)})")
    nul = text.find("\x00")
    if nul >= 0:
        raise DataError(f"{path}: NUL byte at line {text.count(chr(10), 0, nul) + 1} (a binary or UTF-16 file?); "
                        "expected UTF-8 CSV text")
    # strict: an unterminated quote is an error, not the rest of the file read into one field
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        header = reader.fieldnames or []
    except csv.Error as exc:
        raise fail(path, "row 0 (header)", f"not valid CSV ({exc})") from None
    missing = [c for c in columns if c not in header]
    if missing:
        semi = len(header) == 1 and ";" in header[0]  # Excel in a European locale
        raise fail(path, "row 0 (header)", f"missing column(s) {', '.join(missing)}; expected {', '.join(columns)}"
                   + ("; the header is split by ';': save the file with commas" if semi else ""))
    for row_no in itertools.count(1):
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise fail(path, f"row {row_no}", f"not valid CSV ({exc})") from None
        if None in row:
            raise fail(path, f"row {row_no}", f"{len(header) + len(row[None])} fields, the header has "
                                              f"{len(header)} (an unquoted comma?)")
        short = [c for c in header if row.get(c) is None]
        if short:
            raise fail(path, f"row {row_no}", "missing value (short row)", short[0])
        yield row_no, row


_T = TypeVar("_T")


def read_json_files(paths: Iterable[Path], parse: Callable[[Any, str], _T]) -> tuple[list[_T], list[str]]:
    """Each JSON file through `parse(data, path)`, and a problem line per file that cannot be
    read or that `parse` refuses with a ValueError (its message names the file): a run's
    artifacts are read this way, so one damaged file costs its own rows only."""
    found: list[_T] = []
    problems: list[str] = []
    for path in paths:
        try:
            found.append(parse(json.loads(Path(path).read_text(encoding="utf-8")), str(path)))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            problems.append(f"{path}: cannot read ({exc})")
        except ValueError as exc:
            problems.append(str(exc))
    return found, problems


def exists(path: Path | str) -> bool:
    """Whether `path` exists; one DataError line naming it, and why, when that cannot be
    known (a folder on the way this user may not search, a name longer than the file system
    takes), where Path.exists raises OSError."""
    try:
        return Path(path).exists()
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None


_UMASK = os.umask(0)
os.umask(_UMASK)


def _temp_prefix(name: str) -> str:
    """".NAME." with NAME cut to at most 100 bytes (whole characters), so the temporary name
    fits the file system's 255-byte limit wherever the file's own name does (cut by
    characters, 84 three-byte characters still gave a 266-byte temporary name)."""
    while len(os.fsencode(name)) > 100:
        name = name[:-1]
    return f".{name}."


@contextlib.contextmanager
def atomic_path(path: Path | str) -> Iterator[Path]:
    """A temporary path beside `path` to write to (for writers that take a path: torch.save);
    it replaces `path`, synced to disk, only when the block ends without an error (removed
    otherwise). The file gets 0666 minus the umask, not mkstemp's 0600, so a static web
    server running as another user can serve leaderboard files."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=_temp_prefix(path.name), suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb") as written:  # on disk before it takes the name (a power cut never
            os.fsync(written.fileno())    # leaves an empty or half file in its place)
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_folder(path: Path | str) -> Iterator[Path]:
    """A temporary folder beside `path` to fill; it replaces `path` (and whatever was there)
    only when the block ends without an error, and is removed otherwise. Every file and
    folder in it is synced before the rename (a power cut never leaves empty or short files),
    and it gets 0777 minus the umask, not mkdtemp's 0700, so another account can read it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=_temp_prefix(path.name), dir=path.parent))
    try:
        yield tmp
        _sync_tree(tmp)
        os.chmod(tmp, 0o777 & ~_UMASK)
        try:
            os.replace(tmp, path)
        except OSError:  # a folder is there (stale or incomplete): replaced
            shutil.rmtree(path, ignore_errors=True)
            os.replace(tmp, path)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _sync_tree(root: Path) -> None:
    """fsync every regular file under `root`, then every folder, deepest first (a folder's
    entries are on disk only once the folder itself is synced)."""
    for folder, _dirs, files in os.walk(root, topdown=False):
        for name in files:
            file = os.path.join(folder, name)
            if os.path.isfile(file) and not os.path.islink(file):
                with open(file, "rb") as fh:
                    os.fsync(fh.fileno())
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_writer(path: Path | str) -> Iterator[TextIO]:
    """A UTF-8 text file written piece by piece, put in place as `atomic_path` does. A path
    Python could not decode (an ASCII locale keeps "é" of `--out résultats` as the surrogates
    \\udcc3\\udca9) is written as its bytes when they are UTF-8, else as U+FFFD (`NAME_BYTES`):
    the file stays UTF-8 that the harness can read back."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", errors=NAME_BYTES, newline="\n") as fh:
        yield fh


def _name_bytes(exc: UnicodeError) -> tuple[bytes, int]:
    """Encoding error handler: a run of lone surrogates becomes the bytes they stand for
    (os.fsdecode's surrogateescape keeps byte 0xNN as U+DCNN) read as UTF-8, each byte that is
    not UTF-8 (and any other lone surrogate) as U+FFFD."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    run = exc.object[exc.start:exc.end]
    blob = b"".join(bytes([ord(c) - 0xDC00]) if 0xDC80 <= ord(c) <= 0xDCFF else b"\xff" for c in run)
    return blob.decode("utf-8", "replace").encode("utf-8"), exc.end  # bytes: the encoder takes only ASCII text


#: The `errors=` of every text file the harness writes (`atomic_writer`, stored probe outputs).
NAME_BYTES = "vqa-harness-name-bytes"
codecs.register_error(NAME_BYTES, _name_bytes)


def atomic_write_text(path: Path | str, text: str) -> None:
    with atomic_writer(path) as fh:
        fh.write(text)


def atomic_write_bytes(path: Path | str, blob: bytes) -> None:
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(blob)


def atomic_write_json(path: Path | str, obj: Any) -> None:
    """Indented, key-sorted JSON with a final newline, written atomically."""
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def write_jsonl(path: Path | str, rows: Iterable[dict[str, Any]]) -> None:
    """One JSON object per line, written atomically as `rows` yields them."""
    with atomic_writer(path) as fh:
        for r in rows:
            fh.write(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n")
