"""Models on the site: metadata per model, the image-reliance cards, and one page per model.

Metadata comes from the run manifests (model spec, plugin and distribution version,
parameter count when the model reports it, run dates) and the result rows (training data).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from harness.digest import digest
from harness.rundir import safe_name
from harness.types import ResultRow

from .cards import Card, context, row_label, value_text, verdict
from .html import esc, page, table_html, tag_list
from .labels import Names, readable_spec
from .runs import RunInfo
from .sigmarks import ABOVE_NOTE
from .tables import Table
from .tabletypes import TagIndex

__all__ = ["ModelInfo", "model_infos", "models_table", "card_html", "model_page", "MODEL_DIR", "model_href",
           "format_parameters"]

MODEL_DIR = "models"


@dataclass(frozen=True)
class ModelInfo:
    """What the runs say about one model."""

    model: str
    plugin: str
    distribution: str
    trained_on: tuple[str, ...]
    parameters: str
    runs: tuple[str, ...]
    last_run: str
    suites: tuple[str, ...]


def model_href(model: str) -> str:
    """The model page, relative to the site root: the model's name, with a digest of it when
    the name had to change to be a file name (two specs must never share one page)."""
    name = safe_name(model)
    return f"{MODEL_DIR}/{name if name == model else f'{name}-{digest(model, 8)}'}.html"


def format_parameters(value: object) -> str:
    """'1.2M' for a count; a range over the counts of a {training data: count} mapping; '-'."""
    counts: list[int] = []
    if isinstance(value, bool):
        return "-"
    if isinstance(value, int):
        counts = [value]
    elif isinstance(value, Mapping):
        counts = [v for v in value.values() if isinstance(v, int) and not isinstance(v, bool)]
    if not counts:
        return "-"

    def one(n: int) -> str:
        for unit, size in (("B", 1e9), ("M", 1e6), ("k", 1e3)):
            if n >= size:
                return f"{n / size:.3g}{unit}"
        return str(n)

    low, high = one(min(counts)), one(max(counts))
    return low if low == high else f"{low}–{high}"


def model_infos(rows: Sequence[ResultRow], runs: Sequence[RunInfo]) -> list[ModelInfo]:
    """One record per model of `rows`, from the manifests of the runs the rows came from."""
    used = {r.run_id for r in rows}
    by_model: dict[str, list[RunInfo]] = {}
    for info in sorted(runs, key=lambda i: i.run_id):
        if info.run_id in used:
            by_model.setdefault(str(info.manifest.get("model") or "-"), []).append(info)
    out = []
    for model in sorted({r.model for r in rows}):
        infos = by_model.get(model, [])
        latest = infos[-1].manifest if infos else {}
        plugin, _, dist = str(latest.get("model_plugin", "-")).partition(" (")
        params: dict[str, int] = {}
        for info in infos:
            found = info.manifest.get("parameter_count")
            if isinstance(found, Mapping):
                params.update({str(k): v for k, v in found.items()})
            elif isinstance(found, int):
                params[info.run_id] = found
        trained = sorted({r.train for r in rows if r.model == model and r.train})
        started = max((str(i.manifest.get("started") or "") for i in infos), default="")
        out.append(ModelInfo(model, plugin or "-", dist.rstrip(")") or "-", tuple(trained),
                             format_parameters(params), tuple(i.run_id for i in infos), started[:10] or "-",
                             tuple(sorted({str(i.manifest.get("suite", "-")) for i in infos}))))
    return out


def models_table(infos: Sequence[ModelInfo]) -> Table:
    """Models with their metadata (the model cell links to the model page)."""
    body = tuple((m.model, m.plugin, m.distribution, _trained(m.trained_on), m.parameters, ", ".join(m.suites),
                  str(len(m.runs)), m.last_run) for m in infos)
    return Table("", ("model", "plugin", "distribution", "training data", "parameters", "suites", "runs",
                            "last run"), body,
                 description="Each model's spec, the plugin and distribution (with version) that provide it, the "
                             "data it was trained on, its parameter count when the model reports it, and its runs.")


def _run_label(run_id: str) -> str:
    """'20261124-072639-cnn-lstm-toy' -> '2026-11-24 07:26' (the run's start), else the id."""
    d = run_id.split("-", 2)
    if len(d) >= 2 and len(d[0]) == 8 and len(d[1]) == 6 and (d[0] + d[1]).isdigit():
        return f"{d[0][:4]}-{d[0][4:6]}-{d[0][6:]} {d[1][:2]}:{d[1][2:4]}"
    return run_id


def _trained(names: Sequence[str], shown: int = 2) -> str:
    """The training data, shortly: the first few, then how many more (all on the model page)."""
    text = "; ".join(readable_spec(t) for t in names[:shown]) or "-"
    return text + (f"; +{len(names) - shown} more" if len(names) > shown else "")


def card_html(card: Card, links: Mapping[str, str], *, heading: bool = True, href: str = "",
              names: Names | None = None, tags: TagIndex | None = None, skipped: Mapping[str, str] | None = None) -> str:
    """One image-reliance card: the verdict, then each piece of evidence (one line per row
    found) with how to read it, its interval, where it was measured and a link to the run it
    came from; evidence not measured says why (the probe was skipped: the capability the
    model lacks; else the suites that measure it)."""
    trs = []
    skipped = skipped or {}
    for line in card.lines:
        ev = line.evidence
        reading = f'<small class="reading">{esc(ev.reading)}</small>' if ev.reading else ""
        if not line.rows:
            why = skipped.get(line.declared.probe)
            said = (f"not measured: {esc(why)}" if why else
                    f"not measured: no row in this model's runs ({esc(ev.suites or 'probe ' + line.declared.probe)})")
            trs.append(f'<tr class="absent"><th scope="row">{esc(ev.label)}{reading}</th><td class="num">-</td>'
                       f'<td class="where">{said}</td></tr>')
            continue
        for r in line.rows:
            value, ci = value_text(r, names)
            run = (f'<a href="{esc(links[r.run_id])}" title="{esc(r.run_id)}">{esc(_run_label(r.run_id))}</a>'
                   if r.run_id in links else f'<span title="{esc(r.run_id)}">{esc(_run_label(r.run_id))}</span>')
            head = f'<th scope="row">{esc(row_label(ev, r, line.rows, tags))}{reading}</th>'
            trs.append(f'<tr data-model="{esc(tag_list([card.model]))}">{head}<td class="num" data-sort="{esc(value)}">'
                       f'{esc(value)}<small class="ci">{esc(ci)}</small></td>'
                       f'<td class="where">{esc(context(r))} · run {run}</td></tr>')
    said = verdict(card)
    title = f'<a href="{esc(href)}">{esc(card.model)}</a>' if href else esc(card.model)
    head = f'<h3 class="card-title">{title}</h3>' if heading else ""
    summary = f'<p class="verdict">{esc(said)}</p>' if said else \
        '<p class="verdict muted">no direct test of image use (an image ablation) for this model yet</p>'
    explain = ('<p class="explain">Values in %, drops in points, scores x100, 95% intervals in small type; under each '
               "evidence name, how to read it; the date links to the run it came from.</p>")
    if not trs:
        trs.append('<tr class="absent"><th scope="row">no evidence</th><td class="num">-</td><td class="where">no '
                   "probe of these runs declares image-reliance evidence</td></tr>")
    table = ('<div class="scroll"><table class="lb card-table"><thead><tr><th>evidence</th><th>value</th>'
             "<th>measured on, run</th></tr></thead><tbody>" + "".join(trs) + "</tbody></table></div>")
    return (f'<article class="card" id="card-{esc(safe_name(card.model))}">{head}{summary}'
            f'<div class="table-block">{explain}{table}</div></article>')


def model_page(info: ModelInfo, card: Card, tables: Mapping[str, Sequence[Table]], run_links: Mapping[str, str],
               docs: Callable[[str], str | None], *, names: Names | None = None, tags: TagIndex | None = None,
               skipped: Mapping[str, str] | None = None, examples: str = "") -> str:
    """The model's page: metadata, its image-reliance card, examples with their images, every
    table row of it (without significance marks: they compare models, on the index), its runs."""
    links = {k: "../" + v for k, v in run_links.items()}
    facts = [("model", info.model), ("plugin", info.plugin), ("distribution", info.distribution),
             ("training data", "; ".join(info.trained_on) or "-"), ("parameters", info.parameters),
             ("suites", ", ".join(info.suites)), ("last run", info.last_run)]
    parts = [f'<header class="top"><h1>Model <code>{esc(info.model)}</code></h1>'
             '<nav class="suites"><a href="../index.html">← leaderboard</a></nav></header><main>',
             '<dl class="manifest">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts) + "</dl>",
             "<h2>Does it use the image?</h2>",
             card_html(card, links, heading=False, names=names, tags=tags, skipped=skipped)]
    if examples:
        parts.append(examples)
    for suite, found in tables.items():
        mine = [t for t in (_only(t, info.model) for t in found) if t is not None]
        if mine:
            parts.append(f"<h2>Suite <code>{esc(suite)}</code></h2>")
            parts += [table_html(t, models=[info.model], docs=docs) for t in mine]
    parts.append("<h2>Runs</h2><ul>" + "".join(
        f'<li><a href="{esc(links[r])}">{esc(r)}</a></li>' if r in links else f"<li>{esc(r)}</li>"
        for r in info.runs) + "</ul></main>")
    return page(f"Model {info.model}", "\n".join(parts))


def _only(table: Table, model: str) -> Table | None:
    """The table's rows of `model` (and its model-free reference rows), or None."""
    keep = [i for i, cells in enumerate(table.cells)
            if any(c is not None and c.model == model for c in cells) or all(c is None for c in cells)]
    if not any(any(c is not None for c in table.cells[i]) for i in keep):
        return None
    pick = lambda seq: tuple(seq[i] for i in keep if i < len(seq))  # noqa: E731
    # Significance marks compare models: on a page of one model they would mark every cell.
    return replace(table, body=pick(table.body), cells=pick(table.cells), marks=(),
                   hints=pick(table.hints), cut=0, note=_without_test_notes(table.note))


def _without_test_notes(note: str) -> str:
    """The table note without the sentence about tests against the row above (not on this page)."""
    return note.replace(ABOVE_NOTE, "").strip()
