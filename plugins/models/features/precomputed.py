"""`precomputed`: image features from a file, one vector per image id.

`.npz`: one array per image id (the key). `.npy`: a 2-D array with a sidecar
`<stem>.ids.json` (the list of image ids, one per row). Vectors are l2-normalized; a
blanked image gives the zero vector. Unknown image ids are a DataError (count and examples).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from harness.api import FeatureExtractor, Option
from harness.errors import DataError, UsageError
from harness.types import BLANK_IMAGE, Example

from .toy import l2

__all__ = ["PrecomputedFeatures", "read_feature_file"]


def read_feature_file(path: Path) -> dict[str, np.ndarray]:
    """{image id: l2-normalized float32 vector} from a .npz, or a .npy + .ids.json."""
    if not path.is_file():
        raise DataError(f"image features file not found: {path}")
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as data:
            table = {k: l2(np.asarray(data[k], np.float32).reshape(-1)) for k in data.files}
    elif path.suffix == ".npy":
        ids_path = path.with_suffix(".ids.json")
        try:
            ids = [str(i) for i in json.loads(ids_path.read_text(encoding="utf-8"))]
        except (OSError, ValueError) as exc:
            raise DataError(f"{ids_path}: the image-id list of {path.name} is missing or bad ({exc})") from None
        arr = np.load(path, allow_pickle=False)
        if arr.ndim != 2 or arr.shape[0] != len(ids):
            raise DataError(f"{path}: expected {len(ids)} rows (one per id in {ids_path.name}), got shape {arr.shape}")
        table = {i: l2(np.asarray(r, np.float32)) for i, r in zip(ids, arr)}
    else:
        raise UsageError(f"image features file must be a .npz or .npy file: {path}")
    widths = {v.shape[0] for v in table.values()}
    if len(widths) > 1:
        raise DataError(f"{path}: feature vectors have different lengths ({', '.join(map(str, sorted(widths)))})")
    if not table:
        raise DataError(f"{path}: no feature vectors")
    return table


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
