"""Drawing leaderboard charts as SVG with matplotlib (the optional `plots` extra), one SVG per panel.

Each panel is a figure of its own, 3.8 in wide (about 365 px at 96 px per inch), so that the
page lays the panels of a chart side by side on a wide screen and one under the other on a
phone, always at their natural size: all text is at least 9.5 pt (12.7 px). Two styles:

- "points": categories along x (answer types, decoy sets: categories, not a scale), one
  marker per series and category with its 95% interval, the series side by side within a
  category, no line joining categories; a legend under the axes names the series (marker
  and colour). Model-free references (Random, the Eq. 2 rule) are gray, each with its own
  marker (a dash, a cross, ...);
- "bars": categories down the y axis (so the labels are the axis), one bar per category with
  its interval and its value printed at the bar's end; reference bars are gray.

Colours come from the Okabe-Ito palette (distinguishable with the common colour-vision
deficiencies), paired with distinct markers, so no series relies on colour alone. Every value
axis has a title with its unit, shared across the panels of a chart so that they compare.
The SVG is deterministic (fixed hash salt, no date), so a rebuild is byte-identical.
"""

from __future__ import annotations

import io
import textwrap

from .charttypes import Chart, Panel

__all__ = ["OKABE_ITO", "MAX_SERIES", "REFERENCE_MARKERS", "svgs_of", "tick_label", "FONT_PT", "WIDTH_IN"]

#: Okabe & Ito (2008), without the yellow that vanishes on white; black last.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999999")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: Markers and grays of model-free references, in turn: two references never look alike.
REFERENCE_MARKERS = (("_", "#555555"), ("x", "#8a8a8a"), ("|", "#555555"), ("+", "#8a8a8a"))
#: Series per panel; derivations split larger groups over several panels.
MAX_SERIES = 8
#: The smallest text (pt): 9.5 pt = 12.7 px at natural size.
FONT_PT = 9.5
#: Figure width (in): 374 px, so a panel fits a 420 px phone screen at natural size. The
#: figure keeps this size (labels are fitted inside it, not added around it).
WIDTH_IN = 3.9


def tick_label(text: str, width: int = 12) -> str:
    """A category label kept horizontal: longer than `width` characters, it is broken over
    lines at spaces, or after a '+' or a '/' ("IoU+QoU": "IoU+" above "QoU")."""
    if len(text) <= width:
        return text
    if " " in text:
        return "\n".join(textwrap.wrap(text, width, break_long_words=False))
    for sep in ("+", "/"):
        cut = text.find(sep, 1)
        if 0 < cut < len(text) - 1:
            return text[:cut + 1] + "\n" + text[cut + 1:]
    return text


def _points(ax, panel: Panel, limits: tuple[float, float]) -> None:
    k = len(panel.categories)
    n = len(panel.series)
    step = min(0.8 / max(n, 1), 0.22)
    colour_i = ref_i = 0
    for i, s in enumerate(panel.series):
        if s.label in panel.references:
            marker, colour = REFERENCE_MARKERS[ref_i % len(REFERENCE_MARKERS)]
            ref_i += 1
            size = 11
        else:
            marker, colour = MARKERS[colour_i % len(MARKERS)], OKABE_ITO[colour_i % len(OKABE_ITO)]
            colour_i += 1
            size = 6
        offset = (i - (n - 1) / 2) * step
        pts = [(x + offset, v, lo, hi) for x, (v, lo, hi) in enumerate(zip(s.values, s.low, s.high)) if v is not None]
        if not pts:
            continue
        err = [[max(0.0, p[1] - p[2]) if p[2] is not None else 0.0 for p in pts],
               [max(0.0, p[3] - p[1]) if p[3] is not None else 0.0 for p in pts]]
        ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=err if any(err[0]) or any(err[1]) else None,
                    color=colour, linestyle="none", marker=marker, markersize=size, markeredgewidth=1.6,
                    elinewidth=1.0, capsize=2, label=s.label)
    low, high = limits
    span = max(1e-9, high - low)
    ax.set_ylim(low - 0.06 * span, high + 0.06 * span)
    ax.set_xlim(-0.6, k - 0.4)
    ax.set_xticks(range(k))
    ax.set_xticklabels([tick_label(c, 9 if k > 3 else 12) for c in panel.categories])
    ax.set_ylabel(panel.axis)
    ax.grid(axis="y", color="#e3e3e3", linewidth=0.6)
    if n > 1 or panel.references:
        ax.figure.legend(loc="outside lower center", ncol=2, frameon=False, handletextpad=0.3, columnspacing=1.0)


