"""Readable names for what the leaderboard prints: dataset specs (harness.specs, shared with
report.md), directions, probe and metric names, doc links.

Pure string functions (no plugin knowledge beyond the spec syntax `name:key=value,.../split`);
probe and metric names come from the probes' own declarations in the run folders
(`Probe.display()`, harness.display), through `Names`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from harness.display import Display
from harness.layouts import Layout
from harness.specs import looks_like_spec, readable_spec

__all__ = ["readable_spec", "looks_like_spec", "direction_mark", "direction_text", "slug", "DOCS_URL_ENV",
           "Names"]

#: Where the docs are published (e.g. a repository's docs/ URL); else the site carries its own
#: copy of the pages it links to (docspages.py).
DOCS_URL_ENV = "VQA_HARNESS_DOCS_URL"

def direction_mark(higher_is_better: bool | None) -> str:
    """'↑' (higher is better), '↓' (lower is better) or '' (mixed / unknown)."""
    return "" if higher_is_better is None else ("↑" if higher_is_better else "↓")


def direction_text(marks: set[str]) -> str:
    """The table's one-line direction note from its columns' marks."""
    if marks == {"↑"}:
        return "↑ higher is better"
    if marks == {"↓"}:
        return "↓ lower is better"
    if marks:
        return "↑ / ↓ per column: higher / lower is better"
    return ""


def slug(heading: str) -> str:
    """The anchor GitHub gives a markdown heading ('## Probes and metrics' -> 'probes-and-metrics')."""
    text = heading.strip().lstrip("#").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


class Names:
    """Probe and metric names as the probes declare them (`Display`), else as their table
    layouts label them, else the ids themselves."""

    def __init__(self, displays: Mapping[str, Display] | None = None,
                 layouts: Mapping[str, Sequence[Layout]] | None = None) -> None:
        self.displays = dict(displays or {})
        self._layout_labels: dict[str, dict[str, str]] = {}
        for probe, found in (layouts or {}).items():
            for layout in found:
                for value, label in (layout.labels.get("metric") or {}).items():
                    self._layout_labels.setdefault(probe, {}).setdefault(value, label)

    def metric(self, metric: str, probe: str = "") -> str:
        """The probe's name for `metric`, else another probe's, else its layout label, else the id."""
        own = self.displays.get(probe)
        found = own.metric_name(metric) if own is not None else ""
        if not found:
            found = next((n for d in self.displays.values() for n in [d.metric_name(metric)] if n), "")
        return found or self._layout_labels.get(probe, {}).get(metric) or metric

    def probe(self, probe: str) -> str:
        """The probe's readable title, else its id."""
        found = self.displays.get(probe)
        return (found.title if found is not None else "") or probe

    def docs(self, probe: str) -> str:
        """Where the probe's docs are: 'page.md#anchor' (under docs/), a URL, or ''."""
        found = self.displays.get(probe)
        return found.docs if found is not None else ""

    def no_interval(self, metric: str, probe: str) -> str:
        """Why rows of `metric` have no interval, as the probe says ('' when it says nothing)."""
        found = self.displays.get(probe)
        return found.interval_reason(metric) if found is not None else ""
