"""Pure table rendering: result rows + layouts (data read from run folders) -> Tables.

No I/O and no plugin imports: `publish` reads the run folders and hands rows, layouts and
row tags to `build_tables`; the same inputs always give the same tables. Probes without a
layout get the generic pivot (rows = model and training data, columns = data/metric).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from harness.display import Display
from harness.layouts import Layout
from harness.types import ResultRow

from .collisions import cell_of, separate_layout, still_colliding
from .degenerate import degenerate_tasks, neutralize, note_degenerate
from .extremes import RANK_HEADER, keep_extremes, unranked_note
from .intervals import interval_note, missing_intervals, no_interval_sentences
from .labels import Names, direction_mark, readable_spec
from .notapplicable import na_note, na_tag, na_text, other_task_reason
from .tablemd import render_markdown
from .tabletypes import Table, TagIndex, field_value

__all__ = ["Table", "TagIndex", "build_tables", "render_layout", "generic_tables", "format_cell",
           "render_markdown", "HIDDEN_MARKERS"]

#: Breakdowns too wide for a table (kept in CSV/JSON).
HIDDEN_MARKERS = ("question_type=",)


def _field(row: ResultRow, name: str, tags: TagIndex) -> str:
    return field_value(row, name, tags)


def format_cell(row: ResultRow | None, fmt: str = "pct2") -> str:
    """A value (and its 95% interval where the format shows one); '-' when absent."""
    if row is None or row.value is None or (isinstance(row.value, float) and math.isnan(row.value)):
        return "-"
    ci = row.ci_low is not None and row.ci_high is not None
    if fmt == "count" or (row.unit == "count" and fmt in ("pct2", "pct1")):
        return f"{row.value:.0f}" if float(row.value).is_integer() else f"{row.value:.2f}"
    if row.unit != "fraction" and fmt in ("pct2", "pct1"):
        fmt = "num4"
    if fmt == "pct2":
        return f"{100 * row.value:.2f}" + (f" [{100 * row.ci_low:.2f}, {100 * row.ci_high:.2f}]" if ci else "")
    if fmt in ("pct1", "x100"):  # one decimal, x100 (fractions in %, scores as e-ViL prints them)
        return f"{100 * row.value:.1f}" + (f" [{100 * row.ci_low:.1f}, {100 * row.ci_high:.1f}]" if ci else "")
    return f"{row.value:.4f}" + (f" [{row.ci_low:.4f}, {row.ci_high:.4f}]" if ci else "")


def _order(values: Iterable[str], labels: Mapping[str, str] | None) -> list[str]:
    values = list(dict.fromkeys(values))
    known = [v for v in (labels or {}) if v in values]
    return known + sorted(v for v in values if v not in (labels or {}))


def _label(layout: Layout, name: str, value: str) -> str:
    if name == "train" and not value:
        return "-"
    found = (layout.labels.get(name) or {}).get(value)
    if found is not None:
        return found
    if name == "metric" and layout.metric_prefix and value.startswith(layout.metric_prefix):
        return value[len(layout.metric_prefix):]
    return readable_spec(value) if name not in ("model", "run_id") else value


def _select(layout: Layout, rows: Iterable[ResultRow], tags: TagIndex) -> list[ResultRow]:
    out = []
    for r in rows:
        if layout.metrics and r.metric not in layout.metrics:
            continue
        if layout.metric_prefix and not r.metric.startswith(layout.metric_prefix):
            continue
        if any(_field(r, k, tags) not in allowed for k, allowed in layout.where.items()):
            continue
        out.append(r)
    return out


def _model_free(layout: Layout, row: ResultRow, tags: TagIndex) -> str | None:
    """The display label of a model-free row (e.g. 'Random'), else None."""
    for name, values in layout.model_free.items():
        value = _field(row, name, tags)
        if value in values:
            return _label(layout, name, value)
    return None


def render_layout(layout: Layout, rows: Sequence[ResultRow], tags: TagIndex, names: Names | None = None
                  ) -> list["Table"]:
    """The tables of one layout over `rows` (all probes' rows may be passed); `names` gives
    metrics the layout does not label their readable names, and the reasons for missing
    intervals."""
    names = names or Names()
    chosen = _select(layout, rows, tags)
    layout = _with_runs(layout, chosen, tags)
    # Rows of one model that the layout would put in one cell (another split, training data,
    # dataset) get a row each, with a column saying which is which: none hides another.
    layout, added = separate_layout(layout, [r for r in chosen if _model_free(layout, r, tags) is None], tags)
    if added:
        what = ", ".join({"train": "training data"}.get(f, f) for f in added)
        heads = ", ".join(f'"{_header(layout, f)}"' for f in added)
        layout = replace(layout, note=" ".join(t for t in (layout.note, (
            f"A model has rows here that differ in {what}: the {heads} column tells them apart.")) if t))
    if "metric" in (*layout.rows, *layout.columns):
        known = layout.labels.get("metric") or {}
        extra = {m: names.metric(m, r.probe) for r in chosen for m in [r.metric] if m not in known
                 and not (layout.metric_prefix and m.startswith(layout.metric_prefix))}
        extra = {m: extra[m] for m in sorted(extra) if extra[m] != m}
        if extra:
            layout = replace(layout, labels={**layout.labels, "metric": {**known, **extra}})
    groups: dict[tuple[str, ...], list[ResultRow]] = {}
    for r in chosen:
        groups.setdefault(tuple(_field(r, f, tags) for f in layout.split_by), []).append(r)
    tables = []
    split_labels = layout.labels.get(layout.split_by[0]) if len(layout.split_by) == 1 else None
    for key in sorted(groups, key=lambda k: (_rank(k[0], split_labels) if split_labels is not None else 0, k)):
        table = _one_table(layout, groups[key], tags, dict(zip(layout.split_by, key)), names)
        if table is not None:
            tables.append(table)
    return tables


def several_runs(rows: Iterable[ResultRow]) -> bool:
    """Whether one model's rows come from more than one run (`--all-runs`): then a table
    shows a row per run, newest first, instead of letting the newest hide the others."""
    runs: dict[str, set[str]] = {}
    for r in rows:
        runs.setdefault(r.model, set()).add(r.run_id)
    return any(len(found) > 1 for found in runs.values())


def _with_runs(layout: Layout, rows: Sequence[ResultRow], tags: TagIndex) -> Layout:
    """`layout` with a "run" row field after the model's when `several_runs` (model-free
    rows, the same in every run, stay one row)."""
    if "model" not in layout.rows or "run_id" in layout.rows:
        return layout
    if not several_runs(r for r in rows if _model_free(layout, r, tags) is None):
        return layout
    at = layout.rows.index("model") + 1
    return replace(layout, rows=(*layout.rows[:at], "run_id", *layout.rows[at:]),
                   names={**layout.names, "run_id": layout.names.get("run_id", "run")})


def _rank(value: str, labels: Mapping[str, str] | None) -> int:
    order = list(labels or {})
    return order.index(value) if value in order else len(order)


def _one_table(layout: Layout, rows: list[ResultRow], tags: TagIndex, split: dict[str, str],
               names: Names) -> "Table | None":
    # Later runs win for the same cell (rows come sorted by run id).
    cells: dict[tuple[tuple[str, ...], tuple[str, ...]], ResultRow] = {}
    row_keys: list[tuple[str, ...]] = []
    col_values: list[tuple[str, ...]] = []
    shared: set[tuple[str, ...]] = set()
    blank = {"model", "train", "run_id", *layout.model_free}  # fields a model-free row does not split by
    for r in sorted(rows, key=lambda r: r.run_id):
        free = _model_free(layout, r, tags)
        if free is not None:
            # One row per reference and per value of the other row fields (e-ViL's GT per
            # task), whatever model or training data the run had.
            rk = tuple(free if i == 0 else "" if f in blank else _field(r, f, tags) for i, f in enumerate(layout.rows))
            shared.add(rk)
        else:
            rk = tuple(_field(r, f, tags) for f in layout.rows)
        ck = tuple(_field(r, f, tags) for f in layout.columns)
        cells[(rk, ck)] = r
        row_keys.append(rk)
        col_values.append(ck)
    if not cells:
        return None
    cols = _ordered_keys(layout, layout.columns, col_values)
    body_keys = [k for k in _ordered_keys(layout, layout.rows, [k for k in row_keys if k not in shared])]
    body_keys += [k for k in dict.fromkeys(row_keys) if k in shared]
    # Fields every row (column) shares are said once, under the title, not in every cell.
    folded: list[str] = []
    keep_rows = [i for i, f in enumerate(layout.rows)
                 if i == 0 or f == "model" or len({k[i] for k in body_keys if k not in shared}) > 1]
    for i, f in enumerate(layout.rows):
        if i not in keep_rows:
            value = next((k[i] for k in body_keys if k not in shared), "")
            if value:
                folded.append(f"{_header(layout, f)}: {_label(layout, f, value)}")
    keep_cols = [i for i, f in enumerate(layout.columns) if len({c[i] for c in cols}) > 1 or len(layout.columns) == 1]
    for i, f in enumerate(layout.columns):
        if i not in keep_cols and cols[0][i]:
            raw = cols[0][i]
            if raw not in split.values():
                folded.append(raw if f in ("data", "task") or "/" in raw else f"{_header(layout, f)}: {_label(layout, f, raw)}")
    all_rows = range(len(layout.rows))
    headers = [_header(layout, layout.rows[i]) for i in all_rows]
    short = list(headers)
    if layout.mean_column:
        headers.append(layout.mean_column)
        short.append(layout.mean_column)

    def col_header(ck: tuple[str, ...], used: Sequence[int]) -> str:
        return " ".join(_label(layout, layout.columns[i], ck[i]) for i in used
                        if ck[i] or len(layout.columns) == 1) or layout.names.get("value") or "value"

    headers += [col_header(ck, range(len(layout.columns))) for ck in cols]
    short += [col_header(ck, keep_cols) for ck in cols]
    if layout.n_column:
        headers.append("n")
        short.append("n")
    body = []
    for rk in body_keys:
        lead = [rk[i] if rk in shared and (i == 0 or not rk[i]) else _label(layout, layout.rows[i], rk[i])
                for i in all_rows]
        values = [cells.get((rk, ck)) for ck in cols]
        line = [format_cell(v, layout.fmt) for v in values]
        why = ["" if v is not None or rk in shared else _na_reason(layout, tags, values, ck, {
            **split, **dict(zip(layout.rows, rk)), **dict(zip(layout.columns, ck))}) for v, ck in zip(values, cols)]
        line = [na_text(w) if w else text for text, w in zip(line, why)]
        sources: list[ResultRow | None] = [None] * len(lead)
        if layout.mean_column:
            meant = [v for v, ck in zip(values, cols)
                     if any(layout.mean_of in _label(layout, f, x) for f, x in zip(layout.columns, ck))]
            picked = [v.value for v in meant if v is not None]
            # A mean over the datasets shown: "-" for a row that lacks one (a mean over fewer
            # datasets is not comparable with the other rows').
            complete = bool(picked) and len(picked) == len(meant)
            lead.append(format_cell(_mean_row(values, picked), layout.fmt) if complete else "-")
            sources.append(None)
        sources += values if rk not in shared else [None] * len(values)  # references are not compared
        if layout.n_column:
            first = next((v for v in values if v is not None), None)
            line.append(str(first.n) if first is not None else "-")
            sources.append(None)
        hints = [""] * len(lead) + why + ([""] if layout.n_column else [])
        body.append((lead, line, values, sources, hints))
    cut = 0
    unranked: dict[str, list[ResultRow]] = {}
    rank_at = 2 if "run_id" in layout.rows else 1  # the rank column: right after the model (and run)
    if layout.extremes:
        # Per model its k most and k least (by the first value), each with its rank column.
        at = rank_at  # which of its model's (run's) rows this is
        kept, cut, unranked = keep_extremes(body, layout.extremes, by=at)
        body = [(b[0][:at] + [rank] + b[0][at:], b[1], b[2], b[3][:at] + [None] + b[3][at:],
                 b[4][:at] + [""] + b[4][at:]) for b, rank in kept]
        headers.insert(at, layout.names.get("rank") or RANK_HEADER)
        short.insert(at, layout.names.get("rank") or RANK_HEADER)
    title = layout.title.format(**{k: _label(layout, k, v) for k, v in split.items()}) if split else layout.title
    title = title.replace(" on  ", " ").rstrip().removesuffix(" on")
    lead_n = len(layout.rows) + (1 if layout.mean_column else 0) + (1 if layout.extremes else 0)
    directions = [""] * lead_n + [_direction([v for b in body for v in [b[2][j]] if v is not None])
                                  for j in range(len(cols))] + ([""] if layout.n_column else [])
    spec = "; ".join([", ".join(v for v in split.values() if v)] + folded).strip("; ")
    inapplicable: dict[str, list[str]] = {}
    for b in body:
        for w in b[4]:
            if w:
                inapplicable.setdefault(w, []).append(b[0][0])
    note = " ".join(t for t in (layout.note, na_note(inapplicable)) if t)
    doubled = still_colliding([r for r in rows if _model_free(layout, r, tags) is None],
                              cell_of((*layout.rows, *layout.columns), tags))
    if doubled:  # rows that differ in none of the fields above: say so rather than hide it
        note += (f" {', '.join(doubled)}: several rows for one cell (they differ in none of the table's fields); "
                 "the cell shows the last one read, results.csv has every row.")
    if unranked:  # rows without a direction are left out of the most / least robust, with the reason
        note += " " + unranked_note(unranked, tags)
    note = " ".join(t for t in (note, interval_note(body, names, layout)) if t)
    return Table(title=title, headers=tuple(headers), body=tuple(tuple(b[0] + b[1]) for b in body),
                 note=note, description=layout.description, reference=layout.reference,
                 probe=rows[0].probe, spec=", ".join(v for v in split.values() if v), directions=tuple(directions),
                 cells=tuple(tuple(b[3]) for b in body), layout_id=layout.id, cut=cut,
                 folded=tuple(i + (1 if layout.extremes and i >= rank_at else 0) for i in all_rows
                              if i not in keep_rows),
                 short_headers=tuple(short), shared=spec,
                 hints=tuple(tuple(b[4]) for b in body) if inapplicable else ())


def _na_reason(layout: Layout, tags: TagIndex, values: Sequence[ResultRow | None], ck: tuple[str, ...],
               cell: Mapping[str, str]) -> str:
    """Why the cell of column `ck` has no row ("n/a", or its row was skipped as invalid): a row
    tag of a sibling cell's task, else of the run's task whose fields are the `cell`'s; or ''."""
    for s in values:
        if s is None:
            continue
        metric = ck[layout.columns.index("metric")] if "metric" in layout.columns else s.metric
        variant = ck[layout.columns.index("variant")] if "variant" in layout.columns else s.variant
        found = tags.get(s, na_tag(metric, variant)) or other_task_reason(layout, tags, s, metric, variant, cell)
        if found:
            return found
    return ""


