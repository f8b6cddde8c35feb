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

A table row whose cells are different tasks (Goyal's train / test conditions as columns)
has no sibling of the missing cell's task: `other_task_reason` finds the run's task tagged
for that metric whose fields are the cell's (its table row, column and table).

A row of results.jsonl the leaderboard skipped as invalid (a NaN value, a bad field: its
problem line is in problems.txt) is not "no row" either: `invalid_tags` gives its task the
same kind of tag, with the problem as the reason, so the cell says "invalid" (`na_text`),
its hover text and the table note the problem.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from harness.layouts import Layout, RowTags
from harness.types import ResultRow

from .tabletypes import TagIndex, field_value

__all__ = ["NA_TEXT", "INVALID_TEXT", "na_tag", "na_text", "na_note", "report_tags", "invalid_tags",
           "other_task_reason"]

#: What an inapplicable cell shows.
NA_TEXT = "n/a"

#: What the cell of a row skipped as invalid shows; its reason starts with `_INVALID`.
INVALID_TEXT = "invalid"
_INVALID = "skipped as invalid: "


def na_tag(metric: str, variant: str) -> str:
    """The row tag name that says `metric` (variant `variant`) is not applicable."""
    return f"n/a:{metric}:{variant}"


def na_text(reason: str) -> str:
    """What a cell without a row but with `reason` shows: "invalid" or "n/a"."""
    return INVALID_TEXT if reason.startswith(_INVALID) else NA_TEXT


def na_note(found: Mapping[str, Sequence[str]]) -> str:
    """The table note for {reason: [models]}: one sentence per reason."""
    parts = []
    for reason, models in found.items():
        who = ", ".join(dict.fromkeys(models))
        if reason.startswith(_INVALID):
            parts.append(f"{INVALID_TEXT} ({who}): the row was {reason.rstrip('.')} (problems.txt).")
            continue
        text = re.sub(r"^not applicable:\s*", "", reason.strip()).rstrip(".")
        parts.append(f"{NA_TEXT} ({who}): not applicable, {text}.")
    return " ".join(parts)


_IDENTITY = ("model", "suite", "dataset", "split", "probe", "metric")


def invalid_tags(skipped: Sequence[tuple[object, str]], have: Sequence[RowTags] = ()) -> list[RowTags]:
    """Tags for rows skipped as invalid, given as (the line's JSON, its problem line): the
    cell of a line that still names its model, task and metric gets its problem as reason,
    never over a tag the run has."""
    known = {t.key(): t.tags for t in have}
    out: dict[tuple[str, str, str, str], dict[str, str]] = {}
    for data, problem in skipped:
        if not isinstance(data, dict) or not all(isinstance(data.get(k), str) and data[k] for k in _IDENTITY) \
                or not all(isinstance(data.get(k, ""), str) for k in ("variant", "train")):
            continue
        key = (data["probe"], data["dataset"], data["split"], data.get("train", ""))
        name = na_tag(data["metric"], data.get("variant", ""))
        if name not in known.get(key, {}):
            out.setdefault(key, {}).setdefault(name, _INVALID + problem)
    return [RowTags(*key, tags) for key, tags in sorted(out.items())]


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


def other_task_reason(layout: Layout, tags: TagIndex, sibling: ResultRow, metric: str, variant: str,
                      cell: Mapping[str, str]) -> str:
    """The reason tagged for `metric` (`variant`) on another task of `sibling`'s run and probe
    whose fields are the cell's (`cell`: its row, column and table fields), or ''."""
    for dataset, split, train, reason in tags.tasks_with(sibling.run_id, sibling.probe, na_tag(metric, variant)):
        mine = replace(sibling, dataset=dataset, split=split, train=train, metric=metric, variant=variant)
        if all(field_value(mine, f, tags) == v for f, v in cell.items()) and \
                all(field_value(mine, f, tags) in allowed for f, allowed in layout.where.items()):
            return reason
    return ""
