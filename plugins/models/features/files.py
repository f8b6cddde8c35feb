"""Checked reading of numeric feature files: `.npz` archives, `.npy` arrays and their image-id
lists (the array half of the validation layer; `vqa_harness_plugins.validation` holds the rest).

Every reader of feature files goes through these helpers: the `precomputed` feature
extractor (one vector per image id), the counter-example probe's and explainer's
neighbour features (arrays `ids` and `features`) and the attention models' grids
(`[R, D]` per image). So the same problem gets the same one-line `DataError`, naming
the file and the image id, array or row:

- not there, a folder, an unknown suffix (UsageError), empty, or not the format its suffix
  says (`.npz` is a zip archive, `.npy` starts with the NumPy magic): the first bytes shown;
- truncated: a damaged zip archive, an `.npy` shorter than its header promises;
- Python objects (dtype object) are never unpickled (`allow_pickle=False`), and say so;
- arrays: numeric dtype (not strings or bools), the expected number of dimensions, no
  empty axis, finite values;
- id lists (a JSON list in a `.ids.json` sidecar, or an `ids` array): non-empty strings or
  integer ids in [0, 2^53 - 1], no id twice, one per row.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from harness.errors import DataError, UsageError
from harness.jsonio import read_json
from vqa_harness_plugins.validation import MAX_ID, check_list, describe, fail

__all__ = ["check_array_file", "open_npz", "npz_array", "load_npy", "numeric", "check_ids", "read_ids",
           "ids_sidecar", "reason", "file_stamp"]

_MAGIC = {".npz": (b"PK\x03\x04", "a zip archive of .npy arrays"), ".npy": (b"\x93NUMPY", "a NumPy array file"),
          ".h5": (b"\x89HDF\r\n\x1a\n", "an HDF5 file"), ".hdf5": (b"\x89HDF\r\n\x1a\n", "an HDF5 file")}
#: Errors NumPy and zipfile raise for a damaged file (mapped to one line, never a traceback).
_READ_ERRORS = (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError)


def reason(exc: BaseException) -> str:
    """The one-line cause of a read failure (pickled objects and damaged zips said plainly)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if "pickle" in text.lower() or "python objects" in text.lower():
        return "it holds Python objects (pickled, dtype object), which are never unpickled; save numeric arrays"
    if isinstance(exc, zipfile.BadZipFile):
        return f"a damaged or truncated zip archive ({text})"
    return text