def _bars(ax, panel: Panel, limits: tuple[float, float]) -> None:
    s = panel.series[0]
    k = len(panel.categories)
    ys = list(range(k))[::-1]  # first category on top
    colours = ["#8a8a8a" if c in panel.references else OKABE_ITO[0] for c in panel.categories]
    vals = [v if v is not None else 0.0 for v in s.values]
    err = [[max(0.0, v - lo) if v is not None and lo is not None else 0.0 for v, lo in zip(s.values, s.low)],
           [max(0.0, hi - v) if v is not None and hi is not None else 0.0 for v, hi in zip(s.values, s.high)]]
    ax.barh(ys, vals, height=0.62, color=colours, xerr=err if any(err[0]) or any(err[1]) else None,
            error_kw={"elinewidth": 1.0, "capsize": 2, "ecolor": "#333333"})
    low, top = limits
    for y, v, hi in zip(ys, s.values, s.high):
        if v is None:
            ax.text(0, y, " not measured", va="center", color="#555555")
        else:
            ax.text(max(v, hi if hi is not None else v) + 0.015 * (top - low), y, f"{v:.1f}", va="center")
    ax.set_xlim(low, top + 0.22 * (top - low))
    if low < 0:
        ax.axvline(0, color="#333333", linewidth=0.6)
    pad = max(0.0, (3 - k) * 0.45)  # thin bars when there are few categories
    ax.set_ylim(-0.6 - pad, k - 0.4 + pad)
    ax.set_yticks(ys)
    ax.set_yticklabels([tick_label(c, 16) for c in panel.categories])
    ax.set_xlabel(panel.axis)
    ax.grid(axis="x", color="#e3e3e3", linewidth=0.6)


def _shared_limits(chart: Chart) -> dict[str, tuple[float, float]]:
    """One value axis per quantity (the axis title) across a chart's panels, so panels compare."""
    out: dict[str, tuple[float, float]] = {}
    for p in chart.panels:
        vals = [v for s in p.series for v in (*s.values, *s.low, *s.high) if v is not None]
        if p.style == "bars":  # bars start at 0
            low, high = out.get(p.axis, (0.0, 1.0))
            out[p.axis] = (min([low, *vals]), max([high, *vals]))
        elif vals:
            low, high = out.get(p.axis, (min(vals), max(vals)))
            out[p.axis] = (min([low, *vals]), max([high, *vals]))
        else:
            out.setdefault(p.axis, (0.0, 100.0))
    return out


def _height(panel: Panel) -> float:
    if panel.style == "bars":
        lines = sum(tick_label(c, 16).count("\n") + 1 for c in panel.categories)
        return max(1.9, 1.0 + 0.24 * lines)
    rows = -(-len(panel.series) // 2) if len(panel.series) > 1 or panel.references else 0
    return 2.9 + 0.24 * rows


def svgs_of(chart: Chart) -> list[str]:
    """The chart's panels, each as an SVG document."""
    import matplotlib  # heavy: matplotlib takes about 0.2 s; only chart drawing needs it

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt  # heavy: imported on use
    from matplotlib import rc_context  # heavy: matplotlib, imported where it is used

    settings = {"svg.hashsalt": "vqa-harness", "svg.fonttype": "none", "font.size": FONT_PT,
                "axes.spines.top": False, "axes.spines.right": False, "axes.titlesize": FONT_PT + 1,
                "axes.labelsize": FONT_PT, "xtick.labelsize": FONT_PT, "ytick.labelsize": FONT_PT,
                "legend.fontsize": FONT_PT}
    limits = _shared_limits(chart)
    out = []
    with rc_context(settings):
        for i, panel in enumerate(chart.panels):
            fig, ax = plt.subplots(figsize=(WIDTH_IN, _height(panel)), layout="constrained")
            if panel.style == "bars":
                _bars(ax, panel, limits[panel.axis])
            else:
                _points(ax, panel, limits[panel.axis])
            # The title spans the figure (not only the axes, which tick labels narrow), wrapped to it.
            fig.suptitle("\n".join(textwrap.wrap(panel.title or chart.title, 46)), x=0.02, ha="left",
                         fontsize=FONT_PT + 1)
            ax.set_axisbelow(True)
            buf = io.StringIO()
            description = f"panel {i + 1}: {len(panel.series)} series"
            fig.savefig(buf, format="svg",
                        metadata={"Date": None, "Creator": None, "Title": f"{chart.title} ({panel.title})",
                                  "Description": description})
            plt.close(fig)
            out.append(buf.getvalue())
    return out
