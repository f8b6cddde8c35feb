"""One run rendered as markdown and HTML (`harness report RUN`, and the leaderboard's run pages).

Reads only the run directory: `manifest.json` (versions, seed, resources), `results.jsonl`
(validated like the leaderboard does), `report.md` (the probes' sections, metrics not
computed, failures with plugin names) and `artifacts/` (example pairs, local explanations).
Output is deterministic for the same run folder. User text (model and suite names, the
command line, artifact records, skipped result rows, failure messages) is escaped in
`report_full.md` with the helpers report.md uses (`harness.report.md_cell`, `md_code`,
`escape_markdown`): no raw HTML, no `|` or backtick that breaks a table or a code span.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.display import Display
from harness.errors import SURROGATE, printable
from harness.report import escape_markdown, headline_rows, md_cell, md_code
from harness.types import ResultRow

from .cards import Card, build_cards, card_markdown
from .examples import examples_html
from .failures import skip_reasons
from .files import write_public as atomic_write_text
from .html import esc, file_url, inline_markdown, markdown_to_html, page, table_html
from .labels import Names, readable_spec
from .modelpages import card_html
from .runs import RunInfo, collect, load_run
from .tables import Table, TagIndex, build_tables, format_cell, render_markdown

__all__ = ["render_run_html", "render_run_markdown", "write_run_report"]

#: Records shown per artifact file.
EXAMPLES_PER_ARTIFACT = 8
#: Sections of report.md that hold failures (they name the plugin).
FAILURE_SECTIONS = ("Probe failures", "Example errors")
#: Sections that hold probes skipped because the model lacks a capability: not failures.
SKIP_SECTIONS = ("Probes skipped",)
#: The few numbers that matter per probe (metric, variant; "*" any variant), in order. Other
#: probes show their first rows without a breakdown ("/" in the metric). All rows are in
#: the tables below and in results.jsonl.
#: Preferred columns of known artifact shapes (others: the first scalar fields).
ARTIFACT_COLUMNS = (
    ("kind", "question", "answer", "counterfactual", "cf_answer"),  # counterfactual local explanations
    ("question", "answer", "explanation", "references"),            # NLE per-example records
)


# ------------------------------------------------------------------ pieces


def _facts(info: RunInfo) -> list[tuple[str, str]]:
    m = info.manifest
    versions = m.get("versions") or {}
    stats = m.get("stats") or {}
    resources = m.get("resources") or {}
    facts = [
        ("run", info.run_id), ("model", f"{m.get('model', '-')} ({m.get('model_plugin', '-')})"),
        ("suite", str(m.get("suite", "-"))), ("status", str(m.get("status", "-"))),
        ("seed", str(m.get("seed", "-"))), ("device", str(m.get("device", "-"))),
        ("limit", str(m.get("limit"))), ("split", str(m.get("split"))),
        ("harness", str(versions.get("vqa-harness", "-"))), ("python", str(versions.get("python", "-"))),
        ("torch", str(versions.get("torch", "-"))),
        ("plugin distributions", ", ".join(versions.get("plugin_distributions") or []) or "-"),
        ("git commit", str(m.get("git_commit") or "-")),
        ("started", str(m.get("started", "-"))), ("finished", str(m.get("finished", "-"))),
        ("resources", "; ".join(f"{k}: {v}" for k, v in sorted(resources.items())) or "none"),
    ]
    if stats:
        calls = (f"{stats.get('model_calls', 0)} (cache hits {stats.get('cache_hits', 0)}, "
                 f"example errors {stats.get('example_errors', 0)})")
        facts.append(("model calls", calls))
    if m.get("argv"):
        facts.append(("command", " ".join(map(str, m["argv"]))))
    return facts


def _names(info: RunInfo, displays: Mapping[str, Display] | None = None) -> Names:
    return Names({**info.displays, **(displays or {})}, info.layouts)


def _labels(layouts: Mapping[str, Sequence], field: str) -> dict[str, dict[str, str]]:
    """probe -> {value: label} of a layout field ("metric", "variant"), as the tables name them."""
    out: dict[str, dict[str, str]] = {}
    for probe, found in layouts.items():
        for layout in found:
            for value, label in (layout.labels.get(field) or {}).items():
                out.setdefault(probe, {}).setdefault(value, label)
    return out


def _headline(rows: Sequence[ResultRow], headlines: dict[str, list], layouts: Mapping[str, Sequence],
              names: Names | None = None) -> Table:
    """The few numbers that matter per probe, named as the probes name them (readable data
    and training specs, probe and metric names, conditions), the ids in results.jsonl."""
    shown = headline_rows(rows, headlines)
    names = names or Names(layouts=layouts)
    variants = _labels(layouts, "variant")
    body = tuple((readable_spec(f"{r.dataset}/{r.split}"), readable_spec(r.train) if r.train else "-",
                  names.probe(r.probe), names.metric(r.metric, r.probe),
                  (variants.get(r.probe) or {}).get(r.variant, r.variant) or "-", format_cell(r), str(r.n))
                 for r in shown)
    return Table("Headline numbers", ("data", "trained on", "probe", "metric", "condition", "value", "n"), body,
                 description=f"The few numbers that matter per probe ({len(shown)} of {len(rows)} rows; every row "
                             "is in the tables below and in results.jsonl, with the metric ids).")


def _skips(info: RunInfo) -> list[str]:
    """Probes not run because the model lacks a capability (a skip, not a failure)."""
    lines = []
    for heading, body in _sections(info.report_md):
        if heading.split(" (")[0] in SKIP_SECTIONS:
            lines += [ln[2:].strip() for ln in body.splitlines() if ln.startswith("- ")]
    return lines


def _sections(report_md: str) -> list[tuple[str, str]]:
    """report.md split at '## ' headings: (heading, body); the title block is dropped."""
    parts = re.split(r"(?m)^## (.+)$", report_md)
    return [(parts[i].strip(), parts[i + 1].strip()) for i in range(1, len(parts) - 1, 2)]


def _failures(info: RunInfo) -> list[str]:
    lines = [f"plugin failed to load: {f}" for f in info.manifest.get("plugin_failures") or []]
    for heading, body in _sections(info.report_md):
        if heading.split(" (")[0] in FAILURE_SECTIONS:
            lines += [ln[2:].strip() for ln in body.splitlines() if ln.startswith("- ")]
    lines += [f"traceback: {a}" for a in info.artifacts if a.endswith("traceback.txt")]
    return lines


def _cell_text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        value = value[0] if len(value) == 1 else "; ".join(map(str, value[:2])) + ("; …" if len(value) > 2 else "")
    if isinstance(value, float):
        value = f"{value:.4g}"
    text = printable(str(value).replace("\n", " ").replace("|", "/"))  # a foreign artifact's `\ud800` too
    return text if len(text) <= 90 else text[:89] + "…"


def _examples(info: RunInfo) -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    """(artifact, columns, rows) for the first records of each JSONL artifact."""
    out = []
    for rel in info.artifacts:
        if not rel.endswith(".jsonl"):
            continue
        records = []
        with open(info.path / rel, encoding="utf-8", errors="replace") as fh:  # shown, not parsed strictly
            for line in fh:
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(rec, dict):
                    records.append(rec)
        if not records:
            continue
        if any("answer_changed" in r for r in records):  # local explanations: show the changes first
            records = [r for r in records if r.get("answer_changed")] + [r for r in records if not r.get("answer_changed")]
        if any("explanation" in r for r in records):
            records = [r for r in records if "explanation" in r]
        keys = [k for k in records[0] if not SURROGATE.search(k)]
        columns = next((c for c in ARTIFACT_COLUMNS if all(k in keys for k in c)), None)
        if columns is None:
            columns = tuple(k for k in keys if not isinstance(records[0][k], dict))[:7]
        body = [tuple(_cell_text(r.get(c, "")) for c in columns) for r in records[:EXAMPLES_PER_ARTIFACT]]
        out.append((rel, tuple(columns), body))
    return out


def _tables(info: RunInfo) -> dict[str, list[Table]]:
    return build_tables(list(info.rows), info.layouts, TagIndex({info.run_id: info.tags}), info.displays)


# ------------------------------------------------------------------ renderers


def reliance_card(info: RunInfo, evidence: Sequence[Path] = ()) -> tuple[Card, dict[str, Display], TagIndex]:
    """The image-reliance card of the run's model: this run's rows, plus the rows of the
    latest runs of the same model (other suites) found under `evidence`; with the displays
    and row tags those runs declare."""
    model = str(info.manifest.get("model") or (info.rows[0].model if info.rows else "-"))
    rows = list(info.rows)
    displays = dict(info.displays)
    tags = {info.run_id: list(info.tags)}
    if evidence:
        suite = info.rows[0].suite if info.rows else info.manifest.get("suite")
        found = collect(evidence)
        rows += [r for r in found.rows if r.model == model and r.suite != suite and r.run_id != info.run_id]
        displays = {**found.displays, **displays}
        tags.update(found.tags)
    return build_cards(rows, displays, [model])[0], displays, TagIndex(tags)


def render_run_markdown(info: RunInfo, *, evidence: Sequence[Path] = ()) -> str:
    """The run as one markdown document."""
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    out = [f"# Run {info.run_id}\n\n"]
    out += [f"- {k}: {md_cell(v)}\n" for k, v in _facts(info)]
    out.append("\nFractions are shown as percentages; brackets are 95% confidence intervals.\n")
    card, displays, tags = reliance_card(info, evidence)
    names = _names(info, displays)
    out.append("\n" + card_markdown(card, names, tags, skip_reasons([info])))
    head = _headline(info.rows, info.headlines, info.layouts, names)
    if head.body:
        out.append("\n" + render_markdown(head).replace("### ", "## ", 1))
    for suite, tables in _tables(info).items():
        out.append(f"\n## Tables ({md_cell(suite)})\n\n" + "\n".join(render_markdown(t) for t in tables))
    examples = _examples(info)
    if examples:
        out.append("\n## Examples and local explanations\n")
        for rel, cols, body in examples:
            out.append(f"\n{md_code(rel)} (first {len(body)}):\n\n")
            out.append(tabulate([[md_cell(c) for c in b] for b in body], headers=[md_cell(c) for c in cols],
                                tablefmt="github", disable_numparse=True) + "\n")
    skips = _skips(info)
    if skips:
        out.append("\n## Skipped (the model lacks a capability the probe needs)\n\n")
        out += [f"- {escape_markdown(' '.join(s.split()))}\n" for s in skips]
    failures = _failures(info)
    out.append("\n## Failures\n\n")
    # report.md lines are escaped there (escape_markdown is idempotent); manifest ones are not
    out += [f"- {escape_markdown(' '.join(f.split()))}\n" for f in failures] or ["None.\n"]
    if info.problems:
        out.append("\n## Result rows skipped\n\n")
        out += [f"- {md_cell(p)}\n" for p in info.problems]
    details = [(h, b) for h, b in _sections(info.report_md) if h != "Headline numbers"
               and h.split(" (")[0] not in FAILURE_SECTIONS + SKIP_SECTIONS]
    for heading, body in details:
        out.append(f"\n## {escape_markdown(heading)}\n\n{escape_markdown(body)}\n")
    return "".join(out)


def render_run_html(info: RunInfo, *, link_base: str = "", back: str = "", evidence: Sequence[Path] = (),
                    page_dir: Path | None = None, displays: Mapping[str, Display] | None = None) -> str:
    """The run as a self-contained HTML page; artifact links are `link_base` + path in the run,
    example images are linked relative to `page_dir` (the folder the page is written to)."""
    models = sorted({r.model for r in info.rows})
    parts = [f'<header class="top"><h1>Run {esc(info.run_id)}</h1>']
    if back:
        parts.append(f'<nav class="suites"><a href="{esc(back)}">← leaderboard</a></nav>')
    parts.append("</header><main>")
    parts.append('<dl class="manifest">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in _facts(info))
                 + "</dl>")
    parts.append('<p class="muted">Fractions are shown as percentages; small type: 95% confidence intervals.</p>')
    card, found, tags = reliance_card(info, evidence)
    names = _names(info, {**found, **(displays or {})})
    parts.append("<h2>Does the model use the image?</h2>"
                 + card_html(card, {}, heading=False, names=names, tags=tags, skipped=skip_reasons([info])))
    shown = examples_html([info], page_dir, names=names)
    if shown:
        parts.append(shown)
    head = _headline(info.rows, info.headlines, info.layouts, names)
    if head.body:  # the h2 is the heading: the table itself has no second title
        parts.append("<h2>Headline numbers</h2>" + table_html(replace(head, title=""), models=models))
    for suite, tables in _tables(info).items():
        parts.append(f"<h2>Tables ({esc(suite)})</h2>")
        parts += [table_html(t, models=models) for t in tables]
    examples = _examples(info)
    if examples:
        parts.append("<h2>Examples and local explanations</h2>")
        for rel, cols, body in examples:
            link = f'<a href="{esc(file_url(link_base + rel))}"><code>{esc(rel)}</code></a>'
            parts.append(f"<p>{link}</p>" + table_html(Table("", cols, tuple(body), description=(
                f"The first {len(body)} records of {rel}, as the probe wrote them (the file, linked above, has all)."))))
    skips = _skips(info)
    if skips:
        parts.append("<h2>Skipped</h2><p>Probes not run because the model lacks a capability they need "
                     "(not a failure):</p><ul>" + "".join(f'<li class="skip">{inline_markdown(s)}</li>' for s in skips)
                     + "</ul>")
    failures = _failures(info)
    parts.append("<h2>Failures</h2>")
    parts.append("<ul>" + "".join(f"<li>{inline_markdown(f)}</li>" for f in failures) + "</ul>" if failures
                 else "<p>None.</p>")
    if info.problems:
        parts.append("<h2>Result rows skipped</h2><ul class=\"problems\">"
                     + "".join(f"<li>{esc(p)}</li>" for p in info.problems) + "</ul>")
    for heading, body in _sections(info.report_md):
        if heading == "Headline numbers" or heading.split(" (")[0] in FAILURE_SECTIONS + SKIP_SECTIONS:
            continue
        parts.append(f"<h2>{esc(heading)}</h2>" + markdown_to_html(body))
    if info.artifacts:
        parts.append("<h2>Files</h2><ul>" + "".join(
            f'<li><a href="{esc(file_url(link_base + a))}">{esc(a)}</a></li>' for a in info.artifacts) + "</ul>")
    parts.append("</main>")
    return page(f"Run {info.run_id}", "\n".join(parts))


def write_run_report(run: Path, out: Path | None = None, *, evidence: Sequence[Path] = ()) -> list[Path]:
    """Write `report.html` and `report_full.md` for `run` into `out` (default: the run folder);
    the image-reliance card also gathers the model's runs under `evidence`."""
    info = load_run(run)
    out = Path(out) if out is not None else info.path
    base = os.path.relpath(info.path, out).replace(os.sep, "/")
    link_base = "" if base == "." else base + "/"
    html_path, md_path = out / "report.html", out / "report_full.md"
    atomic_write_text(html_path, render_run_html(info, link_base=link_base, evidence=evidence, page_dir=out))
    atomic_write_text(md_path, render_run_markdown(info, evidence=evidence))
    return [md_path, html_path]
