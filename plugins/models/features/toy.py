"""Image features of the toy world (no download, no training).

- `toy_object_features` (`image_features=toy-objects`, the default): the toy analogue of
  the detector-based region features (object + attribute) real VQA models use. It reads
  pixels only: each cell of toyvqa's 3x3 layout is segmented from the plain background; an
  object's color is its most common RGB value snapped to the nearest toyvqa color, its size
  is its bounding-box side (small / large), and its noun is the reference glyph (drawn by
  toyvqa's own renderer, both sizes) whose 12x12 mask is nearest in Hamming distance.
  Features: presence of each (noun, color, size) and (noun, color) and a one-hot count
  (0-5) per noun, l2-normalized (288 values). A blanked image gives the zero vector.
- `toy_pixel_features` (`image_features=toy-pixels`): the image resized to 8x8 RGB pixels
  plus a 4x4x4 color histogram (256 values). Raw pixels: a one-hidden-layer MLP learns
  almost nothing from them (docs/decoys.md).

Both assume toyvqa's rendering (background, 3x3 grid, glyph scales); on other images they
are meaningless, so real data uses a precomputed feature file instead.
"""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar, Sequence

import numpy as np
from PIL import Image

from harness.api import FeatureExtractor
from harness.images import load_image
from harness.types import BLANK_IMAGE, Example
from vqa_harness_plugins.datasets.toyvqa.render import SCALE, render, rgb
from vqa_harness_plugins.datasets.toyvqa.world import (
    BACKGROUND,
    COLORS,
    GRID,
    NOUNS,
    SIZES,
    Obj,
    Scene,
)

__all__ = ["ToyObjectFeatures", "ToyPixelFeatures", "toy_object_features", "toy_pixel_features", "detect_objects",
           "OBJECT_FEATURES", "l2"]

MASK = 12
MAX_COUNT = 5


def l2(vec: np.ndarray) -> np.ndarray:
    """`vec` scaled to unit length (zeros stay zeros)."""
    n = float(np.linalg.norm(vec))
    return vec / n if n > 0 else vec


def toy_pixel_features(path: str) -> np.ndarray:
    """8x8 RGB pixels + 4x4x4 colour histogram of the image, l2-normalized (256 values)."""
    im = load_image(path)
    small = np.asarray(im.resize((8, 8)), dtype=np.float32).reshape(-1) / 255.0
    px = np.asarray(im, dtype=np.int64).reshape(-1, 3) // 64
    hist = np.bincount(px[:, 0] * 16 + px[:, 1] * 4 + px[:, 2], minlength=64).astype(np.float32)
    hist /= max(float(hist.sum()), 1.0)
    return l2(np.concatenate([small, hist]))


def _vocab():
    return NOUNS, tuple(COLORS), SIZES


def _mask_code(mask: np.ndarray) -> np.ndarray:
    """The bounding box of a boolean mask, resized to MASK x MASK (nearest), flattened."""
    ys, xs = np.nonzero(mask)
    crop = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    im = Image.fromarray(crop.astype(np.uint8) * 255).resize((MASK, MASK), Image.NEAREST)
    return np.asarray(im, dtype=np.uint8).reshape(-1) > 127


@lru_cache(maxsize=8)
def _references(size: int) -> dict[str, list[tuple[str, np.ndarray]]]:
    """Per size word, the (noun, mask code) of every glyph drawn by toyvqa's renderer."""
    nouns, _, sizes = _vocab()
    out: dict[str, list[tuple[str, np.ndarray]]] = {}
    for s in sizes:
        refs = []
        for noun in nouns:
            for jitter in (0.0, 0.5, 1.0):
                px = np.asarray(render(Scene((Obj(noun, "black", s, 4, jitter, jitter),)), size))
                refs.append((noun, _mask_code(np.any(px != BACKGROUND, axis=2))))
        out[s] = refs
    return out


