"""Tables as github-style markdown (index.md, <suite>.md, run reports)."""

from __future__ import annotations

import re

from .tabletypes import Table

__all__ = ["render_markdown"]


def render_markdown(table: Table) -> str:
    """A table as a github-style markdown section (cells escaped: user text is not markup)."""
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    table = table.compact()

    text = f"### {_md(table.title)}\n\n"
    if table.spec:
        text += f"`{table.spec.replace('`', '')}`\n\n"
    if table.explanation:
        text += f"{_md(table.explanation)}" + (f" ({_md(table.reference)})" if table.reference else "") + "\n\n"
    text += tabulate([[_md(c) for c in r] for r in table.body], headers=[_md(h) for h in table.headers],
                     tablefmt="github", disable_numparse=True)
    if table.note:
        text += f"\n\n{_md(table.note)}"
    return text + "\n"


def _md(text: str) -> str:
    """Escape what markdown renderers would read as markup or raw HTML in a cell: '<' and a
    closing '>', but not the '>' of an arrow ("X -> Y" stays as written); a link's "](" (a
    model spec `[x](http://...)` stays text)."""
    text = str(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace("\n", " ")
    text = text.replace("](", "]\\(")
    return re.sub(r"(?<![-=])>", "&gt;", text)
