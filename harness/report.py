"""The run report (report.md): headline numbers, sections from probes, what is missing.
Questions, answers, model specs and error messages are user text, escaped as the leaderboard
does: a `<script>` in a question shows as text in any markdown viewer, not as raw HTML, and a
`|` or a newline cannot break a table or a list."""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from .display import Display
from .specs import readable_spec
from .types import ResultRow

__all__ = ["render_report", "headline_rows", "format_value", "escape_markdown", "md_cell", "md_code",
           "data_count_line"]

#: A '<' that could open raw HTML in markdown (a tag, a closing tag, a comment, an autolink).
_TAG_OPEN = re.compile(r"<(?=[A-Za-z/!?])")
#: A '&' that starts an HTML entity ("&amp;", "&#39;"), which markdown would show as its character.
_ENTITY_START = re.compile(r"&(?=#?\w+;)")


def escape_markdown(text: str) -> str:
    """Markdown with no raw HTML: every '<' that could open a tag becomes `&lt;`."""
    return _TAG_OPEN.sub("&lt;", str(text))


def _one_line(value: Any) -> str:
    return " ".join(str(value).split())


_MARKS = re.compile(r"[\\`*]|_+")


def _escape_marks(match: "re.Match[str]") -> str:  # "__init__": every "_" ("\_\_init_\_" made _init_ emphasis)
    text, a, b = match.string, match.start(), match.end()
    inside = text[a] == "_" and 0 < a and b < len(text) and text[a - 1].isalnum() and text[b].isalnum()
    return match.group() if inside else "".join("\\" + c for c in match.group())


def md_cell(value: Any) -> str:
    """User text for a table cell or a list item: one line, `|` escaped, no raw HTML, no link
    (a "](" is escaped, so `[x](http://...)` in a model spec stays text), an entity shown as
    typed (a crowd worker's "&amp;" stays "&amp;", not "&"), `\\ *`, backticks and each `_`
    of a run not between two letters or digits escaped with a backslash (no emphasis, no code
    span; `vqa_accuracy` stays as typed: CommonMark opens no emphasis inside a word with `_`)."""
    text = _MARKS.sub(_escape_marks, _ENTITY_START.sub("&amp;", _one_line(value)))
    return escape_markdown(text.replace("|", "\\|").replace("](", "]\\("))


def md_code(value: Any) -> str:
    """User text as an inline code span (a backtick in it cannot close the span; a tag-like
    '<' is escaped too, so the file holds no raw tag even for viewers that ignore spans)."""
    return "`" + escape_markdown(_one_line(value).replace("`", "'")) + "`"


def data_count_line(accepted: Mapping[str, Any]) -> str:
    """A dataset's manifest `data_counts` entry as one line: its `note`, else its fields."""
    return md_cell(accepted.get("note") or "; ".join(f"{k}={v}" for k, v in accepted.items()))


def format_value(row: ResultRow) -> str:
    """Proportions as percentages with 2 decimals (as the VQA papers print them), other values
    with 4, whole counts with none (a mean count with 2, as the leaderboard prints it); the
    interval in brackets."""
    if row.unit == "count":
        return f"{row.value:.0f}" if float(row.value).is_integer() else f"{row.value:.2f}"
    scale, fmt = (100, ".2f") if row.unit == "fraction" else (1, ".4f")
    text = format(scale * row.value, fmt)
    if row.ci_low is not None and row.ci_high is not None:
        text += f" [{scale * row.ci_low:{fmt}}, {scale * row.ci_high:{fmt}}]"
    return text


#: Headline rows per probe and task for probes that declare no `headline`.
OTHER_HEADLINES = 3


def headline_rows(rows: Sequence[ResultRow], headlines: Mapping[str, Sequence[Sequence[str]]]) -> list[ResultRow]:
    """The few rows per probe and task that say most (each probe's `headline`), in run order;
    the same number from two probes once (accuracy and balanced-accuracy share predictions)."""
    groups: dict[tuple[str, str, str, str], list[ResultRow]] = {}
    for r in rows:
        groups.setdefault((r.probe, r.dataset, r.split, r.train), []).append(r)
    out: list[ResultRow] = []
    for (probe, *_), found in groups.items():
        wanted = headlines.get(probe)
        if not wanted:
            out += [r for r in found if "/" not in r.metric][:OTHER_HEADLINES]
            continue
        for metric, variant in wanted:
            out += [r for r in found if r.metric == metric and (variant == "*" or r.variant == variant)]
    unique: dict[tuple, ResultRow] = {}
    for r in out:
        unique.setdefault((r.dataset, r.split, r.train, r.variant, r.metric, r.value, r.n), r)
    return list(unique.values())


