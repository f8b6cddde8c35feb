"""Rows whose probe's assumption the dataset does not meet, and the run's reason for it.

A probe may assume that a factor does not decide the answers (`Probe.assumes`: the
counterfactual probe's Color Minimal and noun kinds assume the exact colour or object named
does not); a dataset whose declared `answers_depend_on` names that factor does not meet it.
The run then keeps those rows without a better direction, tags the task
`assumptions_not_met` (the variants; `harness.inputs.ASSUMPTIONS_TAG`) and says why in
report.md ("<task> — <probe>: assumptions not met"). The leaderboard gives that reason
wherever it leaves such rows out of a ranking (the most / least robust of a shortened table)
instead of the generic "no better direction": `assumption_tags` reads the report's line back
into one tag per variant, `unmet_reason` finds it for a row.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from harness.inputs import ASSUMPTIONS_TAG
from harness.layouts import RowTags
from harness.types import ResultRow

from .tabletypes import TagIndex

__all__ = ["REASON_TAG", "assumption_tags", "unmet_reason"]

#: Tag prefix: `assumption:<variant>` -> why that variant's rows have no better direction.
REASON_TAG = "assumption:"

_HEADING = re.compile(r"^### (?P<task>.+?) — (?P<probe>\S+): assumptions not met\s*$")
_LINE = re.compile(r"dataset '(?P<dataset>[^']+)' declares that its answers depend on (?P<factors>.+?), "
                   r"but (?P<said>.+?): those rows are kept")
_PART = re.compile(r"^(?P<variants>.+?) assume\(s\) that (?P<what>.+) does not decide the answer$")


def _reasons(report_md: str) -> dict[tuple[str, str], dict[str, str]]:
    """(probe, dataset/split) -> {variant: reason} from report.md's "assumptions not met" sections."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    lines = report_md.splitlines()
    for i, line in enumerate(lines):
        head = _HEADING.match(line.strip())
        if head is None:
            continue
        text = html.unescape(next((x.strip() for x in lines[i + 1:] if x.strip()), ""))
        found = _LINE.search(text)
        if found is None:
            continue
        mine = out.setdefault((head.group("probe"), head.group("task").split(" [", 1)[0]), {})
        for part in found.group("said").split("; "):
            said = _PART.match(part)
            for variant in said.group("variants").split(", ") if said else ():
                mine[variant] = (f"dataset '{found.group('dataset')}' declares that its answers depend on "
                                 f"{said.group('what')}, which these rows assume does not decide the answer "
                                 f"(the run's report: \"{head.group('probe')}: assumptions not met\")")
    return out


def assumption_tags(report_md: str, have: Sequence[RowTags]) -> list[RowTags]:
    """Per task tagged `assumptions_not_met`, a tag `assumption:<variant>` per variant with the
    reason the run's report.md gives (a generic one when the report has none)."""
    reasons = _reasons(report_md)
    out = []
    for tag in have:
        variants = [v for v in tag.tags.get(ASSUMPTIONS_TAG, "").split(",") if v]
        if not variants:
            continue
        said = reasons.get((tag.probe, f"{tag.dataset}/{tag.split}"), {})
        out.append(RowTags(tag.probe, tag.dataset, tag.split, tag.train, {
            REASON_TAG + v: said.get(v) or ("the dataset declares that its answers depend on what these rows "
                                            f"assume does not decide the answer (tag {ASSUMPTIONS_TAG})")
            for v in variants}))
    return out


def unmet_reason(row: ResultRow, tags: TagIndex) -> str:
    """Why `row` has no better direction because the dataset does not meet its probe's
    assumption, or '' when it does."""
    return tags.get(row, REASON_TAG + row.variant) or ""
