"""Lazy image decoding shared by models (paths in examples, decoded only when needed)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import DataError
from .types import BLANK_IMAGE

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

__all__ = ["load_image", "missing_images", "BLANK_IMAGE"]

GRAY = (128, 128, 128)


def load_image(path: str, size: tuple[int, int] | None = None) -> "Image.Image":
    """Decode `path` as RGB (resized when `size` is given); the blank sentinel gives gray.

    Raises DataError naming the path when the file is missing or cannot be decoded.
    """
    from PIL import Image

    if path == BLANK_IMAGE:
        return Image.new("RGB", size or (224, 224), GRAY)
    if not path:
        raise DataError("example has no image path (this model needs images)")
    try:
        with Image.open(path) as im:
            im = im.convert("RGB")
    except FileNotFoundError:
        raise DataError(f"image file not found: {path}") from None
    except Exception as exc:
        raise DataError(f"image {path} could not be decoded: {exc}") from None
    if size is not None and im.size != size:
        im = im.resize(size, Image.BILINEAR)
    return im


@lru_cache(maxsize=64)
def _exists(path: str) -> bool:
    return Path(path).is_file()


def missing_images(paths: list[str], limit: int = 5) -> tuple[int, list[str]]:
    """Count of image paths missing on disk and the first few, checked before a model runs."""
    missing = [p for p in dict.fromkeys(paths) if p and p != BLANK_IMAGE and not Path(p).is_file()]
    return len(missing), missing[:limit]
