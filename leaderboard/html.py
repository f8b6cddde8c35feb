"""HTML building blocks shared by the site and the run reports: page shell, tables, markdown.

Pages are self-contained: the stylesheet and script (site.css, site.js next to this file)
are inlined, nothing is fetched from a CDN, and no web font is used, so a page works opened
from disk (file://) or served by any static server.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from urllib.parse import quote

from harness.fileio import NAME_BYTES

from .labels import slug
from .paired import MIN_PAIRED
from .tables import Table

__all__ = ["esc", "file_url", "tag_list", "inline_markdown", "markdown_to_html", "page", "sort_key", "split_ci", "table_head", "table_html"]

#: The one-line explanation of a report table that no paragraph introduces.
REPORT_TABLE_NOTE = "A table of this section of the run's report, as the probe printed it (values as written there)."

_HERE = Path(__file__).resolve().parent
_CI = re.compile(r"^(?P<value>[-+]?\d+(?:\.\d+)?)\s*(?P<ci>(?:\[[^\]]*\]|±\s*\S+))\s*$")
_NUM = re.compile(r"^[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?%?$", re.IGNORECASE)


def esc(text: object) -> str:
    """HTML-escape any value (quotes included, for attributes)."""
    return html.escape(str(text), quote=True)


def file_url(path: str) -> str:
    """A file's path (relative to the page, '/'-separated, or absolute) as the URL an href or
    src holds: a folder named `runs#2`, `50%` or `a?b` is percent-encoded, so the link still
    reaches the file (a raw '#' starts a fragment, '?' a query, '%' an escape); spaces and
    non-ASCII letters are encoded too, as a browser would. A name Python could not decode (an
    ASCII locale) is encoded as its bytes, as the pages themselves are written
    (`fileio.NAME_BYTES`). Still to be passed through `esc`."""
    return quote(path.encode("utf-8", NAME_BYTES), safe="/")


def tag_list(names: Iterable[str]) -> str:
    """Names as one data-model / data-dataset attribute value: joined by '|', each with '%' and
    '|' percent-encoded (a model spec may hold a '|': `peek:note=a|b`); site.js splits on '|'
    and decodes each part."""
    return "|".join(str(n).replace("%", "%25").replace("|", "%7C") for n in names)


@cache
def _asset(name: str) -> str:
    return (_HERE / name).read_text(encoding="utf-8")


def page(title: str, body: str, *, script: bool = True) -> str:
    """A complete HTML document with the inlined stylesheet (and script)."""
    js = f"<script>\n{_asset('site.js')}</script>\n" if script else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        # An empty icon: browsers would otherwise request /favicon.ico (a 404 on static servers).
        "<link rel=\"icon\" href=\"data:,\">\n"
        f"<title>{esc(title)}</title>\n<style>\n{_asset('site.css')}</style>\n</head>\n"
        f"<body>\n{body}\n{js}</body>\n</html>\n"
    )


def split_ci(text: str) -> tuple[str, str]:
    """'52.90 [50.10, 55.70]' -> ('52.90', '[50.10, 55.70]'); ('x', '') without an interval."""
    m = _CI.match(text.strip())
    if m:
        return m.group("value"), m.group("ci")
    return text, ""


def sort_key(text: str) -> str:
    """The numeric sort key of a cell ('' when the cell is not a number)."""
    value, _ = split_ci(text)
    value = value.strip().rstrip("%")
    return value if _NUM.match(value) else ""


def _cell(text: str, tag: str = "td", href: str | None = None, mark: tuple[str, str] = ("", ""),
          hint: str = "") -> str:
    if href is not None:
        return f'<{tag}><a href="{esc(href)}">{esc(text)}</a></{tag}>'
    if hint:  # no number: why (e.g. "n/a" and the reason the metric does not apply)
        return f'<{tag} class="na" title="{esc(hint)}">{esc(text)}</{tag}>'
    value, ci = split_ci(text)
    key = sort_key(text)
    attrs = f' data-sort="{esc(key)}"' if key else ""
    kind, why = mark
    cls = ["num"] if key else []
    sig = ""
    if kind == "best":
        cls.append("best")
    elif kind == "same":
        sig = f'<span class="sig" title="{esc(why)}">≈</span>'
    elif kind == "untested":  # too few questions in common with the best: no verdict
        sig = f'<span class="sig" title="{esc(why)}">·</span>'
    if kind:
        attrs += f' data-sig="{esc(kind)}"'
    if ci:
        # The interval is both in small type and in the hover title.
        title = f"95% CI {ci}" + (f"; {why}" if why else "")
        return (f'<{tag}{attrs} class="{" ".join(cls)}" title="{esc(title)}">{esc(value)}{sig}'
                f'<small class="ci">{esc(ci)}</small></{tag}>')
    title = f' title="{esc(why)}"' if why else ""
    cls_attr = f' class="{" ".join(cls)}"' if cls else ""
    return f"<{tag}{attrs}{cls_attr}{title}>{esc(text)}{sig}</{tag}>"


def _matches(text: str, names: Iterable[str]) -> list[str]:
    low = text.lower()
    return sorted({n for n in names if n and (n.lower() == low or n.lower() in low)})


def table_head(table: Table, docs: Callable[[str], str | None] | None = None) -> str:
    """Title, the spec in small type, and the one line saying what the table measures, which
    paper table it reproduces (linked to the docs) and which direction is better."""
    parts = []
    if table.title:
        parts.append(f'<h3 class="table-title">{esc(table.title)}</h3>')
    if table.spec:
        parts.append(f'<div class="spec"><code>{esc(table.spec)}</code></div>')
    line = table.explanation
    href = docs(table.probe) if docs is not None and table.probe else None
    if line or table.reference:
        ref = ""
        if table.reference:
            ref = (f' <span class="ref">Reproduces: <a href="{esc(href)}">{esc(table.reference)}</a></span>' if href
                   else f' <span class="ref">Reproduces: {esc(table.reference)}</span>')
        elif href:  # the probe's docs (its own declaration), even without a paper table
            ref = f' <span class="ref"><a href="{esc(href)}">Docs</a></span>'
        parts.append(f'<p class="explain">{esc(line)}{ref}</p>')
    return "".join(parts)


def table_html(table: Table, *, models: Sequence[str] = (), datasets: Sequence[str] = (),
               table_id: str = "", links: Mapping[str, str] | None = None,
               docs: Callable[[str], str | None] | None = None) -> str:
    """A sortable table in its own horizontal scroll container, under its title and
    explanation; rows and columns carry data-model / data-dataset tags for filters.

    A row is tagged with the models named (any case) by one of its cells; rows and header
    columns with the datasets their text mentions, the whole table with every dataset it
    mentions (title and spec included). Untagged rows (Random, GT) always show.
    A cell whose text is a key of `links` links to its value (run id -> run report page).
    `table.marks` (significance against the best of a column) mark cells: bold for the
    best, "≈" for not significantly different from it, "·" for not tested (too few questions
    in common with it).
    """
    table = table.compact()
    links = links or {}
    head = []
    # The whole table is tagged with every dataset it mentions (a paper table names its data
    # once, in its title and spec, not in its rows): the dataset filter hides it as a whole.
    block = set(_matches(" ".join([table.title, table.spec, table.shared]), datasets))
    arrows = tuple(table.directions) + ("",) * (len(table.headers) - len(table.directions))
    for h, arrow in zip(table.headers, arrows):
        ds = _matches(h, datasets)
        block.update(ds)
        attr = f' data-dataset="{esc(tag_list(ds))}"' if ds else ""
        label = esc(h) + (f' <span class="dir" title="{"higher" if arrow == "↑" else "lower"} is better">'
                          f"{arrow}</span>" if arrow else "")
        head.append(f'<th{attr} tabindex="0" role="button" aria-sort="none">{label}</th>')
    body = []
    lowered = {m.lower(): m for m in models}
    for i, row in enumerate(table.body):
        # Paper tables may print a model id in capitals ("MLP-A" for mlp-a).
        tagged = sorted({lowered[c.lower()] for c in row if c.lower() in lowered})
        ds = sorted({d for c in row for d in _matches(c, datasets)})
        block.update(ds)
        attrs = ""
        if tagged:
            attrs += f' data-model="{esc(tag_list(tagged))}"'
        if ds:
            attrs += f' data-dataset="{esc(tag_list(ds))}"'
        marks = table.marks[i] if i < len(table.marks) else ()
        hints = table.hints[i] if i < len(table.hints) else ()
        cells = [_cell(c, href=links.get(c), mark=marks[j] if j < len(marks) else ("", ""),
                       hint=hints[j] if j < len(hints) else "") for j, c in enumerate(row)]
        body.append(f"<tr{attrs}>" + "".join(cells) + "</tr>")
    note = f'<p class="note">{esc(table.note)}</p>' if table.note else ""
    if table.cut:
        note += (f'<p class="note">{table.cut} more row(s) between the most and the least robust are left out '
                 "here (all rows: the full tables page and results.csv).</p>")
    if any(k in ("same", "best") for m in table.marks for k, _ in m):
        note += ('<p class="note">Bold: significantly better than every other model of its column on the same '
                 "questions (paired bootstrap, p < 0.05); ≈: not significantly different from the column's best "
                 "value (p ≥ 0.05; hover for the difference and p).</p>")
    if any(k == "untested" for m in table.marks for k, _ in m):
        note += ('<p class="note">·: not tested against the column\'s best, too few questions in common with it '
                 f"(fewer than {MIN_PAIRED}, or fewer than half of either row's; hover for how many).</p>")
    ident = f' id="{esc(table_id)}"' if table_id else ""
    label = f' aria-label="{esc(table.title)}"' if table.title else ""
    block_attr = f' data-dataset="{esc(tag_list(sorted(block)))}"' if block else ""
    return (f'<div class="table-block"{block_attr}>{table_head(table, docs)}<div class="scroll">'
            f'<table class="lb sortable"{ident}{label}>\n'
            f"<thead><tr>{''.join(head)}</tr></thead>\n"
            f"<tbody>\n" + "\n".join(body) + f"\n</tbody></table></div>{note}</div>\n")


# ------------------------------------------------------------------ markdown (subset)


def inline_markdown(text: str) -> str:
    """One line of the harness's markdown as HTML: `code`, **bold**, everything else escaped;
    a backslash-escaped character (`md_cell`'s `\\*`, `\\_`, `]\\(`) shows as itself, never as
    markup, outside code spans (inside one a backslash is text, as in CommonMark)."""
    # Markdown written by the harness escapes user text with entities (&lt;, &amp;, `\|`):
    # read them back to characters first, so the HTML escape below shows them once.
    parts = re.split(r"((?<!\\)`[^`]+`)", html.unescape(text.replace("\\|", "|")))
    out = []
    for k, part in enumerate(parts):
        if k % 2:
            out.append(f"<code>{esc(part[1:-1])}</code>")
            continue
        part = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", esc(_hold(part)))  # escapes held out of the markup
        out.append(_release(part, esc))
    return "".join(out)


#: A markdown backslash escape (any ASCII punctuation); escaped characters are held as
#: private-use code points while the inline markup is read.
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
_HELD = 0xE000


def _hold(text: str) -> str:
    """`text` with each backslash escape held as a private-use code point (no markup reads it)."""
    return _ESCAPED.sub(lambda m: chr(_HELD + ord(m.group(1))), text)


def _release(text: str, show=lambda c: c) -> str:
    """The held characters back, each through `show` (the HTML escape, or as they are)."""
    return re.sub("[\ue000-\ue07f]", lambda m: show(chr(ord(m.group()) - _HELD)), text)


_inline = inline_markdown


def _plain(text: str) -> str:
    """A markdown line as plain text (for a table's explanation line)."""
    text = _hold(html.unescape(text.replace("\\|", "|")))
    return _release(re.sub(r"\*\*([^*]+)\*\*", r"\1", text.replace("`", "")).strip())


def _pipe_cells(line: str) -> list[str]:
    """The cells of a pipe-table row; `\\|` (a pipe in user text, `md_cell`) stays in its cell."""
    line = line.strip()
    line = line.removeprefix("|")
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    # Entities written by md_cell (&lt;, &amp;) are read back, as inline_markdown does, so the
    # HTML escape of table_html shows the text once, as typed.
    return [_ESCAPED.sub(r"\1", html.unescape(c.strip().replace("\\|", "|"))) for c in re.split(r"(?<!\\)\|", line)]


def markdown_to_html(text: str, *, anchors: bool = False, table_note: str = REPORT_TABLE_NOTE) -> str:
    """The markdown subset the run reports and the docs use: headings (with GitHub's ids when
    `anchors`), bulleted and numbered lists (indented continuation lines), pipe tables,
    paragraphs, code. A paragraph right before a table becomes the table's explanation (else
    `table_note`)."""
    out: list[str] = []
    seen: dict[str, int] = {}
    intro = ""  # the text of the paragraph just written (out[-1]), if it was one
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            i += 1
            continue
        if stripped.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith("```"):
                j += 1
            out.append("<pre>" + esc("\n".join(lines[i + 1:j])) + "</pre>")
            intro = ""
            i = j + 1
            continue
        m = re.match(r"^(#{1,6})\s+(.*)$", stripped)
        if m:
            level = min(6, len(m.group(1)) + 1)  # the page title is the only h1
            ident = ""
            if anchors:  # GitHub's heading ids, so "page#section" links land
                base = slug(m.group(2))
                seen[base] = seen.get(base, -1) + 1
                ident = f' id="{esc(base if not seen[base] else f"{base}-{seen[base]}")}"'
            out.append(f"<h{level}{ident}>{_inline(m.group(2))}</h{level}>")
            intro = ""
            i += 1
            continue
        if stripped.startswith("|") and i + 1 < len(lines) and re.match(r"^\|?\s*:?-{2,}", lines[i + 1].strip()):
            headers = _pipe_cells(stripped)
            body = []
            i += 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                body.append(tuple(_pipe_cells(lines[i])))
                i += 1
            if intro:
                out.pop()
            out.append(table_html(Table(title="", headers=tuple(headers), body=tuple(body),
                                        description=intro or table_note)))
            intro = ""
            continue
        bullet = re.match(r"^([-*]|\d+\.)\s+", stripped)
        if bullet:
            tag = "ol" if bullet.group(1)[0].isdigit() else "ul"
            items: list[str] = []
            while i < len(lines) and lines[i].strip():
                if re.match(r"^\s*([-*]|\d+\.)\s+", lines[i]):
                    items.append(re.sub(r"^\s*([-*]|\d+\.)\s+", "", lines[i]))
                elif lines[i].startswith((" ", "\t")) and items:  # an item's continuation line
                    items[-1] += " " + lines[i].strip()
                else:
                    break
                i += 1
            out.append(f"<{tag}>" + "".join(f"<li>{_inline(item)}</li>" for item in items) + f"</{tag}>")
            intro = ""
            continue
        para = []
        while i < len(lines) and lines[i].strip() and not re.match(r"^(#|\||[-*]\s|\d+\.\s|```)", lines[i].strip()):
            para.append(lines[i].strip())
            i += 1
        if not para:  # a line that only looks like a block start
            para.append(stripped)
            i += 1
        out.append(f"<p>{_inline(' '.join(para))}</p>")
        intro = _plain(" ".join(para))
        continue
    return "\n".join(out) + "\n"
