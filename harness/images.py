"""Lazy image decoding shared by models (paths in examples, decoded only when needed)."""

from __future__ import annotations

import os
import sys
import warnings
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image  # the Pillow distribution (pyproject.toml dependencies)

from .errors import DataError
from .paths import env_megabytes
from .types import BLANK_IMAGE

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = ["load_image", "missing_images", "image_array", "decoded_cache_bytes", "BLANK_IMAGE"]


GRAY = (128, 128, 128)
#: Pillow's warning for an image over its pixel limit names no file: load_image says which, once.
warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)
_WARNED: set[str] = set()


def decoded_cache_bytes() -> int:
    """Bound of the per-process cache of decoded images: `$VQA_HARNESS_IMAGE_CACHE_MB`
    (default 512), read when used (a run checks it before any work: harness.run.plan)."""
    return env_megabytes("VQA_HARNESS_IMAGE_CACHE_MB", 512)


def load_image(path: str, size: tuple[int, int] | None = None) -> "Image.Image":
    """Decode `path` as RGB (resized when `size` is given); the blank sentinel gives gray.
    DataError naming the path when the file is missing or cannot be decoded (also an image
    over twice Pillow's `MAX_IMAGE_PIXELS`; up to that, one warning line naming it)."""
    if path == BLANK_IMAGE:
        return Image.new("RGB", size or (224, 224), GRAY)
    if not path:
        raise DataError("example has no image path (this model needs images)")
    try:
        with Image.open(path) as im:
            if Image.MAX_IMAGE_PIXELS and im.width * im.height > Image.MAX_IMAGE_PIXELS and path not in _WARNED:
                _WARNED.add(path)
                print(f"warning: image {path} has {im.width * im.height} pixels, over Pillow's decompression-bomb "
                      f"limit of {Image.MAX_IMAGE_PIXELS}; decoded anyway", file=sys.stderr)
            im = _to_rgb(im)
    except FileNotFoundError:
        raise DataError(f"image file not found: {path}") from None
    except Exception as exc:
        raise DataError(f"image {path} could not be decoded: {exc}") from None
    if size is not None and im.size != size:
        im = im.resize(size, Image.BILINEAR)
    return im


def _to_rgb(im: "Image.Image") -> "Image.Image":
    """RGB of any mode; 16-bit grayscale (Pillow's "I;16*", and "I" from a PNG or a PGM, which can
    only be 16-bit there) scaled to 8 bits: `convert("RGB")` clips it, so every level above 255 (all
    but the darkest) became white. Other "I" images (a 32-bit TIFF) are converted as they are."""
    if im.mode.startswith("I;16") or (im.mode == "I" and im.format in ("PNG", "PPM")):
        import numpy as np  # heavy: loaded only for such images

        levels = np.clip(np.asarray(im, dtype=np.float64) / 257.0, 0, 255).round().astype(np.uint8)
        return Image.fromarray(levels, "L").convert("RGB")
    return im.convert("RGB")


def missing_images(paths: list[str], limit: int = 5) -> tuple[int, list[str]]:
    """Count of image paths missing on disk and the first few, checked before a model runs."""
    missing = [p for p in dict.fromkeys(paths) if p and p != BLANK_IMAGE and not Path(p).is_file()]
    return len(missing), missing[:limit]


_DECODED: "OrderedDict[tuple, np.ndarray]" = OrderedDict()
_DECODED_BYTES = 0


def image_array(path: str, size: tuple[int, int]) -> "np.ndarray":
    """`load_image(path, size)` as a read-only uint8 array [H, W, 3], kept in a per-process
    least-recently-used cache bounded by `decoded_cache_bytes()` (inference over many batches,
    epochs and probe variants decodes each file once). Keyed by path, size and the file's
    modification time, so a rewritten file is decoded again."""
    import numpy as np  # heavy: numpy is loaded only where arrays are computed

    global _DECODED_BYTES
    try:
        stamp = 0 if path == BLANK_IMAGE or not path else os.stat(path).st_mtime_ns
    except FileNotFoundError:
        raise DataError(f"image file not found: {path}") from None
    key = (path, tuple(size), stamp)
    found = _DECODED.get(key)
    if found is not None:
        _DECODED.move_to_end(key)
        return found
    arr = np.asarray(load_image(path, tuple(size)), dtype=np.uint8)
    arr.setflags(write=False)
    _DECODED[key] = arr
    _DECODED_BYTES += arr.nbytes
    bound = decoded_cache_bytes()
    while _DECODED_BYTES > bound and len(_DECODED) > 1:
        _, old = _DECODED.popitem(last=False)
        _DECODED_BYTES -= old.nbytes
    return arr
