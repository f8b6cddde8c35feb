"""How the leaderboard shows a probe, as data: names, docs, image-reliance evidence, charts.

A probe declares it (`Probe.display()`), and a run writes it, next to the probe's table
layouts (harness.layouts), into `runs/<run-id>/tables.json`. The leaderboard reads that file
and knows no probe or metric by name, so a third-party probe gets the same treatment as a
built-in one: a readable name, a docs link, its rows on the image-reliance cards and in the
reliance table, and its charts.

- `Display.title`, `docs`, `metric_names`: the probe's readable name, where its docs are
  (`page.md#anchor` under the project's docs/, or a full URL), readable metric names
  (`"prefix*"` keys match metric prefixes).
- `Display.no_interval`: metric (or `"prefix*"`) -> why its rows have no interval (a
  corpus-level score); the tables and cards print that reason instead of a bare value.
- `Evidence`: rows that tell whether a model uses the image (a card line, a column of the
  reliance table); `role` "direct" (the image removed or swapped: the verdict reads these
  only), "support" (a reliance-table column) or "context" (on the cards only).
- `ChartSpec`: a chart as a pivot of rows, like a layout: a panel per value of `panels`, a
  category per value of `categories`, a series per value of `series`.
- `Degenerate`: when a metric's rows say nothing for one model (answer change exactly 0
  under every perturbation): the metrics that then lose their better direction, and why.

Fields are ResultRow attributes (`model`, `train`, `dataset`, `split`, `variant`, `metric`),
`data` ("dataset/split") or row tags (`ctx.tag`), as in harness.layouts.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Mapping

__all__ = ["Display", "Evidence", "ChartSpec", "Degenerate", "ROLES", "CHART_STYLES", "parse_displays",
           "matches_metric"]

#: Evidence roles: the verdict reads "direct" evidence; the reliance table shows "direct" and
#: "support"; the cards show all three.
ROLES = ("direct", "support", "context")
#: "points": categories along x, one marker (and interval) per series and category, no line;
#: "bars": categories down y, one bar per category (one series).
CHART_STYLES = ("points", "bars")


def matches_metric(pattern: str, metric: str) -> bool:
    """`pattern` is the metric id, or a prefix ending in "*"."""
    return metric.startswith(pattern[:-1]) if pattern.endswith("*") else metric == pattern


def _labels_in(data: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    return {str(k): {str(a): str(b) for a, b in v} for k, v in dict(data or {}).items()}


def _labels_out(labels: Mapping[str, Mapping[str, str]]) -> dict[str, list[list[str]]]:
    # Pairs, not objects: the order of a mapping is its display order.
    return {k: [[a, b] for a, b in v.items()] for k, v in labels.items()}


@dataclass(frozen=True)
class Evidence:
    """Rows of one probe that tell whether a model uses the image."""

    #: Unique within the probe.
    id: str
    #: The card line ("Accuracy drop, gray image") and the reliance-table header ("drop, gray image").
    label: str
    column: str = ""
    #: The metric names (the first present wins) and the variant (exact, or a prefix ending in "*").
    metrics: tuple[str, ...] = ()
    variant: str = ""
    #: How to read the number (one line), where it comes from, which suites measure it.
    reading: str = ""
    source: str = ""
    suites: str = ""
    role: str = "support"
    #: Which end says "uses the image more": "higher", "lower" or "" (no such end: no test).
    more: str = "higher"
    #: Position among every probe's evidence (cards, table columns).
    order: int = 100
    #: When a model has several rows of it, the one the reliance table shows: field -> values
    #: in order of preference (the card lists them all).
    prefer: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: What tells a model's rows apart on its card: field -> template with "{}" for the
    #: (labelled) value, in order; `labels` names the values. Default: variant, train, data.
    context: Mapping[str, str] = field(default_factory=dict)
    labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"evidence {self.id!r}: role must be one of {', '.join(ROLES)}")
        if self.more not in ("higher", "lower", ""):
            raise ValueError(f"evidence {self.id!r}: more must be 'higher', 'lower' or ''")
        if not self.metrics:
            raise ValueError(f"evidence {self.id!r}: give at least one metric")

    @property
    def direct(self) -> bool:
        return self.role == "direct"

    @property
    def header(self) -> str:
        return self.column or self.label

    def variant_ok(self, variant: str) -> bool:
        return variant.startswith(self.variant[:-1]) if self.variant.endswith("*") else variant == self.variant

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["prefer"] = {k: list(v) for k, v in self.prefer.items()}
        data["context"] = [[k, v] for k, v in self.context.items()]
        data["labels"] = _labels_out(self.labels)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Evidence":
        kw = {k: v for k, v in data.items() if k in {f.name for f in fields(cls)}}
        kw["metrics"] = tuple(kw.get("metrics") or ())
        kw["prefer"] = {str(k): tuple(v) for k, v in dict(kw.get("prefer") or {}).items()}
        kw["context"] = {str(k): str(v) for k, v in kw.get("context") or []}
        kw["labels"] = _labels_in(kw.get("labels") or {})
        return cls(**kw)


@dataclass(frozen=True)
class ChartSpec:
    """A chart of one probe's rows (and of `probes`' rows), as a pivot."""

    #: Unique within the probe (the site names the file `<suite>-<id>-<panel>.svg`).
    id: str
    #: The caption; `axis` the value axis title with its unit ("{field}" placeholders take the
    #: panel's labelled values, e.g. "{metric} (%)").
    title: str
    axis: str = ""
    style: str = "points"
    #: Rows kept: metric names (empty: any) and exact field filters.
    metrics: tuple[str, ...] = ()
    where: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Groups of metrics of which only the first present is drawn (e.g. S_E with SPICE, else
    #: without): other metrics are kept as they are.
    alternatives: tuple[tuple[str, ...], ...] = ()
    #: One panel per value of these fields (a field with one value in every panel is not
    #: repeated in the titles), one category per value of `categories`, one series per value
    #: of `series` ("": one series).
    panels: tuple[str, ...] = ("model",)
    categories: str = "variant"
    series: str = ""
    #: field -> {value: display label}; the mapping's order is the display order.
    labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: Model-free rows (field -> values): gray references in every panel of the same data.
    references: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Other probes whose rows the chart also draws (e.g. a model-free audit's references).
    probes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.style not in CHART_STYLES:
            raise ValueError(f"chart {self.id!r}: style must be one of {', '.join(CHART_STYLES)}")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["labels"] = _labels_out(self.labels)
        data["where"] = {k: list(v) for k, v in self.where.items()}
        data["references"] = {k: list(v) for k, v in self.references.items()}
        data["alternatives"] = [list(a) for a in self.alternatives]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ChartSpec":
        kw = {k: v for k, v in data.items() if k in {f.name for f in fields(cls)}}
        for key in ("metrics", "panels", "probes"):
            if key in kw:
                kw[key] = tuple(kw[key])
        kw["where"] = {str(k): tuple(v) for k, v in dict(kw.get("where") or {}).items()}
        kw["references"] = {str(k): tuple(v) for k, v in dict(kw.get("references") or {}).items()}
        kw["alternatives"] = tuple(tuple(a) for a in kw.get("alternatives") or ())
        kw["labels"] = _labels_in(kw.get("labels") or {})
        return cls(**kw)


@dataclass(frozen=True)
class Degenerate:
    """A model whose `metric` equals `value` on every variant of one task (at least
    `min_variants` of them) says nothing with `affects` (metric names or "prefix*"): those
    rows lose their better direction on the leaderboard (never bold, never "most robust",
    never "better" in `harness compare`), and `reason` says why ("{model}" and "{n}", the
    number of variants, are filled in)."""

    metric: str
    value: float
    affects: tuple[str, ...]
    reason: str
    min_variants: int = 2

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Degenerate":
        kw = {k: v for k, v in data.items() if k in {f.name for f in fields(cls)}}
        kw["affects"] = tuple(kw.get("affects") or ())
        kw["value"] = float(kw["value"])
        return cls(**kw)


@dataclass(frozen=True)
class Display:
    """Everything the leaderboard shows about a probe beyond its table layouts."""

    title: str = ""
    docs: str = ""
    metric_names: Mapping[str, str] = field(default_factory=dict)
    no_interval: Mapping[str, str] = field(default_factory=dict)
    evidence: tuple[Evidence, ...] = ()
    charts: tuple[ChartSpec, ...] = ()
    degenerate: tuple[Degenerate, ...] = ()

    def metric_name(self, metric: str) -> str:
        """The readable name of `metric` ('' when the probe names none); a name given for a
        prefix ("vqa_accuracy/answer_type=*") is followed by the rest of the id (": yes/no")."""
        if metric in self.metric_names:
            return self.metric_names[metric]
        for key, name in self.metric_names.items():
            if key.endswith("*") and matches_metric(key, metric):
                rest = metric[len(key) - 1:]
                return f"{name}: {rest}" if rest else name
        return ""

    def interval_reason(self, metric: str) -> str:
        """Why rows of `metric` have no interval ('' when the probe says nothing)."""
        return next((v for k, v in self.no_interval.items() if matches_metric(k, metric)), "")

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "docs": self.docs,
                "metric_names": [[k, v] for k, v in self.metric_names.items()],
                "no_interval": [[k, v] for k, v in self.no_interval.items()],
                "evidence": [e.to_json() for e in self.evidence], "charts": [c.to_json() for c in self.charts],
                "degenerate": [d.to_json() for d in self.degenerate]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Display":
        return cls(str(data.get("title") or ""), str(data.get("docs") or ""),
                   {str(k): str(v) for k, v in data.get("metric_names") or []},
                   {str(k): str(v) for k, v in data.get("no_interval") or []},
                   tuple(Evidence.from_json(e) for e in data.get("evidence") or []),
                   tuple(ChartSpec.from_json(c) for c in data.get("charts") or []),
                   tuple(Degenerate.from_json(d) for d in data.get("degenerate") or []))


def parse_displays(data: Any, where: str) -> dict[str, Display]:
    """probe -> Display from a run's parsed `tables.json` ({} for runs written before it);
    ValueError naming `where` and the probe at fault for a malformed entry."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected a JSON object")
    displays = data.get("displays") or {}
    if not isinstance(displays, dict):
        raise ValueError(f"{where}: field 'displays' must be an object (probe -> display)")
    out: dict[str, Display] = {}
    for probe, found in displays.items():
        try:
            out[str(probe)] = Display.from_json(found)
        except (TypeError, KeyError, ValueError, AttributeError) as exc:
            raise ValueError(f"{where}: malformed display of probe {probe!r} ({type(exc).__name__}: {exc})") from None
    return out
