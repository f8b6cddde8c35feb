"""Leaderboard: result rows from run directories -> markdown, CSV and JSON tables.

Reads only `results.jsonl` files (the standard schema, harness/types.py ResultRow).
Output is deterministic: the same runs give byte-identical files (no timestamps, stable
ordering). By default the latest run per (model, suite) is used.
"""

from __future__ import annotations

from .build import build_leaderboard, collect_rows

__all__ = ["build_leaderboard", "collect_rows"]
