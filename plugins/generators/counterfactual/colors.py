"""Named colors, their CIELAB coordinates and ΔE2000 distances (Stoikou 2023 §4.1.B).

The paper orders matplotlib colors by "color distance" in RGB; we measure it in a
perceptual space instead: sRGB (D65) -> CIE XYZ -> CIELAB, distance **CIEDE2000 (ΔE00)**
(Sharma, Wu & Dalal 2005). Color Maximal replaces a color by the farthest named color of
a pool, Color Minimal by the nearest one. Names that denote the very same RGB value
(gray/grey, aqua/cyan, fuchsia/magenta, ...) are aliases: ΔE = 0, never a replacement.
Ties are broken by name, so the choice is deterministic.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Iterable, Mapping

__all__ = [
    "named_colors",
    "srgb_to_lab",
    "delta_e2000",
    "ColorSpace",
    "BASIC_COLORS",
    "UNAMBIGUOUS_COLORS",
]

#: Berlin & Kay's 11 basic color terms (+ "grey"): the default "common" pool when a
#: dataset's own color vocabulary is not known.
BASIC_COLORS: tuple[str, ...] = (
    "black", "white", "red", "green", "yellow", "blue", "brown", "orange", "pink", "purple", "gray", "grey",
)
#: Color names that are colors whatever the tagger says ("Is it red or white?" -> NN,
#: "Is the ball brown?" -> VBN). Other named colors (orange, gold, snow, tomato, salmon,
#: ...) are everyday nouns too, so they count as colors only when tagged as adjectives.
UNAMBIGUOUS_COLORS: frozenset[str] = frozenset(
    {"black", "white", "red", "green", "yellow", "blue", "brown", "pink", "purple", "gray", "grey",
     "beige", "maroon", "turquoise", "magenta", "cyan", "violet", "teal", "navy", "crimson"}
)


@lru_cache(maxsize=1)
def named_colors() -> dict[str, str]:
    """matplotlib's CSS4 named colors: lower-case name -> '#RRGGBB'."""
    from matplotlib.colors import CSS4_COLORS  # heavy: matplotlib, only for its color table

    return {name.lower(): hex_.upper() for name, hex_ in CSS4_COLORS.items()}


def _linear(channel: float) -> float:
    # The sRGB transfer function (IEC 61966-2-1).
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def srgb_to_lab(hex_color: str) -> tuple[float, float, float]:
    """CIELAB (L*, a*, b*) of an sRGB hex color under the D65 white point."""
    h = hex_color.lstrip("#")
    r, g, b = (_linear(int(h[i : i + 2], 16) / 255.0) for i in (0, 2, 4))
    x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b
    xn, yn, zn = 0.95047, 1.0, 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x / xn), f(y / yn), f(z / zn)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float], k_l: float = 1.0) -> float:
    """CIEDE2000 color difference, as in Sharma et al. (2005): kC = kH = 1 and the lightness
    weight kL (1 by default; 2 is the CIE's setting for textiles, ΔE00(2:1:1), where
    differences of lightness count half)."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    c_bar7 = ((c1 + c2) / 2) ** 7
    g = 0.5 * (1 - math.sqrt(c_bar7 / (c_bar7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl = l2 - l1
    dc = c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    else:
        dh = h2p - h1p
        if dh > 180:
            dh -= 360
        elif dh < -180:
            dh += 360
    d_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar = (l1 + l2) / 2
    c_bar = (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        h_bar = (h1p + h2p + 360) / 2
    else:
        h_bar = (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30)) + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6)) - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    c_bar7 = c_bar**7
    r_c = 2 * math.sqrt(c_bar7 / (c_bar7 + 25**7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * c_bar
    s_h = 1 + 0.015 * c_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((dl / (k_l * s_l)) ** 2 + (dc / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (dc / s_c) * (d_h / s_h))


class ColorSpace:
    """Distances between named colors and the maximal/minimal choice within a pool."""

    def __init__(self, colors: Mapping[str, str] | None = None, *, k_l: float = 1.0) -> None:
        self.colors = dict(colors or named_colors())
        self.lab = {name: srgb_to_lab(hex_) for name, hex_ in self.colors.items()}
        self.k_l = k_l
        self._cache: dict[tuple[str, str], float] = {}

    def distance(self, a: str, b: str) -> float:
        """ΔE2000 between two named colors (symmetric, cached)."""
        key = (a, b) if a <= b else (b, a)
        if key not in self._cache:
            self._cache[key] = delta_e2000(self.lab[key[0]], self.lab[key[1]], self.k_l)
        return self._cache[key]

    def candidates(self, color: str, pool: Iterable[str], *, maximal: bool) -> list[tuple[float, str]]:
        """(ΔE, name) of the colors of `pool` that may replace `color`: every other named
        color that is no alias of it (ΔE > 0). Subclasses narrow this (color_names.py)."""
        scored = [(self.distance(color, c), c) for c in pool if c != color and c in self.colors]
        return [(d, c) for d, c in scored if d > 1e-9]

    def pool(self, names: Iterable[str]) -> tuple[str, ...]:
        """The named colors among `names` (lower-cased, sorted, unknown names dropped)."""
        return tuple(sorted({n.lower() for n in names} & set(self.colors)))

    def replacement(self, color: str, pool: Iterable[str], *, maximal: bool) -> tuple[str, float] | None:
        """(farthest or nearest color of `pool`, its ΔE2000), excluding `color` and its
        aliases (ΔE = 0); None when the pool has no other color."""
        scored = self.candidates(color, pool, maximal=maximal)
        if not scored:
            return None
        # max by distance, ties by name (alphabetically first wins) -> deterministic.
        if maximal:
            d, c = min(scored, key=lambda dc: (-dc[0], dc[1]))
        else:
            d, c = min(scored, key=lambda dc: (dc[0], dc[1]))
        return c, d
