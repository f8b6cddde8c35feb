"""`precomputed`: image features from a file, one vector per image id.

`.npz`: one array per image id (the key). `.npy`: a 2-D array with a sidecar
`<stem>.ids.json` (the list of image ids, one per row). Vectors are l2-normalized; a
blanked image gives the zero vector. Unknown image ids are a DataError (count and examples).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from harness.api import FeatureExtractor, Option
from harness.errors import DataError, UsageError
from harness.types import BLANK_IMAGE, Example
from vqa_harness_plugins.models.features.files import (
    check_array_file,
    file_stamp,
    ids_sidecar,
    load_npy,
    npz_array,
    numeric,
    open_npz,
    read_ids,
)

from .toy import l2

__all__ = ["PrecomputedFeatures", "read_feature_file"]


def read_feature_file(path: Path) -> dict[str, np.ndarray]:
    """{image id: l2-normalized float32 vector} from a .npz, or a .npy + .ids.json.

    Read through the checked feature-file reader (`vqa_harness_plugins.models.features.files`): pickled content
    is never loaded; a file that is not a valid archive/array, an object or non-numeric
    array, a vector that is not 1-D (or one row), non-finite values, vectors of different
    lengths, and a bad or repeated id list are one-line DataErrors naming the file and the
    image id or row."""
    path = check_array_file(path, "image features file")
    table = _read_npz(path) if path.suffix.lower() == ".npz" else _read_npy(path)
    if not table:
        raise DataError(f"{path}: no feature vectors")
    widths = {v.shape[0] for v in table.values()}
    if len(widths) > 1:
        raise DataError(f"{path}: feature vectors have different lengths ({', '.join(map(str, sorted(widths)))})")
    return table


def _vector(arr: np.ndarray, path: Path, where: str) -> np.ndarray:
    """A finite numeric 1-D vector (a single row is accepted), as float32, l2-normalized."""
    if isinstance(arr, np.ndarray) and arr.ndim == 2 and arr.shape[0] == 1:
        arr = arr[0]
    return l2(np.asarray(numeric(arr, path, where, ndims=(1,)), np.float32))


def _read_npz(path: Path) -> dict[str, np.ndarray]:
    with open_npz(path) as data:
        return {key: _vector(npz_array(data, key, path, f"image id {key!r}"), path, f"image id {key!r}")
                for key in data.files}


def _read_npy(path: Path) -> dict[str, np.ndarray]:
    ids_path = ids_sidecar(path)
    ids = read_ids(ids_path, f"the image-id list of {path.name}: a JSON list, one id per row")
    arr = load_npy(path)
    if arr.ndim != 2 or arr.shape[0] != len(ids):
        raise DataError(f"{path}: expected {len(ids)} rows (one per id in {ids_path.name}), got shape {tuple(arr.shape)}")
    return {key: _vector(arr[j], path, f"row {j} (image id {key!r})") for j, key in enumerate(ids)}


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
        #: The file's stat when the fingerprint first named it: the table read must be that file.
        self._stamp: Any = None

    @property
    def table(self) -> dict[str, np.ndarray]:
        if self._table is None:
            before = self._stat()
            table = read_feature_file(Path(self.config["file"]))
            if self._stat() != before or (self._stamp is not None and self._stamp != before):
                raise DataError(f"{self.config['file']}: the features file changed on disk while the run used it "
                                "(replaced or still being written); run again")
            self._stamp, self._table = before, table
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
        """The file's path, size and mtime (a `.npy`'s id list too), as first seen (the table
        read is checked against it)."""
        if self._stamp is None:
            self._stamp = self._stat()
        return self._stamp

    def _stat(self) -> Any:
        """The file's stamp, with its `.ids.json` list for a `.npy` (`files.file_stamp`)."""
        return file_stamp(self.config["file"])
