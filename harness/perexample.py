"""Per-example scores in one probe-agnostic format, for paired comparisons between runs
(paired bootstrap, McNemar need the per-question values behind a row's mean). The file and
its layout: docs/compare.md, "Where the per-question scores come from"."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .digest import digest
from .fileio import atomic_write_text, read_json_files
from .rundir import safe_name

__all__ = ["FORMAT", "PER_EXAMPLE_DIR", "ExampleScores", "write_scores", "read_scores"]

FORMAT = 1
#: Folder (under each probe's artifacts) holding the per-example score files.
PER_EXAMPLE_DIR = "per_example"


@dataclass(frozen=True)
class ExampleScores:
    """Per-item scores of one (probe, dataset, split, train, variant) of one run."""

    probe: str
    dataset: str
    split: str
    train: str
    variant: str
    ids: tuple[str, ...]
    scores: Mapping[str, tuple[float, ...]]
    path: str = ""

    def key(self, metric: str) -> tuple[str, str, str, str, str, str]:
        """The key of the result row these scores average to."""
        return (self.probe, self.dataset, self.split, self.train, self.variant, metric)


def write_scores(ctx: Any, ids: Sequence[str], scores: Mapping[str, Sequence[float]], *,
                 variant: str = "", dataset: str | None = None) -> Path:
    """Write the per-item `scores` (metric -> values aligned with `ids`) of the current task
    and probe of `ctx` (a `harness.api.ProbeContext`); returns the file written."""
    ids = [str(i) for i in ids]
    out: dict[str, list[float]] = {}
    for metric, values in scores.items():
        vals = [float(v) for v in values]
        if len(vals) != len(ids):
            raise ValueError(f"per-example scores of {metric!r}: {len(vals)} values for {len(ids)} ids")
        out[str(metric)] = vals
    data = dataset or ctx.dataset
    head = {"probe": ctx.probe, "dataset": data, "split": ctx.split, "train": ctx.train, "variant": variant}
    # The metric names are in the digest: two files of one variant may score different items.
    stem = safe_name(f"{data}-{ctx.split}-{variant or 'all'}")[:80] + "-" + digest({**head, "m": sorted(out)}, 8)
    path = ctx.artifact(f"{PER_EXAMPLE_DIR}/{stem}.json")
    atomic_write_text(path, json.dumps({"format": FORMAT, **head, "ids": ids, "scores": out},
                                       sort_keys=True, separators=(",", ":")) + "\n")
    return path


def _parse(data: Any, where: str) -> ExampleScores:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{where}: not a per-example score file (format {FORMAT})")
    for name in ("probe", "dataset", "split", "train", "variant"):
        if not isinstance(data.get(name), str):
            raise ValueError(f"{where}: field {name!r} must be a string")
    ids = data.get("ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise ValueError(f"{where}: field 'ids' must be a list of strings")
    if len(set(ids)) != len(ids):
        raise ValueError(f"{where}: field 'ids' repeats an id")
    scores = data.get("scores")
    if not isinstance(scores, dict):
        raise ValueError(f"{where}: field 'scores' must be an object")
    parsed: dict[str, tuple[float, ...]] = {}
    for metric, values in scores.items():
        ok = isinstance(values, list) and len(values) == len(ids) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)
        if not ok:
            raise ValueError(f"{where}: scores of {metric!r} must be {len(ids)} finite numbers")
        parsed[str(metric)] = tuple(float(v) for v in values)
    return ExampleScores(data["probe"], data["dataset"], data["split"], data["train"], data["variant"],
                         tuple(ids), parsed, where)


def read_scores(run_dir: Path) -> tuple[list[ExampleScores], list[str]]:
    """Every per-example score file of a run folder, and a problem line per unreadable one."""
    root = Path(run_dir) / "artifacts"
    if not root.is_dir():
        return [], []
    return read_json_files(sorted(p for p in root.rglob("*.json") if p.parent.name == PER_EXAMPLE_DIR), _parse)
