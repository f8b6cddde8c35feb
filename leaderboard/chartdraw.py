"""Drawing leaderboard charts as SVG with matplotlib (the optional `plots` extra).

Small multiples: a grid of panels (at most 3 per row; bar charts at most 2, so that a row
stays readable on a phone, where a chart is shown at its natural size in its own scroll box),
each with at most `MAX_SERIES` series. Two panel styles:

- "lines": categories along x, one line per series, each line labelled directly at its
  right end: lines that end on the same value share one label ("no image = no question =
  9.5"), labels are pushed apart so they never overlap and keep the order of the line ends
  (so leader lines never cross); no legend. Model-free references (Random, the Eq. 2 rule)
  are gray, each with its own dash pattern (dashed, dotted, ...), and labelled like the lines;
  category labels stay horizontal (long ones broken over two lines, smaller type);
- "hbar": categories down the y axis (so the labels are the axis), one bar per category
  with its interval and its value printed at the bar's end.

Colours come from the Okabe-Ito palette (distinguishable with the common colour-vision
deficiencies), paired with distinct markers and line styles, so no series relies on colour
alone. Every axis has a title with its unit. The SVG is deterministic (fixed hash salt, no
date), so a rebuild is byte-identical.
"""

from __future__ import annotations

import io

from .charttypes import Chart, Panel

__all__ = ["OKABE_ITO", "MAX_SERIES", "REFERENCE_STYLES", "svg_of", "spread_labels", "merge_ends", "tick_label"]

#: Okabe & Ito (2008), without the yellow that vanishes on white; black last.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999999")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: Series per panel; derivations split larger groups over several panels.
MAX_SERIES = 8
#: Series drawn as references (gray, no marker): model-free baselines, each with its own dash
#: pattern so that two references in one panel never look alike; other reference labels take
#: the patterns of REFERENCE_DASHES in turn.
REFERENCE_STYLES = {
    "Random": {"color": "#707070", "linestyle": (0, (5, 2)), "marker": ""},        # dashed
    "Eq. 2 rule": {"color": "#404040", "linestyle": (0, (1, 1.6)), "marker": ""},  # dotted
}
REFERENCE_DASHES = ((0, (5, 2)), (0, (1, 1.6)), (0, (6, 2, 1, 2)), (0, (2, 2)))
#: Ends closer than this (in data units: values are printed with one decimal) share a label.
SAME_END = 0.05


def spread_labels(ys: list[float], gap: float, low: float, high: float,
                  lines: list[int] | None = None) -> list[float]:
    """Label centres near `ys`, within [low, high], in the order of the values (the k-th
    lowest value gets the k-th lowest label, so leader lines from one x never cross), apart
    by at least `gap` per line of text (`lines[i]` lines for label i; all the gaps shrink
    alike when the labels do not fit in [low, high])."""
    n = len(ys)
    if not n:
        return []
    order = sorted(range(n), key=lambda i: (ys[i], i))
    size = [(lines or [1] * n)[i] for i in order]
    # A label of several lines keeps its extra lines inside [low, high] too.
    low, high = low + gap * (size[0] - 1) / 2, high - gap * (size[-1] - 1) / 2
    need = [gap * (size[k - 1] + size[k]) / 2 for k in range(1, n)]
    if sum(need) > high - low:
        need = [d * max(0.0, high - low) / sum(need) for d in need]
    placed = [min(max(ys[i], low), high) for i in order]
    for k in range(1, n):
        placed[k] = max(placed[k], placed[k - 1] + need[k - 1])
    if placed[-1] > high:
        placed[-1] = high
        for k in range(n - 2, -1, -1):
            placed[k] = min(placed[k], placed[k + 1] - need[k])
    out = [0.0] * n
    for k, i in enumerate(order):
        out[i] = placed[k]
    return out


def merge_ends(ends: list[tuple[float, float, str, str]]) -> list[tuple[float, float, str, str]]:
    """(x, y, label, colour) of line ends, with lines ending at the same point merged into one
    label that names them all and the value ("no image = no question = 9.5", dark gray)."""
    groups: list[list[tuple[float, float, str, str]]] = []
    for end in sorted(ends, key=lambda e: (e[0], e[1])):
        last = groups[-1][-1] if groups else None
        if last is not None and last[0] == end[0] and abs(end[1] - last[1]) < SAME_END:
            groups[-1].append(end)
        else:
            groups.append([end])
    out = []
    for g in groups:
        if len(g) == 1:
            out.append(g[0])
        else:
            out.append((g[0][0], g[0][1], _wrap(" = ".join(e[2] for e in g) + f" = {g[0][1]:.1f}"), "#333333"))
    return out


