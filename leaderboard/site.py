"""The static leaderboard site: `index.html`, charts and one report page per run.

Layout under the output folder (all links relative, so it works from file:// and from any
static server):

    index.html                  one section per suite: paper-style tables, charts, all rows
    charts/<suite>-<id>.svg     matplotlib charts (+ .sha256: hash of their input rows)
    run-reports/<run-id>.html   each run's report (manifest, versions, seed, resources)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.runstore import safe_name
from harness.types import ResultRow

from .charts import derive_charts, write_charts
from .files import write_public as atomic_write_text
from .html import esc, page, table_html
from .runs import RunInfo
from .tables import Table, format_cell

__all__ = ["RunLink", "render_index", "write_site"]

CHART_DIR = "charts"
REPORT_DIR = "run-reports"


@dataclass(frozen=True)
class RunLink:
    """A run listed on the site, with the relative link to its report page."""

    run_id: str
    model: str
    suite: str
    status: str
    seed: str
    harness: str
    git: str
    resources: str
    href: str


def _anchor(suite: str) -> str:
    return "suite-" + safe_name(suite)


def _suite_descriptions(runs: Sequence[RunInfo]) -> dict[str, str]:
    """Suite descriptions as the runs recorded them (the newest run wins)."""
    out: dict[str, str] = {}
    for info in sorted(runs, key=lambda i: i.run_id):
        suite, text = info.manifest.get("suite"), info.manifest.get("suite_description")
        if isinstance(suite, str) and isinstance(text, str) and text:
            out[suite] = text
    return out


def _rows_table(rows: Sequence[ResultRow]) -> Table:
    body = tuple((r.model, r.train or "-", f"{r.dataset}/{r.split}", r.probe, r.variant or "-", r.metric,
                  format_cell(r), str(r.n), r.run_id) for r in rows)
    return Table("", ("model", "trained on", "data", "probe", "variant", "metric", "value", "n", "run"), body)


def _runs_table(runs: Sequence[RunLink]) -> Table:
    body = tuple((r.run_id, r.model, r.suite, r.status, r.seed, r.harness, r.git, r.resources) for r in runs)
    return Table("Runs", ("run", "model", "suite", "status", "seed", "harness", "git", "resources"), body)


def _options(select_id: str, label: str, values: Sequence[str]) -> str:
    opts = '<option value="">all</option>' + "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
    return f'<label>{esc(label)} <select id="{select_id}">{opts}</select></label>'


def render_index(rows: Sequence[ResultRow], problems: Sequence[str], tables: Mapping[str, Sequence[Table]],
                 charts: Mapping[str, Sequence[tuple[str, str]]], runs: Sequence[RunLink],
                 inputs: Sequence[str], descriptions: Mapping[str, str] | None = None) -> str:
    """The index page; `charts` maps suite -> [(title, relative svg path)]."""
    models = sorted({r.model for r in rows})
    datasets = sorted({r.dataset for r in rows})
    descriptions = descriptions or {}
    suites = sorted(set(tables) | {r.suite for r in rows})
    links = {r.run_id: r.href for r in runs}
    head = ['<header class="top"><h1>vqa-harness leaderboard</h1>']
    nav = [f'<a href="#{_anchor(s)}">{esc(s)}</a>' for s in suites]
    nav += ['<a href="#runs">runs</a>'] if runs else []
    nav += ['<a href="#problems">skipped rows</a>'] if problems else []
    head.append(f'<nav class="suites">{"".join(nav)}</nav>')
    if rows:
        head.append('<div class="filters">' + _options("filter-model", "model", models)
                    + _options("filter-dataset", "dataset", datasets)
                    + '<label><input type="checkbox" id="show-ci" checked> 95% intervals</label></div>')
    head.append("</header>")
    body = ["<main>"]
    if not rows:
        where = ", ".join(inputs) or "the runs folder"
        body.append(f'<p class="empty" id="empty">No results yet: no valid result rows were found in '
                    f'{esc(where)}. Run <code>harness run --model M --suite S</code>, then '
                    f'<code>harness leaderboard build</code>.</p>')
    else:
        body.append('<p class="muted">Fractions are shown as percentages; small type under a value '
                    '(also on hover) is its 95% confidence interval. Click a column header to sort.</p>')
        if not any(charts.values()):
            body.append('<p class="muted">No charts: none of their rows exist, or matplotlib (the '
                        '<code>plots</code> extra) is not installed.</p>')
    if problems:
        body.append(f'<p class="problems-banner"><a href="#problems">{len(problems)} result row(s) were skipped</a> '
                    "(unknown schema version, missing fields or bad JSON).</p>")
    for suite in suites:
        suite_rows = [r for r in rows if r.suite == suite]
        body.append(f'<section class="suite" id="{_anchor(suite)}"><h2>Suite <code>{esc(suite)}</code></h2>')
        if descriptions.get(suite):
            body.append(f'<p class="desc">{esc(descriptions[suite])}</p>')
        for i, t in enumerate(tables.get(suite, ())):
            body.append(table_html(t, models=models, datasets=datasets, table_id=f"{_anchor(suite)}-t{i + 1}"))
        for title, src in charts.get(suite, ()):
            body.append(f'<figure class="chart"><img src="{esc(src)}" alt="{esc(title)}" loading="eager">'
                        f"<figcaption>{esc(title)}</figcaption></figure>")
        body.append(f"<details><summary>All {len(suite_rows)} result rows of <code>{esc(suite)}</code></summary>"
                    + table_html(_rows_table(suite_rows), models=models, datasets=datasets, links=links)
                    + "</details></section>")
    if runs:
        body.append('<section class="suite" id="runs"><h2>Runs</h2>'
                    '<p class="desc">Each run links to its report: manifest, versions, seed, resources used, '
                    "failures and examples.</p>"
                    + table_html(_runs_table(runs), models=models, links=links) + "</section>")
    if problems:
        body.append('<section class="suite" id="problems"><h2>Skipped result rows</h2><ul class="problems">'
                    + "".join(f"<li>{esc(p)}</li>" for p in problems) + "</ul></section>")
    body.append("</main>")
    return page("vqa-harness leaderboard", "\n".join(head + body))


def _run_link(info: RunInfo, out: Path) -> RunLink:
    from .runreport import render_run_html

    run_dir = info.path
    reports = out / REPORT_DIR
    page_path = reports / f"{safe_name(info.run_id)}.html"
    base = os.path.relpath(Path(run_dir).resolve(), reports.resolve()).replace(os.sep, "/") + "/"
    atomic_write_text(page_path, render_run_html(info, link_base=base, back="../index.html"))
    m = info.manifest
    resources = "; ".join(f"{k}: {v}" for k, v in sorted((m.get("resources") or {}).items())) or "-"
    return RunLink(info.run_id, str(m.get("model", "-")), str(m.get("suite", "-")), str(m.get("status", "-")),
                   str(m.get("seed", "-")), str((m.get("versions") or {}).get("vqa-harness", "-")),
                   str(m.get("git_commit") or "-")[:12], resources, f"{REPORT_DIR}/{page_path.name}")


def _prune(folder: Path, keep: set[Path], suffixes: tuple[str, ...]) -> None:
    # Only files this module writes (by suffix) in folders it owns are removed.
    if folder.is_dir():
        for p in folder.iterdir():
            if p.is_file() and p.suffix in suffixes and p not in keep:
                p.unlink()


def write_site(rows: Sequence[ResultRow], problems: Sequence[str], tables: Mapping[str, Sequence[Table]],
               run_infos: Sequence[RunInfo], out: Path, inputs: Sequence[str]) -> list[Path]:
    """Write index.html, the charts and the run pages; returns the paths written or kept."""
    out = Path(out)
    written: list[Path] = []
    charts: dict[str, list[tuple[str, str]]] = {}
    import importlib.util

    # matplotlib is the optional `plots` extra: without it the site is built without charts.
    drawable = importlib.util.find_spec("matplotlib") is not None
    for suite in sorted({r.suite for r in rows}) if drawable else ():
        derived = derive_charts([r for r in rows if r.suite == suite])
        paths = write_charts(derived, out / CHART_DIR, safe_name(suite))
        written += paths
        charts[suite] = [(c.title, f"{CHART_DIR}/{p.name}") for c, p in zip(derived, paths[::2])]
    _prune(out / CHART_DIR, set(written), (".svg", ".sha256"))
    by_id = {info.run_id: info for info in run_infos}
    runs = [_run_link(by_id[rid], out) for rid in sorted({r.run_id for r in rows}) if rid in by_id]
    pages = {out / r.href for r in runs}
    _prune(out / REPORT_DIR, pages, (".html",))
    written += sorted(pages)
    atomic_write_text(out / "index.html", render_index(rows, problems, tables, charts, runs, inputs,
                                                             _suite_descriptions(run_infos)))
    written.append(out / "index.html")
    return written
