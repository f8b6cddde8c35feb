"""Leaderboard: run folders -> markdown, CSV, JSON and a static site (docs/leaderboard.md).

Reads only run folders (`results.jsonl`, `manifest.json`, `tables.json`): see publish.py.
Registered as the `leaderboard` plugin (plugin.py).
"""

from __future__ import annotations

from .publisher import LeaderboardPublisher, build_leaderboard, tables_of
from .runreport import write_run_report
from .runs import collect, load_run

__all__ = ["LeaderboardPublisher", "build_leaderboard", "collect", "load_run", "tables_of", "write_run_report"]
