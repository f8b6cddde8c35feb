"""The leaderboard's chart records (a `Chart` of `Panel`s of `Series`), shared by the chart
builder (charts.py) and the renderer (chartdraw.py)."""

from __future__ import annotations

from dataclasses import dataclass

from harness.digest import digest
from harness.types import ResultRow

__all__ = ["Chart", "Panel", "Series", "RENDER_VERSION"]

#: Bump when the drawing code changes, so stored hashes no longer match and charts redraw.
RENDER_VERSION = "8"


@dataclass(frozen=True)
class Series:
    """One series: a value (or None) per category, with intervals."""

    label: str
    values: tuple[float | None, ...]
    low: tuple[float | None, ...]
    high: tuple[float | None, ...]


@dataclass(frozen=True)
class Panel:
    """One small multiple: `style` "points" (categories along x, a marker per series, no line
    across categories) or "bars" (categories down y, one series); `references` are the labels
    of model-free series or bars (drawn gray)."""

    title: str
    axis: str
    categories: tuple[str, ...]
    series: tuple[Series, ...]
    style: str = "points"
    references: tuple[str, ...] = ()


@dataclass(frozen=True)
class Chart:
    """A chart ready to draw, with the rows it was derived from (for the change hash)."""

    id: str
    title: str
    panels: tuple[Panel, ...]
    inputs: tuple[ResultRow, ...]

    def digest(self) -> str:
        """SHA-256 (full length) of the input rows, the drawn data and the renderer version."""
        # Run ids are left out: a re-run with the same numbers does not redraw (nor import matplotlib).
        rows = [{k: v for k, v in r.to_json().items() if k != "run_id"} for r in self.inputs]
        return digest({"version": RENDER_VERSION, "rows": rows, "panels": repr(self.panels), "title": self.title},
                      length=64)

    @property
    def max_series(self) -> int:
        return max((len(p.series) for p in self.panels), default=0)
