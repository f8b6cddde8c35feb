"""`precomputed`: image features from a file, one vector per image id.

`.npz`: one array per image id (the key). `.npy`: a 2-D array with a sidecar
`<stem>.ids.json` (the list of image ids, one per row). Vectors are l2-normalized; a
blanked image gives the zero vector. Unknown image ids are a DataError (count and examples).
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from harness.api import FeatureExtractor, Option
from harness.errors import DataError, UsageError
from harness.jsonio import read_json
from harness.types import BLANK_IMAGE, Example
from harness.validation import check_id, check_list, check_str, fail

from .toy import l2

__all__ = ["PrecomputedFeatures", "read_feature_file"]


def read_feature_file(path: Path) -> dict[str, np.ndarray]:
    """{image id: l2-normalized float32 vector} from a .npz, or a .npy + .ids.json.

    Pickled content is never loaded (`allow_pickle=False`). A file that is not a valid
    archive/array, an object or non-numeric array, a vector that is not 1-D (or one row),
    non-finite values, vectors of different lengths, and a bad or repeated id list are
    one-line DataErrors naming the file and the image id or row."""
    path = Path(path)
    if path.suffix not in (".npz", ".npy"):
        raise UsageError(f"image features file must be a .npz or .npy file: {path}")
    if not path.exists():
        raise DataError(f"image features file not found: {path}")
    if not path.is_file():
        raise DataError(f"{path}: is a folder, expected a .npz or .npy file")
    _check_magic(path)
    table = _read_npz(path) if path.suffix == ".npz" else _read_npy(path)
    if not table:
        raise DataError(f"{path}: no feature vectors")
    widths = {v.shape[0] for v in table.values()}
    if len(widths) > 1:
        raise DataError(f"{path}: feature vectors have different lengths ({', '.join(map(str, sorted(widths)))})")
    return table


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    if "pickle" in text.lower():
        text = "it holds Python objects (pickled, dtype object), which are never unpickled; save numeric arrays"
    return text


_MAGIC = {".npz": (b"PK\x03\x04", "a zip archive of .npy arrays"), ".npy": (b"\x93NUMPY", "a NumPy array file")}


def _check_magic(path: Path) -> None:
    magic, what = _MAGIC[path.suffix]
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(magic))
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if head != magic:
        raise DataError(f"{path}: not a valid {path.suffix} file (expected {what}; "
                        + ("the file is empty)" if not head else f"it starts with {head!r})"))


def _unreadable(path: Path, exc: BaseException) -> DataError:
    return DataError(f"{path}: not a valid {path.suffix} file ({_reason(exc)})")


def _vector(arr: np.ndarray, path: Path, where: str) -> np.ndarray:
    """A finite numeric 1-D vector (a single row is accepted), as float32, l2-normalized."""
    if arr.dtype.kind not in "fiu":
        raise DataError(f"{path}: {where}: expected a numeric array, got dtype {arr.dtype}")
    if arr.ndim == 2 and arr.shape[0] == 1:
        arr = arr[0]
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise DataError(f"{path}: {where}: expected a non-empty vector (1-D), got shape {tuple(arr.shape)}")
    vec = np.asarray(arr, np.float32)
    if not np.isfinite(vec).all():
        raise DataError(f"{path}: {where}: {int((~np.isfinite(vec)).sum())} non-finite value(s) (NaN or inf)")
    return l2(vec)


def _read_npz(path: Path) -> dict[str, np.ndarray]:
    try:
        data = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise _unreadable(path, exc) from None
    if not isinstance(data, np.lib.npyio.NpzFile):  # pragma: no cover - the magic check comes first
        raise DataError(f"{path}: not a .npz archive")
    with data:
        table = {}
        for key in data.files:
            try:
                arr = data[key]
            except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
                raise DataError(f"{path}: image id {key!r}: unreadable array ({_reason(exc)})") from None
            table[key] = _vector(arr, path, f"image id {key!r}")
    return table


def _read_npy(path: Path) -> dict[str, np.ndarray]:
    ids_path = path.with_suffix(".ids.json")
    raw = read_json(ids_path, f"the image-id list of {path.name}: a JSON list, one id per row")
    ids = check_list(raw, ids_path, "")
    seen: dict[str, int] = {}
    for j, value in enumerate(ids):
        key = str(check_str(value, ids_path, f"[{j}]") if isinstance(value, str) else check_id(value, ids_path, f"[{j}]"))
        if key in seen:
            raise fail(ids_path, f"[{j}]", f"duplicated image id {key!r} (first at [{seen[key]}])")
        seen[key] = j
    try:
        arr = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise _unreadable(path, exc) from None
    if not isinstance(arr, np.ndarray) or arr.ndim != 2 or arr.shape[0] != len(ids):
        shape = tuple(arr.shape) if isinstance(arr, np.ndarray) else type(arr).__name__
        raise DataError(f"{path}: expected {len(ids)} rows (one per id in {ids_path.name}), got shape {shape}")
    return {key: _vector(arr[j], path, f"row {j} (image id {key!r})") for key, j in seen.items()}


class PrecomputedFeatures(FeatureExtractor):
    name = "precomputed"
    description = "image features read from a .npz (key: image id) or .npy + .ids.json"
    modality: ClassVar[str] = "image"
    reads_image_files: ClassVar[bool] = False
    options: ClassVar[Mapping[str, Option]] = {"file": Option("", "the .npz / .npy file")}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if not self.config["file"]:
            raise UsageError("feature extractor 'precomputed' needs file=PATH (.npz or .npy)")
        self._table: dict[str, np.ndarray] | None = None

    @property
    def table(self) -> dict[str, np.ndarray]:
        if self._table is None:
            self._table = read_feature_file(Path(self.config["file"]))
        return self._table

    def check(self, items: Sequence[Example]) -> None:
        unknown = sorted({ex.image_id for ex in items if ex.image != BLANK_IMAGE and ex.image_id not in self.table})
        if unknown:
            raise DataError(f"{self.config['file']}: {len(unknown)} unknown image id(s) (e.g. {', '.join(unknown[:5])})")

    def encode(self, items: Sequence[Example]) -> np.ndarray:
        self.check(items)
        zero = np.zeros_like(next(iter(self.table.values())))
        return np.stack([zero if ex.image == BLANK_IMAGE else self.table[ex.image_id] for ex in items])

    def fingerprint_extra(self) -> Any:
        path = Path(self.config["file"])
        try:
            st = path.stat()
        except OSError:
            return None
        return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}
