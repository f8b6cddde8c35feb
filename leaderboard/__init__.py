"""Leaderboard: result rows from run directories -> markdown, CSV, JSON and a static site.

Reads only `results.jsonl` files (the standard schema, harness/types.py ResultRow) and, for
the run pages, each run's manifest, report and artifacts. Output is deterministic: the same
runs give byte-identical files (no timestamps, stable ordering, charts redrawn only when
their rows change). By default the latest run per (model, suite) is used. See
docs/leaderboard.md.
"""

from __future__ import annotations

from .build import build_leaderboard, build_tables, collect_rows
from .runreport import write_run_report

__all__ = ["build_leaderboard", "build_tables", "collect_rows", "write_run_report"]