def _named(name: str, id_: str) -> str:
    """A readable name, then its id as results.jsonl holds it (in code marks) when they differ."""
    return md_cell(name) if name == id_ else f"{md_cell(name)} {md_code(id_)}"


def _metric_name(displays: Mapping[str, Display], probe: str, metric: str) -> str:
    """The metric's name in its probe's display, else in any probe's that names it, else its id."""
    for display in (displays.get(probe), *displays.values()):
        name = display.metric_name(metric) if display else ""
        if name:
            return name
    return metric


def render_report(
    manifest: dict[str, Any],
    rows: Sequence[ResultRow],
    sections: Sequence[str],
    missing: Sequence[tuple[str, str, str]],
    skipped: Sequence[tuple[str, str, str]],
    failures: Sequence[dict[str, str]],
    example_errors: Sequence[tuple[str, str, str]],
    headlines: Mapping[str, Sequence[Sequence[str]]] | None = None,
    displays: Mapping[str, Display] | None = None,
) -> str:
    """report.md; the headline table names probes and metrics as `displays` (`Probe.display()`)
    do and data as `readable_spec`, as `harness run` prints them, each with its id."""
    from tabulate import tabulate  # heavy: tabulate takes about 60 ms; only text tables need it

    m = {k: md_cell(v) for k, v in manifest.items() if isinstance(v, (str, int, float)) or v is None}
    out = [f"# Run {m.get('run_id', '')}\n"]
    out.append(f"- model: {md_code(manifest.get('model'))} ({m.get('model_plugin', '')})\n"
               f"- suite: {md_code(manifest.get('suite'))}; seed {m.get('seed')}; "
               f"device {m.get('device')}\n"
               f"- status: **{m.get('status')}**; harness "
               f"{md_cell(manifest.get('versions', {}).get('vqa-harness'))}, "
               f"git {md_cell(str(manifest.get('git_commit') or '-')[:12])}\n"
               f"- fractions are shown as percentages; brackets are 95% confidence intervals\n")
    stats = manifest.get("stats") or {}
    if stats:
        out.append("- model calls {}, cache hits {}, example errors {}\n".format(
            *(stats.get(k, 0) for k in ("model_calls", "cache_hits", "example_errors"))))
    usage = manifest.get("usage") or {}
    if usage:  # a served model's requests and tokens (Model.usage)
        out.append("- model usage: " + ", ".join(f"{md_cell(k)} {md_cell(v)}" for k, v in usage.items()) + "\n")
    counts = manifest.get("data_counts") or {}
    if counts:
        out.append("\n## Data accepted under lenient policies\n\n")
        out.extend(f"- {md_code(key)}: {data_count_line(c)}\n" for key, c in counts.items())
    headline = headline_rows(rows, headlines or {})
    if headline:
        shown = displays or {}
        table = [[_named(readable_spec(f"{r.dataset}/{r.split}"), f"{r.dataset}/{r.split}"),
                  _named(readable_spec(r.train), r.train) if r.train else "-",
                  _named(getattr(shown.get(r.probe), "title", "") or r.probe, r.probe), md_cell(r.variant or "-"),
                  _named(_metric_name(shown, r.probe, r.metric), r.metric), format_value(r), r.n] for r in headline]
        out.append(f"\n## Headline numbers\n\n{len(headline)} of {len(rows)} rows: the few that matter per probe; "
                   "every row is in results.jsonl, under the ids in code marks.\n\n")
        out.append(tabulate(table, headers=["data", "trained on", "probe", "variant", "metric", "value", "n"],
                            tablefmt="github", disable_numparse=True) + "\n")
    for title, items in (("Metrics not computed", missing), ("Probes skipped", skipped)):
        if items:
            out.append(f"\n## {title}\n\n")
            out.extend(f"- {md_cell(task)}: {md_code(name)} — {md_cell(reason)}\n"
                       for task, name, reason in items)
    if failures:
        out.append("\n## Probe failures\n\n")
        out.extend(f"- {md_cell(f['task'])}: probe {md_code(f['probe'])} (plugin {md_cell(f['plugin'])}): "
                   f"{md_cell(f['message'])}\n" for f in failures)
    if example_errors:
        out.append(f"\n## Example errors (first {len(example_errors)})\n\n")
        out.extend(f"- {md_code(ex)} ({md_cell(asking)}): {md_cell(err)}\n" for ex, asking, err in example_errors)
    if sections:
        # Probe sections are markdown (tables, lists) holding questions and answers: raw HTML
        # in them is escaped; their structure is the probe's.
        out.append("\n## Details\n\n")
        out.extend(escape_markdown(s) + "\n" for s in sections)
    return "".join(out)