def check_array_file(path: Path | str, what: str = "image features file",
                     suffixes: Sequence[str] = (".npz", ".npy")) -> Path:
    """`path` if it is an existing `.npz` / `.npy` file whose first bytes match its suffix."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in suffixes:
        raise UsageError(f"{what} must be a {' or '.join(suffixes)} file: {path}")
    if not path.exists():
        raise DataError(f"{what} not found: {path}")
    if not path.is_file():
        raise DataError(f"{path}: is a folder, expected a {suffix} file")
    if suffix in _MAGIC:
        magic, kind = _MAGIC[suffix]
        try:
            with open(path, "rb") as fh:
                head = fh.read(len(magic))
        except OSError as exc:
            raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None
        if head != magic and not (suffix == ".npz" and head == b"PK\x05\x06"):  # an empty zip archive
            raise DataError(f"{path}: not a valid {suffix} file (expected {kind}; "
                            + ("the file is empty)" if not head else f"it starts with {head!r})"))
    return path


def _unreadable(path: Path, exc: BaseException) -> DataError:
    return DataError(f"{path}: not a valid {path.suffix} file ({reason(exc)})")


def open_npz(path: Path) -> Any:
    """The `.npz` archive (an `NpzFile`; members are read on access with `npz_array`)."""
    try:
        data = np.load(path, allow_pickle=False)
    except _READ_ERRORS as exc:
        raise _unreadable(path, exc) from None
    if not isinstance(data, np.lib.npyio.NpzFile):  # pragma: no cover - check_array_file comes first
        raise DataError(f"{path}: not a .npz archive")
    return data


def npz_array(data: Any, key: str, path: Path, where: str) -> np.ndarray:
    """Member `key` of an open archive; a damaged or pickled member is one line naming it."""
    try:
        return data[key]
    except _READ_ERRORS as exc:
        raise DataError(f"{path}: {where}: unreadable array ({reason(exc)})") from None


def load_npy(path: Path, *, mmap: bool = False) -> np.ndarray:
    """An `.npy` array (memory-mapped with `mmap`); a file shorter than its header promises is
    'truncated', object arrays are refused without unpickling."""
    try:
        with open(path, "rb") as fh:
            version = np.lib.format.read_magic(fh)
            header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                      else np.lib.format.read_array_header_2_0)
            shape, _, dtype = header(fh)
            start = fh.tell()
        size = path.stat().st_size
    except _READ_ERRORS as exc:
        raise _unreadable(path, exc) from None
    if dtype.hasobject:
        raise _unreadable(path, ValueError("pickle"))
    expected = start + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if size < expected:
        raise DataError(f"{path}: truncated .npy file ({size} bytes; its header promises {expected} for shape "
                        f"{tuple(shape)} of {dtype})")
    try:
        return np.load(path, allow_pickle=False, mmap_mode="r" if mmap else None)
    except _READ_ERRORS as exc:
        raise _unreadable(path, exc) from None


def numeric(arr: Any, path: Path, where: str, *, ndims: Iterable[int], finite: bool = True) -> np.ndarray:
    """`arr` if it is a numeric (int/float) array with one of `ndims` dimensions, no empty axis
    and (with `finite`) no NaN or infinity; otherwise one line naming `where`."""
    ndims = tuple(ndims)
    if not isinstance(arr, np.ndarray):
        raise DataError(f"{path}: {where}: expected a numeric array, got {type(arr).__name__}")
    if arr.dtype.kind not in "fiu":
        raise DataError(f"{path}: {where}: expected a numeric array, got dtype {arr.dtype}")
    if arr.ndim not in ndims or 0 in arr.shape:
        want = " or ".join(f"{n}-D" for n in ndims)
        raise DataError(f"{path}: {where}: expected a non-empty {want} array, got shape {tuple(arr.shape)}")
    if finite and arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            raise DataError(f"{path}: {where}: {int(bad.sum())} non-finite value(s) (NaN or inf)")
    return arr


def check_ids(values: Any, path: Path, where: str = "", *, rows: int | None = None) -> list[str]:
    """Image ids as strings from a list or 1-D array: non-empty strings or integer ids in
    [0, 2^53 - 1], none twice, `rows` of them when given."""
    if isinstance(values, np.ndarray):
        if values.ndim != 1 or values.dtype.kind not in "USiu":
            raise DataError(f"{path}: {where or 'ids'}: expected a 1-D array of strings or integers, got "
                            f"dtype {values.dtype} and shape {tuple(values.shape)}")
        values = values.tolist()
    values = check_list(values, path, where)
    out: list[str] = []
    seen: dict[str, int] = {}
    for j, value in enumerate(values):
        row = f"{where}[{j}]"
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if isinstance(value, str) and value.strip():
            key = value.strip()
        elif type(value) is int and 0 <= value <= MAX_ID:
            key = str(value)
        elif type(value) is int:
            raise fail(path, row, f"image id {value} is out of range [0, 2^53 - 1]")
        else:
            raise fail(path, row, f"expected an image id (a non-empty string or an integer), got {describe(value)}")
        if key in seen:
            raise fail(path, row, f"duplicated image id {key!r} (first at {where}[{seen[key]}])")
        seen[key] = j
        out.append(key)
    if not out:
        raise DataError(f"{path}: {where + ': ' if where else ''}no image ids (an empty list)")
    if rows is not None and rows != len(out):
        raise DataError(f"{path}: {where + ': ' if where else ''}{len(out)} image ids for {rows} rows")
    return out


def ids_sidecar(path: Path) -> Path:
    """The image-id list of an `.npy` file: `<stem>.ids.json`, or `<name>.ids.json` (f.npy.ids.json)
    when only that one exists."""
    stem, name = path.with_suffix(".ids.json"), path.with_name(path.name + ".ids.json")
    return name if name.is_file() and not stem.is_file() else stem


def file_stamp(path: Path | str) -> dict[str, Any] | None:
    """What a cache key stamps of a feature file: its resolved path, size and mtime_ns and,
    for a `.npy`, those of its image-id list (which row is which image is part of the
    features: a reordered list gives every image another vector). None when it is absent."""
    path = Path(path)
    try:
        st = path.stat()
    except OSError:
        return None
    out: dict[str, Any] = {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    if path.suffix.lower() == ".npy":
        ids = ids_sidecar(path)
        try:
            ids_st = ids.stat()
            out["ids"] = {"path": str(ids.resolve()), "size": ids_st.st_size, "mtime_ns": ids_st.st_mtime_ns}
        except OSError:
            out["ids"] = None
    return out


def read_ids(path: Path, hint: str) -> list[str]:
    """The image ids of an `.ids.json` file (see `check_ids`)."""
    return check_ids(read_json(path, hint), path)
