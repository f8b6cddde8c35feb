"""Grid image features for the attention models and the counter-example explainer.

A grid is R region vectors of D values per image, float32 `[R, D]`; the attention models
(HieCoAtt, MCB, the spatial-memory Attention model) attend over the R regions. The source
is the models' `grid` option:

- `toy-cells` (default): toyvqa's 3x3 layout read from the pixels with the object reader
  of `features/toy.py` (`detect_objects`): per cell a one-hot noun (8), color (10) and size
  (2) and an occupancy flag; R = 9, D = 21. The toy analogue of detector region features
  (the regions an object detector would propose), as `toy-objects` is for the MLPs.
- `toy-patches`: the pixels of each cell of the 3x3 layout, resized to 6x6 RGB, in [0, 1]
  minus the background colour; R = 9, D = 108. Raw pixels, nothing read off them.
- a file keyed by image id (real data, e.g. ResNet res5c features: 14x14x2048):
  `.npz` with one array per image id (the key), each `[R, D]` or `[H, W, D]`; or `.npy`
  of shape `[N, R, D]` or `[N, H, W, D]` with a sidecar `<stem>.ids.json` (the image ids,
  one per row; memory-mapped). `[H, W, D]` grids are flattened row-major to R = H*W.
  Files are read through `vqa_harness_plugins.models.features.files` (the `precomputed` extractor's checked
  reader): a damaged or truncated file, pickled objects, a non-numeric or non-finite grid
  and a bad id list are one line naming the file and the image id or row. The file is
  opened (headers and id list checked) when the model is built, so a bad one stops the run
  before any work.

A blanked image (`harness.types.BLANK_IMAGE`) is the zero grid. Features are computed once
per image per process (memoized).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np
from PIL import Image

from harness.errors import DataError, UsageError
from harness.images import load_image, missing_images
from harness.types import BLANK_IMAGE, Example
from vqa_harness_plugins.datasets.toyvqa.world import BACKGROUND, COLORS, GRID, NOUNS, SIZES
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

from .cnnlstm import image_digest
from .features.toy import detect_objects

__all__ = ["GridFeatures", "TOY_GRIDS", "toy_cell_grid", "toy_patch_grid", "GRID_HELP"]

TOY_GRIDS = ("toy-cells", "toy-patches")
GRID_HELP = ("grid image features: 'toy-cells' (objects read per cell of toyvqa's 3x3 layout), 'toy-patches' "
             "(pixels per cell) or a .npz / .npy file keyed by image id ([R, D] or [H, W, D] per image)")
PATCH = 6


def _cells(pixels: np.ndarray) -> list[np.ndarray]:
    side = pixels.shape[0] / GRID
    out = []
    for index in range(GRID * GRID):
        row, col = divmod(index, GRID)
        out.append(pixels[int(row * side): int((row + 1) * side), int(col * side): int((col + 1) * side)])
    return out


def toy_cell_grid(path: str) -> np.ndarray:
    """[9, 21]: per cell of a toyvqa image, one-hot noun, color, size and an occupancy flag."""
    colors, width = tuple(COLORS), len(NOUNS) + len(COLORS) + len(SIZES) + 1
    grid = np.zeros((GRID * GRID, width), dtype=np.float32)
    if path == BLANK_IMAGE:
        return grid
    for noun, color, size, cell in detect_objects(np.asarray(load_image(path).convert("RGB"))):
        row = grid[cell]
        row[NOUNS.index(noun)] = 1.0
        row[len(NOUNS) + colors.index(color)] = 1.0
        row[len(NOUNS) + len(colors) + SIZES.index(size)] = 1.0
        row[-1] = 1.0
    return grid


def toy_patch_grid(path: str) -> np.ndarray:
    """[9, 108]: each cell of a toyvqa image as 6x6 RGB in [0, 1], minus the background."""
    if path == BLANK_IMAGE:
        return np.zeros((GRID * GRID, PATCH * PATCH * 3), dtype=np.float32)
    pixels = np.asarray(load_image(path).convert("RGB"))
    rows = []
    for cell in _cells(pixels):
        small = np.asarray(Image.fromarray(cell).resize((PATCH, PATCH), Image.BILINEAR), dtype=np.float32)
        rows.append(((small - np.array(BACKGROUND, np.float32)) / 255.0).reshape(-1))
    return np.stack(rows)


class GridFeatures:
    """Grid features from one source (`spec`: a TOY_GRIDS name or a .npz / .npy path)."""

    def __init__(self, spec: str, *, owner: str) -> None:
        self.spec, self.owner = str(spec), owner
        self._memo: dict[str, np.ndarray] = {}
        self._table: Any = None
        if self.spec not in TOY_GRIDS and Path(self.spec).suffix.lower() not in (".npz", ".npy"):
            raise UsageError(f"{owner}: grid={self.spec!r} must be one of {', '.join(TOY_GRIDS)} or a .npz / .npy file")
        if not self.reads_image_files:
            self._file()  # a missing or damaged file stops the run before any work

    @property
    def reads_image_files(self) -> bool:
        """True when the features are computed from the image files (the toy grids)."""
        return self.spec in TOY_GRIDS

    # ------------------------------------------------------------------ files
    def _file(self) -> Any:
        """The open source: an `NpzFile` or (memory-mapped array, {id: row}); checked through
        `vqa_harness_plugins.models.features.files` (one line naming the file and the image id or row)."""
        if self._table is None:
            path = check_array_file(self.spec, f"{self.owner}: grid feature file")
            if path.suffix.lower() == ".npz":
                table = open_npz(path)
                if not table.files:
                    raise DataError(f"{path}: no grid arrays (an empty archive)")
                self._table = table
            else:
                ids_path = ids_sidecar(path)
                ids = read_ids(ids_path, f"the image ids of {path.name}: a JSON list, one id per row")
                arr = load_npy(path, mmap=True)
                if arr.ndim not in (3, 4) or arr.shape[0] != len(ids) or 0 in arr.shape:
                    raise DataError(f"{path}: expected shape [N, R, D] or [N, H, W, D] with N = {len(ids)} "
                                    f"(the ids in {ids_path.name}), got {tuple(arr.shape)}")
                numeric(arr[:1], path, "grids", ndims=(arr.ndim,), finite=False)  # the dtype, without reading all
                self._table = (arr, {i: n for n, i in enumerate(ids)})
        return self._table

    def _from_file(self, image_id: str) -> np.ndarray:
        table = self._file()
        path = Path(self.spec)
        if isinstance(table, tuple):
            arr, rows = table
            where = f"row {rows[image_id]} (image id {image_id!r})"
            grid = arr[rows[image_id]]
        else:
            where = f"image id {image_id!r}"
            grid = npz_array(table, image_id, path, where)
        grid = np.asarray(numeric(grid, path, where, ndims=(2, 3)), dtype=np.float32)
        return grid.reshape(-1, grid.shape[-1]) if grid.ndim == 3 else grid

    def _known(self, image_id: str) -> bool:
        table = self._file()
        return image_id in (table[1] if isinstance(table, tuple) else table.files)

    # ------------------------------------------------------------------ encoding
    def check(self, items: Sequence[Example]) -> None:
        """DataError (count and first few) for images the source cannot encode."""
        if self.reads_image_files:

            count, first = missing_images([ex.image for ex in items])
            if count:
                raise DataError(f"{self.owner}: {count} image file(s) missing, e.g. {', '.join(first)}")
            return
        unknown = sorted({ex.image_id for ex in items if ex.image != BLANK_IMAGE and not self._known(ex.image_id)})
        if unknown:
            raise DataError(f"{self.spec}: {len(unknown)} unknown image id(s) (e.g. {', '.join(unknown[:5])})")

    def _key(self, ex: Example) -> str:
        if ex.image == BLANK_IMAGE:
            return BLANK_IMAGE
        return ex.image if self.reads_image_files else f"id:{ex.image_id}"

    def one(self, ex: Example) -> np.ndarray:
        """The grid of one example's image, float32 [R, D]."""
        key = self._key(ex)
        grid = self._memo.get(key)
        if grid is None:
            if self.spec == "toy-cells":
                grid = toy_cell_grid(ex.image)
            elif self.spec == "toy-patches":
                grid = toy_patch_grid(ex.image)
            elif key == BLANK_IMAGE:
                grid = np.zeros_like(self._from_file(next(iter(self._ids()))))
            else:
                grid = self._from_file(ex.image_id)
            self._memo[key] = grid
        return grid

    def _ids(self) -> list[str]:
        table = self._file()
        return list(table[1]) if isinstance(table, tuple) else list(table.files)

    def bank(self, items: Sequence[Example]) -> tuple[np.ndarray, np.ndarray]:
        """(grids of the distinct images [U, R, D], the row of each item's image [N])."""
        keys = [self._key(ex) for ex in items]
        where: dict[str, int] = {}
        first: list[Example] = []
        for ex, key in zip(items, keys):
            if key not in where:
                where[key] = len(first)
                first.append(ex)
        grids = [self.one(ex) for ex in first]
        shapes = {g.shape for g in grids}
        if len(shapes) > 1:
            raise DataError(f"{self.owner}: grids of different shapes {sorted(shapes)} in {self.spec}")
        bank = np.stack(grids) if grids else np.zeros((0, 0, 0), np.float32)
        return bank, np.array([where[k] for k in keys], dtype=np.int64)

    def example_digest(self, ex: Example) -> Any:
        """What training reads of an example's image, for weight-cache keys (pixels' hash
        for the toy grids; the image id for a file, whose stat is in `fingerprint`)."""
        if self.reads_image_files:

            return image_digest(ex.image)
        return ex.image_id

    def fingerprint(self) -> Any:
        """The source, and for a file its resolved path, size and mtime (a `.npy`'s id list too)."""
        if self.reads_image_files:
            return self.spec
        stamp = file_stamp(self.spec)
        if stamp is None:
            return self.spec
        return {"file": stamp["path"], "size": stamp["size"], "mtime_ns": stamp["mtime_ns"],
                **({"ids": stamp["ids"]} if "ids" in stamp else {})}
