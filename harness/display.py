"""How the leaderboard shows a probe, as data (`Probe.display()`; each field is described in
docs/plugins.md, "How the leaderboard shows your probe is data too"). A run writes it, next
to the probe's table layouts (harness.layouts), into `runs/<run-id>/tables.json`; the
leaderboard reads that file and knows no probe or metric by name, so a third-party probe gets
the same names, docs link, image-reliance rows and charts as a built-in one. Fields are
ResultRow attributes, `data` ("dataset/split") or row tags (`ctx.tag`), as in harness.layouts.
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
    """Rows of one probe that tell whether a model uses the image (fields: docs/plugins.md);
    `id` is unique within the probe, `source` says where the number comes from, and `context`
    defaults to variant, train, data."""

    id: str
    label: str
    column: str = ""
    metrics: tuple[str, ...] = ()
    variant: str = ""
    reading: str = ""
    source: str = ""
    suites: str = ""
    role: str = "support"
    more: str = "higher"
    order: int = 100
    prefer: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
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
        return matches_metric(self.variant, variant)

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
    """A chart of one probe's rows (and of `probes`' rows), as a pivot like a layout (fields:
    docs/plugins.md). `id` is unique within the probe (the site's file is
    `<suite>-<id>-<panel>.svg`); `metrics` (empty: any) and `where` (exact) filter the rows; a
    field of `panels` with one value in every panel is not repeated in the titles."""

    id: str
    title: str
    axis: str = ""
    style: str = "points"
    metrics: tuple[str, ...] = ()
    where: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    alternatives: tuple[tuple[str, ...], ...] = ()
    panels: tuple[str, ...] = ("model",)
    categories: str = "variant"
    series: str = ""
    labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    references: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
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
        kw.update({k: tuple(kw[k]) for k in ("metrics", "panels", "probes") if k in kw})
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
