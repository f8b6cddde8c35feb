"""Table layouts: how a probe's result rows become paper-style tables, as data (`Probe.layouts()`,
written with the probe's row tags into `runs/<run-id>/tables.json`: the leaderboard never
imports a plugin, so one built on any machine lays out the same tables).

A layout is a pivot of result rows: filter them, one table per value of `split_by`, one table
row per value of `rows`, one column per value of `columns`. A *field* is a ResultRow attribute
(`model`, `train`, `dataset`, `split`, `variant`, `metric`, ...) or a *tag* the probe attached
at run time with `ctx.tag(name, value)` (e.g. Goyal's train/test condition "UB", which needs
the probe's knowledge of the datasets).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Mapping

from .project import TABLES_SCHEMA_VERSION, schema_problem

__all__ = ["Layout", "FORMATS", "RowTags", "parse_tables"]

#: Cell formats: percentages with 2 decimals and the 95% interval, 1 decimal, a number with
#: 4 decimals (and interval), a count, or x100 with 1 decimal (scores printed as in e-ViL).
FORMATS = ("pct2", "pct1", "num4", "count", "x100")


@dataclass(frozen=True)
class Layout:
    """One paper-style table (or one per `split_by` value) over one probe's rows."""

    #: Unique within the probe (e.g. "table-1"); with the probe name it identifies the layout.
    id: str
    #: Title; `{field}` placeholders take the (labelled) `split_by` values.
    title: str
    #: One line: what the table measures and which direction is better.
    description: str = ""
    #: The paper table it reproduces, e.g. "Goyal et al. 2017, Table 1" ("" for none).
    reference: str = ""
    rows: tuple[str, ...] = ("model", "train")
    columns: tuple[str, ...] = ("metric",)
    split_by: tuple[str, ...] = ()
    #: Rows kept: metric names (empty: any), a metric prefix, and other exact field filters.
    metrics: tuple[str, ...] = ()
    metric_prefix: str = ""
    where: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: field -> {value: display label}; the mapping's order is the display order.
    labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: field -> column header of the row-key columns (e.g. {"metric": "answer type"}).
    names: Mapping[str, str] = field(default_factory=dict)
    #: Rows whose value does not depend on the model (field -> values, e.g. variant "gt"):
    #: their `rows` fields show `labels[field][value]` and runs of different models merge.
    model_free: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    fmt: str = "pct2"
    #: Header of an extra column holding the mean of the row's cells whose column key
    #: contains `mean_of` (e.g. Overall S_E = mean of every "S_E" column); "" for none.
    mean_column: str = ""
    mean_of: str = ""
    #: Also show the number of items (`n`) of the row's first cell.
    n_column: bool = False
    #: Keep only the k highest and k lowest table rows (by their first cell) per table.
    extremes: int = 0
    note: str = ""

    def __post_init__(self) -> None:
        if self.fmt not in FORMATS:
            raise ValueError(f"layout {self.id!r}: fmt must be one of {', '.join(FORMATS)}")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["labels"] = {k: [[a, b] for a, b in v.items()] for k, v in self.labels.items()}
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Layout":
        """Inverse of `to_json` (unknown keys are ignored: newer runs stay readable)."""
        kw = {k: v for k, v in data.items() if k in {f.name for f in fields(cls)}}
        kw.update({k: tuple(kw[k]) for k in ("rows", "columns", "split_by", "metrics") if k in kw})
        kw["where"] = {k: tuple(v) for k, v in (kw.get("where") or {}).items()}
        kw["model_free"] = {k: tuple(v) for k, v in (kw.get("model_free") or {}).items()}
        kw["names"] = dict(kw.get("names") or {})
        kw["labels"] = {k: dict((a, b) for a, b in v) for k, v in (kw.get("labels") or {}).items()}
        return cls(**kw)


@dataclass(frozen=True)
class RowTags:
    """Tags for every row of one (probe, dataset, split, train) group of one run."""

    probe: str
    dataset: str
    split: str
    train: str
    tags: Mapping[str, str]

    def key(self) -> tuple[str, str, str, str]:
        return (self.probe, self.dataset, self.split, self.train)

    def to_json(self) -> dict[str, Any]:
        return {"probe": self.probe, "dataset": self.dataset, "split": self.split, "train": self.train,
                "tags": dict(self.tags)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "RowTags":
        return cls(str(data["probe"]), str(data["dataset"]), str(data["split"]), str(data.get("train", "")),
                   {str(k): str(v) for k, v in dict(data.get("tags") or {}).items()})


def parse_tables(data: Any, where: str) -> tuple[dict[str, list[Layout]], list[RowTags], dict[str, list]]:
    """Layouts, row tags and headline metrics from a run's parsed `tables.json`; ValueError
    naming `where` and the entry at fault for a malformed file."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected a JSON object")
    problem = schema_problem(data, (TABLES_SCHEMA_VERSION,), where)
    if problem:
        raise ValueError(problem)
    layouts: dict[str, list[Layout]] = {}
    try:
        for probe, found in dict(data.get("layouts") or {}).items():
            layouts[str(probe)] = [Layout.from_json(item) for item in found]
        tags = [RowTags.from_json(item) for item in data.get("tags") or []]
        headlines = {str(p): [[str(m), str(v)] for m, v in found] for p, found in dict(data.get("headlines") or {}).items()}
    except (TypeError, KeyError, ValueError, AttributeError) as exc:
        raise ValueError(f"{where}: malformed layout or tag entry ({type(exc).__name__}: {exc})") from None
    return layouts, tags, headlines
