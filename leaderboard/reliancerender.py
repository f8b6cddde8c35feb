"""The reliance table (reliance.py) as markdown (index.md), HTML (index.html) and terminal text
(the end of `harness run`), with the same cells, marks and legend everywhere."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping

from harness.report import md_cell

from .html import esc, tag_list
from .reliance import Cell, RelianceTable, legend
from .texttable import render_text_table

__all__ = ["reliance_markdown", "reliance_html", "reliance_text", "TITLE", "INTRO"]

TITLE = "Does it use the image?"
INTRO = ("A row per model: what its runs measured of its use of the image, each value with its 95% interval and its "
         "paired test against the model with the most image use in the column (same questions).")


def _of(cell: Cell) -> str:
    """'(1 of 3)', '(train U, not compared)', both, or ''."""
    said = "; ".join(t for t in (f"{cell.apart}, not compared" if cell.apart else "",
                                 f"1 of {cell.of}" if cell.of > 1 else "") if t)
    return f"({said})" if said else ""


def _where(table: RelianceTable) -> str:
    said = [f"{c.evidence.header}: {d}" for c, d in zip(table.columns, table.data) if d]
    return "Measured on: " + "; ".join(said) + "." if said else ""


def reliance_markdown(table: RelianceTable) -> str:
    """The table as a markdown section (the top of index.md)."""
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    headers = ["model", "verdict"] + [c.evidence.header for c in table.columns]
    body = []
    for model, said, cells in zip(table.models, table.verdicts, table.cells):
        line = [md_cell(model), md_cell(said)]
        for cell in cells:
            if cell.row is None:
                line.append("not measured")
                continue
            value = f"**{cell.value()}**" if cell.bold else cell.value()
            line.append(" ".join(t for t in (value, cell.interval(), cell.sig(table.n_boot), _of(cell)) if t))
        body.append(line)
    text = f"## {TITLE}\n\n{INTRO}\n\n"
    text += tabulate(body, headers=[md_cell(h) for h in headers], tablefmt="github", disable_numparse=True) + "\n\n"
    where = _where(table)
    notes = ([where] if where else []) + legend(table)
    return text + "".join(f"- {md_cell(n)}\n" for n in notes)


def reliance_html(table: RelianceTable, model_links: Mapping[str, str] | None = None,
                  docs: Callable[[str], str | None] | None = None) -> str:
    """The table as HTML: marks are text in the cells, the legend is under the table; on a
    narrow screen each model's row becomes a block of labelled lines (site.css). A column's
    header links to its probe's docs (`docs`: probe -> link)."""
    links = model_links or {}
    sortable = ' tabindex="0" role="button" aria-sort="none"'  # site.js sorts by a header's column
    head = [f'<th scope="col"{sortable}>model</th>', f'<th scope="col"{sortable}>verdict</th>']
    for col, data in zip(table.columns, table.data):
        on = f'<small class="on">{esc(data)}</small>' if data else ""
        href = docs(col.probe) if docs is not None else None
        name = f'<a href="{esc(href)}">{esc(col.evidence.header)}</a>' if href else esc(col.evidence.header)
        head.append(f'<th scope="col" title="{esc(col.evidence.reading)}"{sortable}>{name}{on}</th>')
    body = []
    for model, said, cells in zip(table.models, table.verdicts, table.cells):
        name = f'<a href="{esc(links[model])}">{esc(model)}</a>' if model in links else esc(model)
        tds = [f'<th scope="row">{name}</th>',
               f'<td data-label="verdict" class="verdict v-{esc(said.split()[0])}">{esc(said)}</td>']
        for col, cell in zip(table.columns, cells):
            label = esc(col.evidence.header)
            if cell.row is None:
                tds.append(f'<td data-label="{label}" class="absent">not measured</td>')
                continue
            cls = "num best" if cell.bold else "num"
            sig = (f'<span class="sig sig-{esc(cell.mark)}">{esc(cell.sig(table.n_boot))}</span>'
                   if cell.mark else "")
            of = f'<small class="of">{esc(_of(cell))}</small>' if _of(cell) else ""
            # One span: on a phone the cell is a grid of its label and this span.
            # The value and its interval never break apart; the mark goes to a second line only
            # when the table would not fit the screen otherwise.
            tds.append(f'<td data-label="{label}" class="{cls}" data-sort="{esc(cell.value())}"><span class="cell">'
                       f'<span class="vci"><span class="val">{esc(cell.value())}</span><small class="ci">'
                       f"{esc(cell.interval())}</small></span> {sig}{of}</span></td>")
        body.append(f'<tr data-model="{esc(tag_list([model]))}">' + "".join(tds) + "</tr>")
    notes = "".join(f"<li>{esc(n)}</li>" for n in legend(table))  # the data are in the headers
    return (f'<div class="table-block reliance-block"><p class="explain">{esc(INTRO)}</p>'
            '<div class="scroll"><table class="lb sortable reliance" id="reliance-table" aria-label="Does it use the image?">'
            f"<thead><tr>{''.join(head)}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
            f'<ul class="legend">{notes}</ul></div>')


def reliance_text(table: RelianceTable, width: int) -> str:
    """The table for the terminal, in blocks that fit `width` columns."""
    headers = ["model", "verdict"] + [c.evidence.header for c in table.columns]
    rows = []
    for model, said, cells in zip(table.models, table.verdicts, table.cells):
        line = [model, "\n".join(textwrap.wrap(said, 14))]
        for cell in cells:
            if cell.row is None:
                line.append("-")
                continue
            first = f"{cell.value()}{'*' if cell.bold else ''} {cell.interval()}".strip()
            second = " ".join(t for t in (cell.sig(table.n_boot), _of(cell)) if t)
            line.append(first + (f"\n{second}" if second else ""))
        rows.append(line)
    text = f"{TITLE}\n\n" + render_text_table(headers, rows, width=width, keep=1, header_width=20)
    notes = [_where(table)] + legend(table)
    if any(c.bold for row in table.cells for c in row):
        notes.append("*: bold on the site (significantly above every other model of its column)")
    wrapped = [textwrap.fill(n, width, subsequent_indent="  ") for n in notes if n]
    return text + "\n" + "\n".join(wrapped) + "\n"