def _wrap(text: str, width: int = 20) -> str:
    """A merged label over several lines, broken before its ' = ' signs."""
    parts = text.split(" = ")
    lines = [parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + 3 + len(part) <= width:
            lines[-1] += " = " + part
        else:
            lines.append("= " + part)
    return "\n".join(lines)


def tick_label(text: str, width: int = 6) -> str:
    """A category label kept horizontal: longer than `width` characters, it is broken over two
    lines after a '+' or a '/', or at a space ("IoU+QoU": "IoU+" above "QoU")."""
    if len(text) <= width:
        return text
    for sep in ("+", "/", " "):
        cut = text.find(sep, 1)
        if 0 < cut < len(text) - 1:
            head = text[:cut + 1] if sep != " " else text[:cut]
            return head + "\n" + text[cut + 1:]
    return text


def _reference_style(label: str, references: tuple[str, ...]) -> dict:
    if label in REFERENCE_STYLES:
        return REFERENCE_STYLES[label]
    k = references.index(label) if label in references else 0
    return {"color": "#707070", "linestyle": REFERENCE_DASHES[k % len(REFERENCE_DASHES)], "marker": ""}


def _lines(ax, panel: Panel, references: tuple[str, ...], limits: tuple[float, float]) -> None:
    k = len(panel.categories)
    xs = list(range(k))
    ends: list[tuple[float, float, str, str]] = []  # (x, y, label, colour)
    lo_v, hi_v = limits
    span = max(1e-9, hi_v - lo_v)
    colour_i = 0
    for s in panel.series:
        ref = s.label in references
        if ref:
            style = _reference_style(s.label, references)
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
                    linestyle=style["linestyle"], marker=style["marker"], markersize=4,
                    linewidth=1.2 if ref else 1.4, elinewidth=0.8, capsize=2)
        ends.append((px[-1], py[-1], s.label, style["color"]))
    pad_lo, pad_hi = lo_v - 0.08 * span, hi_v + 0.08 * span
    ax.set_ylim(pad_lo, pad_hi)
    ends = merge_ends(ends)
    ys = spread_labels([e[1] for e in ends], 0.07 * (pad_hi - pad_lo), pad_lo, pad_hi,
                       [e[2].count("\n") + 1 for e in ends])
    # Room on the right for the labels: a 7-pt character is about 0.055 in wide and the axes
    # about 3 in, so c inches of text need c * range / (3 - c) data units.
    inches = min(1.5, 0.055 * max((len(line) for e in ends for line in e[2].split("\n")), default=0))
    room = inches * (k - 0.4) / (3.0 - inches)
    for (x, y, label, colour), ly in zip(ends, ys):
        ax.annotate(label, xy=(x, y), xytext=(k - 1 + 0.18, ly), textcoords="data", fontsize=7, color=colour, linespacing=1.0,
                    va="center", ha="left", arrowprops={"arrowstyle": "-", "color": colour, "lw": 0.5,
                                                        "shrinkA": 0, "shrinkB": 2})
    ax.set_xlim(-0.3, k - 1 + 0.3 + room)
    ax.set_xticks(xs)
    # Horizontal category labels; with many categories, smaller and broken over two lines.
    ax.set_xticklabels([tick_label(c) if k > 4 else c for c in panel.categories], rotation=0, ha="center",
                       fontsize=7 if k > 4 else 8)
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    ax.grid(axis="y", color="#e3e3e3", linewidth=0.6)


def _hbar(ax, panel: Panel, references: tuple[str, ...], limits: tuple[float, float], labels: bool) -> None:
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


def _shared_limits(chart: Chart) -> dict[str, tuple[float, float]]:
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


def svg_of(chart: Chart) -> str:
    """The chart as an SVG document."""
    import matplotlib  # heavy: matplotlib takes about 0.2 s; only chart drawing needs it

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt  # heavy: imported on use
    from matplotlib import rc_context  # heavy: matplotlib, imported where it is used

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
        refs = tuple(chart.references)
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