def _direction(rows: Sequence[ResultRow]) -> str:
    """The column's mark from the rows that have a direction (rows with None have none)."""
    found = {r.higher_is_better for r in rows if r.higher_is_better is not None}
    return direction_mark(found.pop()) if len(found) == 1 else ""


def _mean_row(values: Sequence[ResultRow | None], picked: list[float]) -> ResultRow:
    first = next(v for v in values if v is not None)

    return replace(first, value=sum(picked) / len(picked), ci_low=None, ci_high=None)


def _ordered_keys(layout: Layout, names: Sequence[str], keys: Sequence[tuple[str, ...]]) -> list[tuple[str, ...]]:
    unique = list(dict.fromkeys(keys))
    # Runs newest first (as the cards list them); other fields in label order, then by value.
    newest = {v: -i for i, v in enumerate(sorted({k[names.index("run_id")] for k in unique}))} \
        if "run_id" in names else {}

    def sort_key(k: tuple[str, ...]):
        return tuple((newest[v], v) if n == "run_id" else
                     (_rank(v, layout.labels.get(n)) if n in layout.labels else 0, v) for n, v in zip(names, k))

    return sorted(unique, key=sort_key)


def _header(layout: Layout, name: str) -> str:
    return layout.names.get(name) or {"train": "trained on", "data": "data"}.get(name, name)