def detect_objects(pixels: np.ndarray) -> list[tuple[str, str, str, int]]:
    """(noun, color, size, cell) for every object found in a toyvqa image (H x W x 3 uint8)."""
    _, colors, _ = _vocab()
    palette = np.array([rgb(c) for c in colors], dtype=np.int64)
    side = pixels.shape[0]
    cell = side / GRID
    refs = _references(side)
    threshold = cell * (SCALE["small"] + SCALE["large"]) / 2
    found = []
    for index in range(GRID * GRID):
        row, col = divmod(index, GRID)
        y0, y1 = int(row * cell), int((row + 1) * cell)
        x0, x1 = int(col * cell), int((col + 1) * cell)
        patch = pixels[y0:y1, x0:x1].reshape(-1, 3).astype(np.int64)
        fg = np.any(patch != np.array(BACKGROUND), axis=1)
        if fg.sum() < 4:
            continue
        values, counts = np.unique(patch[fg], axis=0, return_counts=True)
        color = colors[int(np.argmin(((palette - values[np.argmax(counts)]) ** 2).sum(axis=1)))]
        mask = fg.reshape(y1 - y0, x1 - x0)
        ys, xs = np.nonzero(mask)
        extent = max(ys.max() - ys.min(), xs.max() - xs.min()) + 1
        size = "large" if extent >= threshold else "small"
        code = _mask_code(mask)
        noun = min(refs[size], key=lambda r: int(np.count_nonzero(r[1] != code)))[0]
        found.append((noun, color, size, index))
    return found


def _layout() -> tuple[dict[tuple[str, str, str], int], dict[tuple[str, str], int], dict[str, int], int]:
    nouns, colors, sizes = _vocab()
    ncs = {(n, c, s): i for i, (n, c, s) in enumerate((n, c, s) for n in nouns for c in colors for s in sizes)}
    nc = {(n, c): len(ncs) + i for i, (n, c) in enumerate((n, c) for n in nouns for c in colors)}
    counts = {n: len(ncs) + len(nc) + i * (MAX_COUNT + 1) for i, n in enumerate(nouns)}
    return ncs, nc, counts, len(ncs) + len(nc) + len(nouns) * (MAX_COUNT + 1)


#: Width of `toy_object_features`.
OBJECT_FEATURES = _layout()[3]


def toy_object_features(path: str) -> np.ndarray:
    """Object-presence and per-noun count features of a toyvqa image (see the module doc)."""
    ncs, nc, counts, width = _layout()
    vec = np.zeros(width, dtype=np.float32)
    if path == BLANK_IMAGE:
        return vec
    objects = detect_objects(np.asarray(load_image(path).convert("RGB")))
    per_noun: dict[str, int] = {n: 0 for n in counts}
    for noun, color, size, _ in objects:
        vec[ncs[(noun, color, size)]] = 1.0
        vec[nc[(noun, color)]] = 1.0
        per_noun[noun] += 1
    for noun, k in per_noun.items():
        vec[counts[noun] + min(k, MAX_COUNT)] = 1.0
    return l2(vec)


class _CachedImageFeatures(FeatureExtractor):
    """Per-path memo around a function of one image path."""

    modality: ClassVar[str] = "image"

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self._memo: dict[str, np.ndarray] = {}

    def _one(self, path: str) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def encode(self, items: Sequence[Example]) -> np.ndarray:
        out = []
        for ex in items:
            vec = self._memo.get(ex.image)
            if vec is None:
                vec = self._memo[ex.image] = self._one(ex.image)
            out.append(vec)
        return np.stack(out) if out else np.zeros((0, 0), np.float32)


class ToyObjectFeatures(_CachedImageFeatures):
    name = "toy-objects"
    description = "objects, colors, sizes and counts read from toyvqa pixels (288 values)"

    def _one(self, path: str) -> np.ndarray:
        return toy_object_features(path)


class ToyPixelFeatures(_CachedImageFeatures):
    name = "toy-pixels"
    description = "8x8 RGB pixels + 4x4x4 color histogram (256 values; gray image when blanked)"

    def _one(self, path: str) -> np.ndarray:
        return toy_pixel_features(path)
