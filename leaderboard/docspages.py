"""The docs pages the site links to, carried inside the site folder.

A table's "Reproduces: ..." reference links to the docs section that explains it. Links into
the source checkout (relative paths out of the site folder) break as soon as the folder is
copied or published elsewhere, so by default the site carries its own copy of those pages:
each linked `docs/<page>.md` is rendered (the markdown subset of html.py, headings with
GitHub's ids so `#section` anchors land) to `<site>/docs/<page>.html`, and links point there
(`docs/<page>.html#<section>`). The links work wherever the folder goes, offline too.

With `$VQA_HARNESS_DOCS_URL` set (e.g. a repository's published docs), links point to
`<url>/<page>.md#<section>` instead and no copy is written. Without the docs (an installed
distribution without its source tree) the references are printed without links.

Where each probe's docs are is the probe's own declaration (`Display.docs`, harness.display,
read from the run folders): `page.md#section` under the project's docs/, or a full URL (a
third-party probe's documentation), which is linked as it is.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from .files import write_public
from .html import esc, markdown_to_html, page
from .labels import DOCS_URL_ENV

__all__ = ["DOCS_DIR", "SOURCE_DOCS", "site_docs"]

#: The folder (under the site) holding the docs pages.
DOCS_DIR = "docs"
#: The source checkout's docs folder.
SOURCE_DOCS = Path(__file__).resolve().parent.parent / "docs"


def _render(name: str, text: str) -> str:
    """One docs page as HTML: the markdown subset, code spans in table cells shown plainly."""
    title = next((line.lstrip("#").strip().replace("`", "") for line in text.splitlines() if line.startswith("# ")),
                 name)
    text = "\n".join(line.replace("`", "") if line.lstrip().startswith("|") else line for line in text.splitlines())
    head = (f'<header class="top"><h1>{esc(title)}</h1><nav class="suites"><a href="../index.html">← leaderboard</a>'
            f'<span class="muted">docs/{esc(name)}, copied into the site when it was built</span></nav></header>')
    body = markdown_to_html("\n".join(line for line in text.splitlines() if not line.startswith("# ")), anchors=True,
                            table_note="")
    return page(title, f"{head}<main class=\"docs\">{body}</main>")


def _is_url(target: str) -> bool:
    return "://" in target


def site_docs(out: Path, targets: Mapping[str, str], source: Path = SOURCE_DOCS
              ) -> tuple[Callable[[str], str | None], list[Path]]:
    """(probe -> link to its docs section relative to the site root, or None; the pages
    written under `out`/docs). `targets`: probe -> its declared docs (`Display.docs`). See
    the module docstring for the cases."""
    targets = {p: t for p, t in targets.items() if t}
    base = os.environ.get(DOCS_URL_ENV, "").strip()
    if base:
        prefix = base if base.endswith("/") else base + "/"

        def remote(probe: str) -> str | None:
            target = targets.get(probe)
            return None if target is None else target if _is_url(target) else prefix + target

        return remote, []
    written: list[Path] = []
    pages: dict[str, str] = {}
    for name in sorted({t.partition("#")[0] for t in targets.values() if not _is_url(t)}):
        found = Path(source) / name
        if name.endswith(".md") and "/" not in name and found.is_file():
            path = Path(out) / DOCS_DIR / (found.stem + ".html")
            write_public(path, _render(name, found.read_text(encoding="utf-8")))
            written.append(path)
            pages[name] = f"{DOCS_DIR}/{path.name}"

    def local(probe: str) -> str | None:
        target = targets.get(probe) or ""
        if _is_url(target):
            return target
        name, _, anchor = target.partition("#")
        return None if name not in pages else pages[name] + (f"#{anchor}" if anchor else "")

    return local, written
