"""Plain-text tables for the terminal that fit its width (`harness run`'s closing table,
`harness compare`): columns that do not fit are wrapped into further blocks, each repeating
the first columns (the row labels), as pandas does with wide frames; headers wrap onto
several lines; a cell may hold several lines."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Sequence

__all__ = ["terminal_width", "render_text_table"]

GAP = "  "


def terminal_width(default: int = 100) -> int:
    """The terminal's width in columns ($COLUMNS, the terminal itself, else `default`)."""
    return max(40, shutil.get_terminal_size((default, 24)).columns)


def _lines(text: str) -> list[str]:
    return str(text).split("\n") if text else [""]


def _width(header: list[str], cells: Sequence[str]) -> int:
    return max([len(x) for x in header] + [len(x) for c in cells for x in _lines(c)] or [1])


def render_text_table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, width: int, keep: int = 1,
                      header_width: int = 22, right: Sequence[bool] = ()) -> str:
    """`rows` under `headers` in blocks no wider than `width` (when a single column allows);
    the first `keep` columns start every block. Headers wrap at `header_width` characters;
    `right[j]` right-aligns column j (numbers)."""
    n = len(headers)
    heads = [textwrap.wrap(h, header_width) or [""] for h in headers]
    widths = [_width(heads[j], [r[j] for r in rows]) for j in range(n)]
    fixed = sum(widths[:keep]) + len(GAP) * keep
    blocks: list[list[int]] = []
    current: list[int] = []
    used = fixed
    for j in range(keep, n):
        if current and used + widths[j] > width:
            blocks.append(current)
            current, used = [], fixed
        current.append(j)
        used += widths[j] + len(GAP)
    blocks.append(current)
    out = []
    for block in blocks:
        cols = list(range(keep)) + block
        out.append(_block(cols, heads, widths, rows, right))
    return "\n\n".join(out) + "\n"


def _block(cols: list[int], heads: list[list[str]], widths: list[int], rows: Sequence[Sequence[str]],
           right: Sequence[bool]) -> str:
    def line(parts: list[str]) -> str:
        return GAP.join(parts).rstrip()

    def cell(j: int, text: str) -> str:
        return text.rjust(widths[j]) if j < len(right) and right[j] else text.ljust(widths[j])

    depth = max(len(heads[j]) for j in cols)
    text = []
    for k in range(depth):  # headers bottom-aligned, as a spreadsheet shows them
        text.append(line([cell(j, (([""] * (depth - len(heads[j]))) + heads[j])[k]) for j in cols]))
    text.append(line(["-" * widths[j] for j in cols]))
    for row in rows:
        parts = [_lines(row[j]) for j in cols]
        for k in range(max(len(p) for p in parts)):
            text.append(line([cell(j, p[k] if k < len(p) else "") for j, p in zip(cols, parts)]))
    return "\n".join(text)
