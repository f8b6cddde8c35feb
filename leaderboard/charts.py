"""Leaderboard charts: small multiples derived from result rows, drawn as one SVG per panel.

Which charts exist is the probes' business: each declares its charts as data
(`Display.charts`, harness.display, read from the run folders), a pivot of its rows like a
table layout: a panel per value of `panels`, a category per value of `categories`, a series
per value of `series`, labels and order from `labels`, model-free references drawn gray.
The leaderboard knows no chart by name, so a third-party probe's chart is drawn like a
built-in one. A chart is drawn only when its rows exist; at most `MAX_SERIES` series per panel.
Each panel is its own SVG (`<suite>-<chart>-<k>.svg`) so that the page lays the panels out
side by side on a wide screen and one under the other on a phone. A chart is redrawn only
when its input rows changed: the SHA-256 of those rows (plus the renderer version) is stored
in `<suite>-<chart>.sha256`. The SVGs are deterministic, so a rebuild is byte-identical.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from harness.display import ChartSpec, Display
from harness.types import ResultRow

from .chartdraw import MAX_SERIES, svgs_of
from .charttypes import RENDER_VERSION, Chart, Panel, Series
from .collisions import cell_of, separating_field
from .files import write_public as atomic_write_text
from .labels import readable_spec
from .tabletypes import TagIndex, field_value

__all__ = ["RENDER_VERSION", "Chart", "Panel", "Series", "derive_charts", "chart_of", "write_charts", "panel_files"]


def _scale(r: ResultRow) -> float:
    # Fractions and [0, 1] scores are drawn as percentages, as the papers print them.
    return 100.0 if r.unit in ("fraction", "score") else 1.0


def _series(label: str, categories: Sequence[str], cells: Mapping[str, ResultRow]) -> Series:
    vals, lo, hi = [], [], []
    for c in categories:
        r = cells.get(c)
        s = _scale(r) if r is not None else 1.0
        vals.append(None if r is None else round(r.value * s, 6))
        lo.append(None if r is None or r.ci_low is None else round(r.ci_low * s, 6))
        hi.append(None if r is None or r.ci_high is None else round(r.ci_high * s, 6))
    return Series(label, tuple(vals), tuple(lo), tuple(hi))


def _order(values: Sequence[str], labels: Mapping[str, str] | None) -> list[str]:
    values = list(dict.fromkeys(values))
    known = [v for v in (labels or {}) if v in values]
    return known + sorted(v for v in values if v not in (labels or {}))


def _label(spec: ChartSpec, name: str, value: str) -> str:
    found = (spec.labels.get(name) or {}).get(value)
    if found is not None:
        return found
    return readable_spec(value) if name in ("train", "dataset", "data", "base", "task") else value


def _is_reference(spec: ChartSpec, row: ResultRow, tags: TagIndex | None) -> str:
    """The reference label of a model-free row ('' for a model's row)."""
    for name, values in spec.references.items():
        value = field_value(row, name, tags)
        if value in values:
            return _label(spec, name, value)
    return ""


def _selected(spec: ChartSpec, probe: str, rows: Sequence[ResultRow], tags: TagIndex | None) -> list[ResultRow]:
    probes = {probe, *spec.probes}
    used = [r for r in rows if r.probe in probes and (not spec.metrics or r.metric in spec.metrics)
            and all(field_value(r, k, tags) in allowed for k, allowed in spec.where.items())]
    for group in spec.alternatives:  # only the first group with rows is drawn
        if any(r.metric in group for r in used):
            drop = {m for g in spec.alternatives if g != group for m in g} - set(group)
            used = [r for r in used if r.metric not in drop]
            break
    return used


def chart_of(spec: ChartSpec, probe: str, rows: Sequence[ResultRow], tags: TagIndex | None = None,
             chart_id: str = "") -> Chart | None:
    """One declared chart over `rows` (one suite's rows), or None when none of its rows exist."""
    used = _selected(spec, probe, rows, tags)
    if not used:
        return None
    refs = {id(r): _is_reference(spec, r, tags) for r in used}
    spec = _separated(spec, [r for r in used if not refs[id(r)]], tags)
    # Panel keys: the panel fields; reference rows belong to every panel of the same other fields.
    free = [f for f in spec.panels if f != "model"]

    def key(r: ResultRow) -> tuple[str, ...]:
        return tuple(field_value(r, f, tags) for f in spec.panels)

    models = [r for r in used if not refs[id(r)]]
    if not models:
        return None
    keys = list(dict.fromkeys(key(r) for r in sorted(models, key=key)))
    varying = [i for i, f in enumerate(spec.panels) if f == "model" or len({k[i] for k in keys}) > 1]
    cat_field, series_field = spec.categories, spec.series
    panels = []
    for k in _ordered_keys(spec, keys):
        mine = [r for r in models if key(r) == k]
        other = dict(zip(spec.panels, k))
        shared = [r for r in used if refs[id(r)] and all(field_value(r, f, tags) == other[f] for f in free)]
        cats_raw = _order([field_value(r, cat_field, tags) for r in mine + shared if cat_field != "model" or
                           not refs[id(r)]], spec.labels.get(cat_field))
        cats = [_label(spec, cat_field, c) for c in cats_raw]
        groups: dict[str, dict[str, ResultRow]] = {}
        for r in sorted(mine, key=lambda r: r.run_id):  # a later run wins a cell
            s = _label(spec, series_field, field_value(r, series_field, tags)) if series_field else ""
            groups.setdefault(s, {})[_label(spec, cat_field, field_value(r, cat_field, tags))] = r
        names = _order(list(groups), None) if not series_field else \
            [_label(spec, series_field, v) for v in _order([field_value(r, series_field, tags) for r in mine],
                                                           spec.labels.get(series_field))]
        references: list[str] = []
        if spec.style == "bars" and cat_field == "model":  # references are bars of their own
            for r in shared:
                cats.append(refs[id(r)])
                references.append(refs[id(r)])
                groups.setdefault("", {})[refs[id(r)]] = r
        else:
            for r in sorted(shared, key=lambda r: r.run_id):
                groups.setdefault(refs[id(r)], {})[_label(spec, cat_field, field_value(r, cat_field, tags))] = r
                references.append(refs[id(r)])
        references = list(dict.fromkeys(references))
        series = [_series(n, cats, groups[n]) for n in names if n in groups]
        if spec.style == "points":
            series += [_series(n, cats, groups[n]) for n in references if n not in names]
        else:
            series = series[:1]
        title = " · ".join(_label(spec, spec.panels[i], k[i]) for i in varying if k[i])
        axis = spec.axis.format_map(_Labelled(spec, other))
        for n, part in enumerate(_chunks(series)):
            shown = title + (f" ({n + 1}/{-(-len(series) // MAX_SERIES)})" if len(series) > MAX_SERIES else "")
            panels.append(Panel(shown, axis, tuple(cats), part, style=spec.style, references=tuple(references)))
    return Chart(chart_id or spec.id, spec.title, tuple(panels), tuple(used))


def _separated(spec: ChartSpec, rows: Sequence[ResultRow], tags: TagIndex | None) -> ChartSpec:
    """`spec` with a panel field for each field (split, training data, dataset) that tells apart
    rows of one model it would draw as one point (collisions.py): each gets its own panel, and
    the tables and the reliance table show the same rows."""
    while True:
        fields = (*spec.panels, spec.categories, spec.series)
        name = separating_field(rows, cell_of(fields, tags), fields, tags)
        if name is None:
            return spec
        spec = replace(spec, panels=(*spec.panels, name))


class _Labelled(dict):
    """`str.format_map` mapping: a panel field's labelled value, '' for unknown fields."""

    def __init__(self, spec: ChartSpec, values: Mapping[str, str]) -> None:
        super().__init__()
        self.spec, self.values = spec, values

    def __missing__(self, name: str) -> str:
        return _label(self.spec, name, self.values.get(name, "")) if name in self.values else ""


def _ordered_keys(spec: ChartSpec, keys: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    def rank(name: str, value: str) -> tuple[int, str]:
        order = list(spec.labels.get(name) or {})
        return (order.index(value) if value in order else len(order), value)

    return sorted(keys, key=lambda k: tuple(rank(n, v) for n, v in zip(spec.panels, k)))


def _chunks(series: list[Series]) -> list[tuple[Series, ...]]:
    return [tuple(series[i:i + MAX_SERIES]) for i in range(0, len(series), MAX_SERIES)] or [()]


def derive_charts(rows: Sequence[ResultRow], displays: Mapping[str, Display], tags: TagIndex | None = None
                  ) -> list[Chart]:
    """The declared charts whose rows exist among `rows` (one suite's rows), in probe order;
    a chart id two probes declare is prefixed with the probe's name."""
    present = {r.probe for r in rows}
    declared = [(probe, spec) for probe, d in sorted(displays.items()) if probe in present for spec in d.charts]
    seen = [spec.id for _, spec in declared]
    out = []
    for probe, spec in declared:
        chart = chart_of(spec, probe, rows, tags, spec.id if seen.count(spec.id) == 1 else f"{probe}-{spec.id}")
        if chart is not None:
            out.append(chart)
    return out


def panel_files(chart: Chart, prefix: str) -> list[str]:
    """The file names of the chart's panels: `<prefix>-<chart>-<k>.svg`."""
    return [f"{prefix}-{chart.id}-{k + 1}.svg" for k in range(len(chart.panels))]


def write_charts(charts: Sequence[Chart], folder: Path, prefix: str) -> list[Path]:
    """Write each chart's panels and its `<prefix>-<id>.sha256`, redrawing only changed charts;
    returns the paths of every chart: its panels, then its stamp."""
    folder = Path(folder)
    written = []
    for chart in charts:
        svgs = [folder / name for name in panel_files(chart, prefix)]
        stamp = folder / f"{prefix}-{chart.id}.sha256"
        digest = chart.digest()
        current = stamp.read_text(encoding="utf-8").strip() if stamp.is_file() else ""
        if current != digest or not all(p.is_file() for p in svgs):
            for path, svg in zip(svgs, svgs_of(chart)):
                atomic_write_text(path, svg)
            atomic_write_text(stamp, digest + "\n")
        written += [*svgs, stamp]
    return written
