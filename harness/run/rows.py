"""What a probe's `run()` must return: a list of `ResultRow`s the leaderboard reads as written
(docs/plugins.md, "Probes and suites"). Checked before the rows are kept, so a probe's mistake fails that
probe with one line naming it, not the run with a traceback."""

from __future__ import annotations

import math
from typing import Iterable, Mapping

from ..errors import PluginError
from ..types import UNITS, ResultRow
from .context import TaskContext

__all__ = ["checked_rows"]


def checked_rows(rows: Iterable[ResultRow], ctx: TaskContext) -> list[ResultRow]:
    """A probe's rows (an iterable of them: not None, one row, a string), each checked to be what
    the leaderboard reads as written (harness.types), else a PluginError, so the probe fails with
    that line. A NaN is refused (a metric that cannot be computed is `ctx.metric_unavailable`), so
    is a second row for one (dataset, split, train, variant, metric) (it would silently replace
    the first), and so is a row for a dataset the probe did not read (`ctx.examples_of`)."""
    if isinstance(rows, (ResultRow, str, bytes, Mapping)) or not isinstance(rows, Iterable):
        hint = {type(None): " (return [] for no rows)", ResultRow: " (return [row])"}.get(type(rows), "")
        raise PluginError(f"run() returned {'None' if rows is None else 'a ' + type(rows).__name__}, "
                          f"not a list of ResultRow{hint}")
    out = list(rows)
    seen: set[tuple[str, ...]] = set()
    for row in out:
        if not isinstance(row, ResultRow):
            raise PluginError(f"run() returned a {type(row).__name__}, not a ResultRow (make rows with ctx.row)")
        where = f"metric {row.metric!r} (variant {row.variant!r})"
        for name in ("metric", "variant", "dataset"):
            if not isinstance(getattr(row, name), str):
                raise PluginError(f"{where}: {name} {getattr(row, name)!r} is not a string")
        if not row.metric:
            raise PluginError(f"{where}: the metric is empty")
        for name in ("value", "ci_low", "ci_high"):
            value = getattr(row, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise PluginError(f"{where}: {name} {value!r} is a {type(value).__name__}, not a float (ctx.row "
                                  "converts it)")
            if value is not None and not math.isfinite(value):
                raise PluginError(f"{where}: {name} {value!r} is not a finite number; report a metric that cannot "
                                  "be computed with ctx.metric_unavailable")
        if isinstance(row.n, bool) or not isinstance(row.n, int) or row.n < 0:
            raise PluginError(f"{where}: n {row.n!r} is not a non-negative integer")
        if row.higher_is_better is not None and not isinstance(row.higher_is_better, bool):
            raise PluginError(f"{where}: higher_is_better {row.higher_is_better!r} is not True, False or None")
        if row.unit not in UNITS:  # the leaderboard would drop the row
            raise PluginError(f"{where}: unit {row.unit!r} is not one of {', '.join(UNITS)}")
        if row.dataset != ctx.dataset and not any(key.startswith(f"{row.dataset}/") for key in ctx.reads):
            raise PluginError(f"{where}: a row for dataset {row.dataset!r}, which the probe did not read (the task's "
                              f"is {ctx.dataset!r}; rows for another dataset need ctx.examples_of)")
        key = (row.dataset, row.split, row.train, row.variant, row.metric)
        if key in seen:
            raise PluginError(f"two rows for {where} on {row.dataset!r}/{row.split}; give each its own variant or "
                              "metric")
        seen.add(key)
    return out
