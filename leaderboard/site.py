"""The static leaderboard site: `index.html`, model pages, charts and one report page per run.

Layout under the output folder (all links relative, so it works from file:// and from any
static server):

    index.html                  "Does it use the image?" (one table across models), the cards,
                                models, one section per suite (charts, tables, all rows), runs
    models/<model>.html         one page per model: metadata, its card, its table rows, its runs
    full/<suite>-<probe>-<id>.html  tables shortened on the index (global rules), in full
    charts/<suite>-<id>-<k>.svg matplotlib charts, one SVG per panel (+ <suite>-<id>.sha256: hash of
                                their input rows)
    run-reports/<run-id>.html   each run's report (manifest, versions, seed, resources)
    docs/<page>.html            the docs sections the tables link to (docspages.py)
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from harness.display import Display
from harness.layouts import Layout
from harness.rundir import safe_name
from harness.types import ResultRow

from .cards import build_cards
from .charts import derive_charts, write_charts
from .docspages import DOCS_DIR, site_docs
from .examples import examples_html
from .failures import FAILED_HEADER, example_errors, skip_reasons
from .files import remove_public
from .files import write_public as atomic_write_text
from .html import esc, page, table_html
from .labels import Names
from .modelpages import card_html, model_href, model_infos, model_page, models_table
from .paired import ScoreIndex
from .reliance import RelianceTable, reliance_table
from .reliancerender import TITLE, reliance_html
from .runreport import render_run_html
from .runs import RunInfo
from .sigmarks import mark_tables
from .tables import Table, TagIndex, build_tables, format_cell

__all__ = ["RunLink", "render_index", "write_site"]

CHART_DIR = "charts"
REPORT_DIR = "run-reports"
FULL_DIR = "full"


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
    started: str = ""
    #: Examples on which the model raised in that run (manifest stats.example_errors).
    failed: str = "0"


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
    return Table("", ("model", "trained on", "data", "probe", "variant", "metric", "value", "n", "run"), body,
                 description="Every result row of the suite, as the runs wrote them (results.csv has the same).")


def _runs_table(runs: Sequence[RunLink]) -> Table:
    body = tuple((r.run_id, r.model, r.suite, r.status, r.failed, r.started[:16].replace("T", " ") or "-", r.seed,
                  r.harness, r.git) for r in runs)
    return Table("", ("run", "model", "suite", "status", FAILED_HEADER, "started (UTC)", "seed", "harness", "git"),
                 body,
                 description="Each run links to its report: manifest, versions, seed, resources used, skipped "
                             "probes, failures and examples.")


def _options(select_id: str, label: str, values: Sequence[str]) -> str:
    opts = '<option value="">all</option>' + "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
    return f'<label>{esc(label)} <select id="{select_id}">{opts}</select></label>'


def _figure(title: str, srcs: Sequence[str], series: int) -> str:
    """A chart: its panels side by side, wrapping onto new lines on a narrow screen."""
    imgs = "".join(f'<img src="{esc(src)}" alt="{esc(title)}: panel {k + 1}" loading="eager">'
                   for k, src in enumerate(srcs))
    return (f'<figure class="chart" data-panels="{len(srcs)}" data-max-series="{series}"><div class="panels">{imgs}'
            f"</div><figcaption>{esc(title)}</figcaption></figure>")


def _suite_tables(suite: str, tables: Sequence[Table], models: Sequence[str], datasets: Sequence[str],
                  full: Mapping[tuple[str, str, str], str], docs) -> list[str]:
    """The suite's tables; groups of shortened tables (global rules) show their first table,
    fold the others, and link the full lists."""
    out: list[str] = []
    i = 0
    while i < len(tables):
        t = tables[i]
        group = [t]
        while i + len(group) < len(tables) and (tables[i + len(group)].probe, tables[i + len(group)].layout_id) == \
                (t.probe, t.layout_id):
            group.append(tables[i + len(group)])
        ids = [f"{_anchor(suite)}-t{i + k + 1}" for k in range(len(group))]
        href = full.get((suite, t.probe, t.layout_id))
        if href is None or len(group) == 1:
            out += [table_html(g, models=models, datasets=datasets, table_id=ids[k], docs=docs)
                    for k, g in enumerate(group)]
        else:
            out.append(table_html(group[0], models=models, datasets=datasets, table_id=ids[0], docs=docs))
            out.append(f'<p class="more"><a href="{esc(href)}">All rows of the {len(group)} tables "'
                       f'{esc(t.title.split(":")[0])}" →</a></p>')
            out.append(f"<details><summary>{len(group) - 1} more table(s) like the one above (most and least "
                       "robust few each)</summary>"
                       + "".join(table_html(g, models=models, datasets=datasets, table_id=ids[k + 1], docs=docs)
                                 for k, g in enumerate(group[1:])) + "</details>")
        i += len(group)
    return out


def render_index(rows: Sequence[ResultRow], problems: Sequence[str], tables: Mapping[str, Sequence[Table]],
                 charts: Mapping[str, Sequence[tuple[str, Sequence[str], int]]], runs: Sequence[RunLink],
                 inputs: Sequence[str], descriptions: Mapping[str, str] | None = None, *,
                 cards: Sequence[str] = (), models_html: str = "", reliance: str = "",
                 full: Mapping[tuple[str, str, str], str] | None = None, docs=None, notes: Sequence[str] = ()) -> str:
    """The index page, the answer first; `charts` maps suite -> [(title, svg paths, max series)];
    `notes` name the models whose rows come from several runs (runchoice.py)."""
    models = sorted({r.model for r in rows})
    datasets = sorted({r.dataset for r in rows})
    descriptions = descriptions or {}
    suites = sorted(set(tables) | {r.suite for r in rows})
    links = {r.run_id: r.href for r in runs}
    head = ['<header class="top"><h1>vqa-harness leaderboard</h1>']
    nav = ['<a href="#reliance">does it use the image?</a>'] if reliance or cards else []
    nav += ['<a href="#models">models</a>'] if models_html else []
    nav += [f'<a href="#{_anchor(s)}">{esc(s)}</a>' for s in suites]
    nav += ['<a href="#runs">runs</a>'] if runs or notes else []
    nav += ['<a href="#problems">skipped rows</a>'] if problems else []
    head.append(f'<nav class="suites">{" ".join(nav)}</nav>')
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
    if problems:
        body.append(f'<p class="problems-banner"><a href="#problems">{len(problems)} result row(s) were skipped</a> '
                    "(unknown schema version, missing fields or bad JSON).</p>")
    if reliance or cards:
        section = [f'<section class="suite first" id="reliance"><h2>{esc(TITLE)}</h2>', reliance]
        if cards:
            section.append(f'<details class="cards-fold"><summary>The evidence per model ({len(cards)} cards: every '
                           "row, how to read it, the run it came from)</summary><div class=\"cards\">"
                           + "".join(cards) + "</div></details>")
        body.append("".join(section) + "</section>")
    if rows:
        body.append('<p class="muted">In the tables below: fractions as percentages, the 95% interval in small type '
                    "under each value. ↑ / ↓ in a header: higher / lower is better. Bold: significantly better than "
                    "every other model of its column on the same questions (paired bootstrap, p < 0.05); ≈: not "
                    "significantly different from the column's best value. Click a column header to sort.</p>")
        if not any(charts.values()):
            body.append('<p class="muted">No charts: none of their rows exist, or matplotlib (the '
                        '<code>plots</code> extra) is not installed.</p>')
    if models_html:
        body.append(f'<section class="suite" id="models"><h2>Models</h2>{models_html}</section>')
    for suite in suites:
        suite_rows = [r for r in rows if r.suite == suite]
        body.append(f'<section class="suite" id="{_anchor(suite)}"><h2>Suite <code>{esc(suite)}</code></h2>')
        if descriptions.get(suite):
            body.append(f'<p class="desc">{esc(descriptions[suite])}</p>')
        # Charts first (the overview), then the paper tables (the numbers).
        for title, srcs, series in charts.get(suite, ()):
            body.append(_figure(title, srcs, series))
        body += _suite_tables(suite, tables.get(suite, ()), models, datasets, full or {}, docs)
        body.append(f"<details><summary>All {len(suite_rows)} result rows of <code>{esc(suite)}</code></summary>"
                    + table_html(_rows_table(suite_rows), models=models, datasets=datasets, links=links)
                    + "</details></section>")
    if runs or notes:  # notes alone: runs that wrote no row
        body.append('<section class="suite" id="runs"><h2>Runs</h2>'
                    + (table_html(_runs_table(runs), models=models, links=links) if runs else "")
                    + ('<p class="note">Runs of a model combined, passed over or without rows:</p><ul class="notes">'
                       + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>" if notes else "") + "</section>")
    if problems:
        body.append('<section class="suite" id="problems"><h2>Skipped result rows</h2><ul class="problems">'
                    + "".join(f"<li>{esc(p)}</li>" for p in problems) + "</ul></section>")
    body.append("</main>")
    return page("vqa-harness leaderboard", "\n".join(head + body))


def _run_link(info: RunInfo, out: Path, displays: Mapping[str, Display]) -> RunLink:
    run_dir = info.path
    reports = out / REPORT_DIR
    page_path = reports / f"{safe_name(info.run_id)}.html"
    base = os.path.relpath(Path(run_dir).resolve(), reports.resolve()).replace(os.sep, "/") + "/"
    atomic_write_text(page_path, render_run_html(info, link_base=base, back="../index.html", page_dir=reports,
                                                 displays=displays))
    m = info.manifest
    resources = "; ".join(f"{k}: {v}" for k, v in sorted((m.get("resources") or {}).items())) or "-"
    return RunLink(info.run_id, str(m.get("model", "-")), str(m.get("suite", "-")), str(m.get("status", "-")),
                   str(m.get("seed", "-")), str((m.get("versions") or {}).get("vqa-harness", "-")),
                   str(m.get("git_commit") or "-")[:12], resources, f"{REPORT_DIR}/{page_path.name}",
                   str(m.get("started") or ""), str(example_errors(info)))


def _prune(folder: Path, keep: set[Path], suffixes: tuple[str, ...]) -> None:
    # Only files this module writes (by suffix) in folders it owns are removed.
    if folder.is_dir():
        for p in folder.iterdir():
            if p.is_file() and p.suffix in suffixes and p not in keep:
                remove_public(p)


def _full_pages(rows: Sequence[ResultRow], tables: Mapping[str, Sequence[Table]],
                layouts: Mapping[str, Sequence[Layout]], tags: TagIndex, out: Path, docs,
                displays: Mapping[str, Display]) -> dict:
    """Pages with the tables the index shortens (layouts with `extremes`), in full."""
    written: dict[tuple[str, str, str], str] = {}
    for suite, found in tables.items():
        for key in dict.fromkeys((t.probe, t.layout_id) for t in found if t.cut):
            layout = next((lay for lay in layouts.get(key[0], ()) if lay.id == key[1]), None)
            if layout is None:
                continue
            full = build_tables([r for r in rows if r.suite == suite and r.probe == key[0]],
                                {key[0]: [replace(layout, extremes=0)]}, tags, displays).get(suite, [])
            name = f"{FULL_DIR}/{safe_name(f'{suite}-{key[0]}-{key[1]}')}.html"
            parts = [f'<header class="top"><h1>{esc(layout.title.split(":")[0])} (all rows)</h1>'
                     '<nav class="suites"><a href="../index.html">← leaderboard</a></nav></header><main>']
            parts += [table_html(t, table_id=f"full-t{i + 1}", docs=docs) for i, t in enumerate(full)]
            atomic_write_text(out / name, page(layout.title, "\n".join(parts) + "</main>"))
            written[(suite, key[0], key[1])] = name
    return written


def write_site(rows: Sequence[ResultRow], problems: Sequence[str], tables: Mapping[str, Sequence[Table]],
               run_infos: Sequence[RunInfo], out: Path, inputs: Sequence[str],
               layouts: Mapping[str, Sequence[Layout]] | None = None, tags: TagIndex | None = None,
               displays: Mapping[str, Display] | None = None, *, index: ScoreIndex,
               reliance: RelianceTable | None = None, notes: Sequence[str] = ()) -> list[Path]:
    """Write index.html, the model pages, the charts and the run pages; returns the paths
    written or kept. `displays` (probe -> `Display`, from the run folders) name the probes'
    evidence, charts, metrics and docs; `index`: the runs' per-question scores, as the
    reliance table and problems.txt were made with."""
    out = Path(out)
    layouts = layouts or {}
    displays = displays or {}
    tags = tags or TagIndex()
    names = Names(displays, layouts)
    written: list[Path] = []
    charts: dict[str, list[tuple[str, list[str], int]]] = {}
    # matplotlib is the optional `plots` extra: without it the site is built without charts.
    drawable = importlib.util.find_spec("matplotlib") is not None
    for suite in sorted({r.suite for r in rows}) if drawable else ():
        derived = derive_charts([r for r in rows if r.suite == suite], displays, tags)
        paths = write_charts(derived, out / CHART_DIR, safe_name(suite))
        written += paths
        at = 0
        charts[suite] = []
        for chart in derived:
            charts[suite].append((chart.title, [f"{CHART_DIR}/{p.name}" for p in paths[at:at + len(chart.panels)]],
                                  chart.max_series))
            at += len(chart.panels) + 1
    _prune(out / CHART_DIR, set(written), (".svg", ".sha256"))
    by_id = {info.run_id: info for info in run_infos}
    runs = [_run_link(by_id[rid], out, displays) for rid in sorted({r.run_id for r in rows}) if rid in by_id]
    pages = {out / r.href for r in runs}
    _prune(out / REPORT_DIR, pages, (".html",))
    written += sorted(pages)
    docs, doc_pages = site_docs(out, {probe: d.docs for probe, d in displays.items()})
    written += doc_pages
    _prune(out / DOCS_DIR, set(doc_pages), (".html",))
    used = [by_id[r.run_id] for r in runs]
    tables = mark_tables(tables, index)
    full = _full_pages(rows, tables, layouts, tags, out, _up(docs), displays)
    written += [out / v for v in full.values()]
    _prune(out / FULL_DIR, {out / v for v in full.values()}, (".html",))
    links = {r.run_id: r.href for r in runs}
    infos = model_infos(rows, used)
    cards = build_cards(rows, displays, [m.model for m in infos])
    runs_of = {m.model: [by_id[r] for r in m.runs if r in by_id] for m in infos}
    skipped = {m: skip_reasons(found) for m, found in runs_of.items()}
    card_blocks = [card_html(c, links, href=model_href(c.model), names=names, tags=tags, skipped=skipped[c.model])
                   for c in cards]
    model_pages = set()
    for info, card in zip(infos, cards):
        path = out / model_href(info.model)
        atomic_write_text(path, model_page(info, card, tables, links, _up(docs), names=names, tags=tags,
                                           skipped=skipped[info.model],
                                           examples=examples_html(runs_of[info.model], path.parent, names=names,
                                                                  per_file=2)))
        model_pages.add(path)
    _prune(out / "models", model_pages, (".html",))
    written += sorted(model_pages)
    models_html = table_html(models_table(infos), models=[m.model for m in infos],
                             links={m.model: model_href(m.model) for m in infos}) if infos else ""
    found = reliance if reliance is not None else \
        reliance_table(rows, displays, index=index, tags=tags, models=[m.model for m in infos])
    reliance = reliance_html(found, {m.model: model_href(m.model) for m in infos}, docs) if found is not None else ""
    atomic_write_text(out / "index.html", render_index(rows, problems, tables, charts, runs, inputs,
                                                       _suite_descriptions(run_infos), cards=card_blocks,
                                                       models_html=models_html, reliance=reliance, full=full,
                                                       docs=docs, notes=notes))
    written.append(out / "index.html")
    return written


def _up(docs):
    """The docs link function for pages one folder below the site root."""
    def inner(probe: str) -> str | None:
        href = docs(probe)
        return None if href is None else (href if "://" in href else "../" + href)
    return inner
