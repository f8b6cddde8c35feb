"""PIL drawing of toy scenes: one flat, aliased glyph per noun, exact matplotlib RGB colors.

Determinism: glyph geometry uses only IEEE arithmetic on hard-coded unit coordinates (no
libm trigonometry, whose last bits may differ between machines), and PIL's aliased
primitives, so pixels are identical everywhere for a given scene and size. PNG bytes are
identical for a given Pillow/zlib build (zlib implementations may compress differently).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw

from .world import BACKGROUND, COLORS, GRID, Obj, Scene

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image, ImageDraw

__all__ = ["render", "save_png", "rgb"]

#: Share of a grid cell a glyph spans, per size.
SCALE = {"small": 0.5, "large": 0.9}

# Unit-radius five-pointed star, point up (outer radius 1, inner 0.42), precomputed.
_STAR = (
    (0.0, -1.0), (0.2469, -0.3398), (0.9511, -0.309), (0.3994, 0.1298), (0.5878, 0.809),
    (0.0, 0.42), (-0.5878, 0.809), (-0.3994, 0.1298), (-0.9511, -0.309), (-0.2469, -0.3398),
)
# Bowl: a half-disc, flat side up (unit box [0, 1]^2), as a polygon (no pieslice trig).
_BOWL = (
    (0.0, 0.3), (1.0, 0.3), (0.97, 0.5), (0.88, 0.68), (0.75, 0.82), (0.6, 0.9),
    (0.4, 0.9), (0.25, 0.82), (0.12, 0.68), (0.03, 0.5),
)


def rgb(color: str) -> tuple[int, int, int]:
    """The exact RGB triple of a named color."""
    hexa = COLORS[color].lstrip("#")
    return int(hexa[0:2], 16), int(hexa[2:4], 16), int(hexa[4:6], 16)


def _box(obj: Obj, size: int) -> tuple[int, int, int]:
    """Top-left corner and side of the object's square, in pixels."""
    cell = size / GRID
    side = max(4, int(cell * SCALE[obj.size]))
    row, col = divmod(obj.cell, GRID)
    slack = cell - side
    x0 = int(col * cell + slack * obj.jx)
    y0 = int(row * cell + slack * obj.jy)
    return x0, y0, side


def _poly(x0: int, y0: int, side: int,
          unit: tuple[tuple[float, float], ...]) -> list[tuple[int, int]]:
    return [(x0 + round(u * (side - 1)), y0 + round(v * (side - 1))) for u, v in unit]


def _draw(draw: "ImageDraw.ImageDraw", obj: Obj, size: int) -> None:
    x0, y0, s = _box(obj, size)
    x1, y1 = x0 + s - 1, y0 + s - 1
    fill = rgb(obj.color)
    noun = obj.noun
    if noun == "ball":
        draw.ellipse((x0, y0, x1, y1), fill=fill)
    elif noun == "ring":
        draw.ellipse((x0, y0, x1, y1), outline=fill, width=max(2, s // 4))
    elif noun == "box":
        m = max(1, s // 10)
        draw.rectangle((x0 + m, y0 + m, x1 - m, y1 - m), fill=fill)
    elif noun == "pyramid":
        draw.polygon([(x0 + s // 2, y0), (x1, y1), (x0, y1)], fill=fill)
    elif noun == "star":
        half = (s - 1) / 2
        # The star spans -1..0.81 vertically: shift it down to centre it in its box.
        pts = [(round(x0 + half + u * half), round(y0 + half + (v + 0.095) * half))
               for u, v in _STAR]
        draw.polygon(pts, fill=fill)
    elif noun == "cross":
        arm = max(2, s // 3)
        a0 = x0 + (s - arm) // 2
        b0 = y0 + (s - arm) // 2
        draw.rectangle((a0, y0, a0 + arm - 1, y1), fill=fill)
        draw.rectangle((x0, b0, x1, b0 + arm - 1), fill=fill)
    elif noun == "bowl":
        draw.polygon(_poly(x0, y0, s, _BOWL), fill=fill)
    elif noun == "cup":
        body = max(3, (s * 7) // 10)
        top, bottom = y0 + s // 8, y1 - s // 8
        draw.polygon([(x0, top), (x0 + body - 1, top), (x0 + body - 1 - s // 10, bottom),
                      (x0 + s // 10, bottom)], fill=fill)
        hy0, hy1 = top + s // 8, top + (s * 5) // 10
        draw.rectangle((x0 + body - 2, hy0, x1, hy1), outline=fill, width=max(1, s // 8))
    else:  # pragma: no cover - the vocabulary is closed
        raise ValueError(f"no glyph for noun {noun!r}")


def render(scene: Scene, size: int) -> "Image.Image":
    """The scene as a `size` x `size` RGB image."""
    img = Image.new("RGB", (size, size), BACKGROUND)
    draw = ImageDraw.Draw(img)
    for obj in scene.objects:
        _draw(draw, obj, size)
    return img


def save_png(img: "Image.Image", path: Path) -> None:
    """Write a PNG with fixed encoder settings (no timestamps or metadata chunks)."""
    img.save(path, format="PNG", compress_level=6)
