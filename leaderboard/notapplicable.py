"""Cells that are "not applicable" (with the reason) rather than absent.

A probe that decides a metric does not apply to a model (the counter-examples probe's Model
ranker for a model whose answer scores cannot depend on the image) says so with a row tag:
`ctx.tag(na_tag(metric, variant), reason)` (tag name `n/a:<metric>:<variant>`). A table
cell with no row whose table row has a sibling row of the same task (probe, dataset, split,
training data) carrying that tag shows "n/a", the reason on hover, and the reason once in
the table's note (docs/leaderboard.md).

Runs written before the tag existed say the same in report.md ("Metrics not computed",
reasons starting with "not applicable"): `report_tags` reads those lines back into tags,
matched to the run's rows by data, split and metric (a line names the task, not the probe
or the training data; where the lines of one data/split/metric disagree, none is used).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from harness.layouts import RowTags
from harness.types import ResultRow

__all__ = ["NA_TEXT", "na_tag", "na_note", "report_tags"]

#: What an inapplicable cell shows.
NA_TEXT = "n/a"


def na_tag(metric: str, variant: str) -> str:
    """The row tag name that says `metric` (variant `variant`) is not applicable."""
    return f"n/a:{metric}:{variant}"


def na_note(found: Mapping[str, Sequence[str]]) -> str:
    """The table note for {reason: [models]}: one sentence per reason."""
    parts = []
    for reason, models in found.items():
        who = ", ".join(dict.fromkeys(models))
        text = re.sub(r"^not applicable:\s*", "", reason.strip()).rstrip(".")
        parts.append(f"{NA_TEXT} ({who}): not applicable, {text}.")
    return " ".join(parts)


_LINE = re.compile(r"^- (?P<task>.+?): `(?P<metric>[^`]+?)(?: \((?P<variant>[^()`]*)\))?` — (?P<reason>.+)$")


def _plain(text: str) -> str:
    """Markdown-escaped report text back to plain text."""
    text = html.unescape(text)
    return re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~])", r"\1", text).strip()


def report_tags(report_md: str, rows: Sequence[ResultRow], have: Sequence[RowTags] = ()) -> list[RowTags]:
    """Tags for the "not applicable" lines of a run's report.md that its tables.json lacks."""
    part = re.split(r"(?m)^## ", report_md)
    body = next((p for p in part if p.startswith("Metrics not computed")), "")
    reasons: dict[tuple[str, str, str], set[str]] = {}
    for line in body.splitlines():
        m = _LINE.match(line.strip())
        if not m:
            continue
        reason = _plain(m.group("reason"))
        if not reason.lower().startswith("not applicable"):
            continue
        data = _plain(m.group("task")).split(" [", 1)[0]
        reasons.setdefault((data, m.group("metric"), m.group("variant") or ""), set()).add(reason)
    if not reasons:
        return []
    known = {t.key(): t.tags for t in have}
    out: dict[tuple[str, str, str, str], dict[str, str]] = {}
    for r in rows:
        for (data, metric, variant), found in reasons.items():
            if len(found) != 1 or data != f"{r.dataset}/{r.split}" or metric != r.metric:
                continue
            key = (r.probe, r.dataset, r.split, r.train)
            name = na_tag(metric, variant)
            if name not in known.get(key, {}):
                out.setdefault(key, {})[name] = next(iter(found))
    return [RowTags(*key, tags) for key, tags in sorted(out.items())]
