"""Drawing leaderboard charts as SVG with matplotlib (the optional `plots` extra).

Small multiples: a grid of panels (at most 3 per row), each with at most `MAX_SERIES`
series. Two panel styles:

- "lines": categories along x, one line per series, each line labelled directly at its
  right end (labels pushed apart so they never overlap), no legend;
- "hbar": categories down the y axis (so the labels are the axis), one bar per category
  with its interval and its value printed at the bar's end.

Colours come from the Okabe-Ito palette (distinguishable with the common colour-vision
deficiencies), paired with distinct markers and line styles, so no series relies on colour
alone. Every axis has a title with its unit. The SVG is deterministic (fixed hash salt, no
date), so a rebuild is byte-identical.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .charts import Chart, Panel

__all__ = ["OKABE_ITO", "MAX_SERIES", "svg_of", "spread_labels"]

#: Okabe & Ito (2008), without the yellow that vanishes on white; black last.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999999")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: Series per panel; derivations split larger groups over several panels.
MAX_SERIES = 8
#: Series drawn as references (dashed, gray): model-free baselines.
REFERENCE_STYLE = {"color": "#777777", "linestyle": (0, (4, 2)), "marker": ""}


def spread_labels(ys: list[float], gap: float, low: float, high: float) -> list[float]:
    """Label positions near `ys`, at least `gap` apart, kept within [low, high] when possible
    (the order of the labels follows the order of the values)."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    placed = [ys[i] for i in order]
    for k in range(1, len(placed)):
        placed[k] = max(placed[k], placed[k - 1] + gap)
    overflow = placed[-1] - high if placed else 0.0
    if overflow > 0:
        placed = [p - overflow for p in placed]
        for k in range(len(placed) - 2, -1, -1):
            placed[k] = min(placed[k], placed[k + 1] - gap)
    out = [0.0] * len(ys)
    for k, i in enumerate(order):
        out[i] = max(low - gap, placed[k])
    return out


def _lines(ax, panel: "Panel", references: frozenset[str], limits: tuple[float, float]) -> None:
    k = len(panel.categories)
    xs = list(range(k))
    ends: list[tuple[float, float, str, str]] = []  # (x, y, label, colour)
    lo_v, hi_v = limits
    span = max(1e-9, hi_v - lo_v)
    colour_i = 0
    for s in panel.series:
        ref = s.label in references
        if ref:
            style = REFERENCE_STYLE
        else:
            style = {"color": OKABE_ITO[colour_i % len(OKABE_ITO)], "linestyle": "-",
                     "marker": MARKERS[colour_i % len(MARKERS)]}
            colour_i += 1
        pts = [(x, v, lo, hi) for x, v, lo, hi in zip(xs, s.values, s.low, s.high) if v is not None]
        if not pts:
            continue
        px = [p[0] for p in pts]
        py = [p[1] for p in pts]
        err = [[max(0.0, p[1] - p[2]) if p[2] is not None else 0.0 for p in pts],
               [max(0.0, p[3] - p[1]) if p[3] is not None else 0.0 for p in pts]]
        ax.errorbar(px, py, yerr=err if any(err[0]) or any(err[1]) else None, color=style["color"],
                    linestyle=style["linestyle"], marker=style["marker"], markersize=4, linewidth=1.4,
                    elinewidth=0.8, capsize=2)
        ends.append((px[-1], py[-1], s.label, style["color"]))
    pad_lo, pad_hi = lo_v - 0.08 * span, hi_v + 0.08 * span
    ax.set_ylim(pad_lo, pad_hi)
    ys = spread_labels([e[1] for e in ends], 0.075 * (pad_hi - pad_lo), pad_lo, pad_hi)
    # Room on the right for the labels: a 7-pt character is about 0.055 in wide and the axes
    # about 3 in, so c inches of text need c * range / (3 - c) data units.
    inches = min(2.0, 0.055 * max((len(e[2]) for e in ends), default=0))
    room = inches * (k - 0.4) / (3.0 - inches)
    for (x, y, label, colour), ly in zip(ends, ys):
        ax.annotate(label, xy=(x, y), xytext=(k - 1 + 0.18, ly), textcoords="data", fontsize=7, color=colour,
                    va="center", ha="left", arrowprops={"arrowstyle": "-", "color": colour, "lw": 0.5,
                                                        "shrinkA": 0, "shrinkB": 2})
    ax.set_xlim(-0.3, k - 1 + 0.3 + room)
    ax.set_xticks(xs)
    ax.set_xticklabels(panel.categories, rotation=25 if k > 4 else 0, ha="right" if k > 4 else "center")
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    ax.grid(axis="y", color="#e3e3e3", linewidth=0.6)