def generic_tables(probe: str, rows: Sequence[ResultRow], names: Names | None = None) -> list[Table]:
    """One table per probe: rows = (model, trained on), columns = (data, variant, metric),
    named as the probe names them (`Display`)."""
    names = names or Names()
    shown = [r for r in rows if not any(m in r.metric for m in HIDDEN_MARKERS)]
    if not shown:
        return []
    columns: list[tuple[str, str, str]] = []
    for r in shown:
        key = (f"{r.dataset}/{r.split}", r.variant, r.metric)
        if key not in columns:
            columns.append(key)
    columns.sort(key=lambda c: (c[0], c[1], (c[2].count("/"), c[2])))
    datasets = {c[0] for c in columns}
    variants = {c[1] for c in columns}
    runs = several_runs(shown)  # then a row per run, newest first
    index: dict[tuple[str, ...], dict[tuple[str, str, str], ResultRow]] = {}
    for r in sorted(shown, key=lambda r: r.run_id):
        key = (r.model, r.run_id, r.train) if runs else (r.model, r.train)
        index.setdefault(key, {})[(f"{r.dataset}/{r.split}", r.variant, r.metric)] = r
    headers = ["model", "run", "trained on"] if runs else ["model", "trained on"]
    for data, variant, metric in columns:
        parts = [data] if len(datasets) > 1 else []
        parts += [variant] if len(variants) > 1 and variant else []
        parts.append(names.metric(metric, probe))
        headers.append(" ".join(parts))
    # Per model its runs newest first (run ids sort by time), each run's training data in order.
    keys = sorted(sorted(sorted(index), key=lambda k: k[1], reverse=True), key=lambda k: k[0]) if runs else sorted(index)
    lead = 3 if runs else 2  # model, (run,) trained on
    body = tuple((*k[:-1], k[-1] or "-", *(format_cell(index[k].get(c)) for c in columns)) for k in keys)
    cells = tuple((*[None] * lead, *(index[k].get(c) for c in columns)) for k in keys)
    directions = ("",) * lead + tuple(_direction([index[k][c] for k in keys if c in index[k]]) for c in columns)
    found = missing_intervals([c for k in keys for c in index[k].values()], names)
    note = " ".join(no_interval_sentences(found))
    return [Table(title=names.probe(probe) if names.probe(probe) != probe else f"Probe {probe}",
                  headers=tuple(headers), body=body, probe=probe, directions=directions, cells=cells,
                  spec=", ".join(sorted(datasets)), note=note)]


def build_tables(rows: Sequence[ResultRow], layouts: Mapping[str, Sequence[Layout]],
                 tags: TagIndex | None = None, displays: Mapping[str, Display] | None = None
                 ) -> dict[str, list[Table]]:
    """suite -> tables: each probe's layouts (from the run folders), else the generic pivot.
    Degenerate values (degenerate.py, the probes' `Display.degenerate`) lose their direction
    here, and their table says why; metric names and interval reasons come from `displays`."""
    tags = tags or TagIndex()
    displays = displays or {}
    names = Names(displays, layouts)
    degenerate = degenerate_tasks(rows, displays)
    by_suite_probe: dict[tuple[str, str], list[ResultRow]] = {}
    for r in neutralize(rows, degenerate):
        by_suite_probe.setdefault((r.suite, r.probe), []).append(r)
    out: dict[str, list[Table]] = {}
    for (suite, probe), group in sorted(by_suite_probe.items()):
        declared = layouts.get(probe)
        if declared:
            tables = [t for layout in declared for t in render_layout(layout, group, tags, names)]
        else:
            tables = generic_tables(probe, group, names)
        out.setdefault(suite, []).extend(note_degenerate(t, degenerate) for t in tables)
    return out


