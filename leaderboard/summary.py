"""What `harness run` prints when the leaderboard is written: the answer at a glance.

The "Does it use the image?" table across models (reliance.py, the same cells and marks as
index.html and index.md), in blocks that fit the terminal; for runs whose probes declare no
image-reliance evidence, the headline rows of each model's latest run instead (each probe's
`Probe.headline`, with intervals), as lm-evaluation-harness prints a task x metric x value
table at the end of a run. Then where the site and the markdown are.
"""

from __future__ import annotations

from pathlib import Path

from harness.report import headline_rows

from .labels import Names, readable_spec
from .reliance import RelianceTable
from .reliancerender import reliance_text
from .runs import Collected
from .tables import format_cell
from .texttable import render_text_table, terminal_width

__all__ = ["terminal_summary", "headline_text"]

#: Headline rows printed at most (all are in the run reports).
MAX_HEADLINES = 40


def headline_text(found: Collected, width: int) -> str:
    """The headline rows of the runs whose rows are shown, as a plain-text table."""
    shown = set(found.rows)  # a run shows only its rows no other run replaced (runchoice.py)
    names = Names(found.displays, found.layouts)
    body = []
    for info in sorted(found.runs, key=lambda i: i.run_id):
        for r in headline_rows([r for r in info.rows if r in shown], info.headlines):
            body.append([r.model, readable_spec(f"{r.dataset}/{r.split}"), readable_spec(r.train) if r.train else "-",
                         names.probe(r.probe),
                         names.metric(r.metric, r.probe) + (f" ({r.variant})" if r.variant else ""), format_cell(r)])
    if not body:
        return ""
    more = len(body) - MAX_HEADLINES
    text = "Headline numbers (fractions in %, [95% interval])\n\n"
    text += render_text_table(["model", "data", "trained on", "probe", "metric", "value [95% CI]"], body[:MAX_HEADLINES],
                              width=width, keep=1, header_width=30)
    return text + (f"... and {more} more rows in the run reports\n" if more > 0 else "")


def terminal_summary(found: Collected, reliance: RelianceTable | None, out: Path, width: int | None = None) -> str:
    """The closing text of `harness run`: the reliance table (else the headline rows) and the paths."""
    width = width or terminal_width()
    text = reliance_text(reliance, width) if reliance is not None else headline_text(found, width)
    where = Path(out) / "index.html"
    return text + f"\nLeaderboard: {where.resolve().as_uri()}\n  (markdown: {Path(out) / 'index.md'})\n"
