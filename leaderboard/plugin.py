"""The leaderboard as a plugin: the `leaderboard` publisher, `harness report` and `harness compare`.

Registered through the same entry-point group as every other plugin; the core calls it
through the publisher registry and never imports this package.
"""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .commands import compare, report
from .publisher import LeaderboardPublisher


@hookimpl
def register_publishers(register) -> None:
    """Register the leaderboard publisher."""
    register(LeaderboardPublisher)


@hookimpl
def register_commands(register) -> None:
    """Register `harness report` and `harness compare`."""
    register(report)
    register(compare)