def _hbar(ax, panel: "Panel", references: frozenset[str], limits: tuple[float, float], labels: bool) -> None:
    s = panel.series[0]
    k = len(panel.categories)
    ys = list(range(k))[::-1]  # first category on top
    colours = ["#777777" if c in references else OKABE_ITO[0] for c in panel.categories]
    vals = [v if v is not None else 0.0 for v in s.values]
    err = [[max(0.0, v - lo) if v is not None and lo is not None else 0.0 for v, lo in zip(s.values, s.low)],
           [max(0.0, hi - v) if v is not None and hi is not None else 0.0 for v, hi in zip(s.values, s.high)]]
    ax.barh(ys, vals, height=0.62, color=colours, xerr=err if any(err[0]) or any(err[1]) else None,
            error_kw={"elinewidth": 0.8, "capsize": 2, "ecolor": "#333333"})
    low, top = limits
    for y, v, hi in zip(ys, s.values, s.high):
        if v is None:
            ax.text(0, y, " not measured", va="center", fontsize=7, color="#777777")
        else:
            ax.text(max(v, hi if hi is not None else v) + 0.015 * (top - low), y, f"{v:.1f}", va="center", fontsize=7)
    ax.set_xlim(low, top + 0.16 * (top - low))
    if low < 0:
        ax.axvline(0, color="#333333", linewidth=0.6)
    pad = max(0.0, (3 - k) * 0.45)  # thin bars when there are few categories
    ax.set_ylim(-0.6 - pad, k - 0.4 + pad)
    ax.set_yticks(ys)
    ax.set_yticklabels(panel.categories if labels else [""] * k)
    ax.set_xlabel(panel.xlabel)
    if panel.ylabel:
        ax.set_ylabel(panel.ylabel)
    ax.grid(axis="x", color="#e3e3e3", linewidth=0.6)


def _shared_limits(chart: "Chart") -> dict[str, tuple[float, float]]:
    """One value axis per quantity (the axis title) across a chart's panels, so panels compare."""
    out: dict[str, tuple[float, float]] = {}
    for p in chart.panels:
        vals = [v for s in p.series for v in (*s.values, *s.low, *s.high) if v is not None]
        if p.style == "hbar":  # bars start at 0
            low, high = out.get(p.xlabel, (0.0, 1.0))
            out[p.xlabel] = (min([low, *vals]), max([high, *vals]))
        elif vals:
            low, high = out.get(p.ylabel, (min(vals), max(vals)))
            out[p.ylabel] = (min([low, *vals]), max([high, *vals]))
        else:
            out.setdefault(p.ylabel, (0.0, 100.0))
    return out


def svg_of(chart: "Chart") -> str:
    """The chart as an SVG document."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib import rc_context

    settings = {"svg.hashsalt": "vqa-harness", "svg.fonttype": "none", "font.size": 8,
                "axes.spines.top": False, "axes.spines.right": False, "axes.titlesize": 9,
                "axes.labelsize": 8}
    n = len(chart.panels)
    ncols = min(n, chart.columns)
    nrows = -(-n // ncols)
    hbar_rows = max((len(p.categories) for p in chart.panels if p.style == "hbar"), default=0)
    height = max(1.7, 0.9 + 0.2 * hbar_rows) if hbar_rows and all(p.style == "hbar" for p in chart.panels) else 2.6
    limits = _shared_limits(chart)
    with rc_context(settings):
        fig, axes = plt.subplots(nrows, ncols, figsize=(3.5 * ncols + 0.3, height * nrows + 0.5), squeeze=False)
        refs = frozenset(chart.references)
        for i, ax in enumerate(axes.flat):
            if i >= n:
                ax.set_visible(False)
                continue
            panel = chart.panels[i]
            if panel.style == "hbar":
                # Axis labels are not repeated when the panel on the left has the same categories.
                left = chart.panels[i - 1] if i % ncols else None
                _hbar(ax, panel, refs, limits[panel.xlabel], left is None or left.categories != panel.categories)
            else:
                _lines(ax, panel, refs, limits[panel.ylabel])
            ax.set_title(panel.title, fontsize=9, loc="left")
            ax.set_axisbelow(True)
        # The title is the figure's caption on the page (HTML text, readable at any width).
        fig.tight_layout()
        buf = io.StringIO()
        description = "; ".join(f"panel {i + 1}: {len(p.series)} series" for i, p in enumerate(chart.panels))
        fig.savefig(buf, format="svg", bbox_inches="tight",
                    metadata={"Date": None, "Creator": None, "Title": chart.title, "Description": description})
        plt.close(fig)
    return buf.getvalue()
