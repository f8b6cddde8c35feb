"""The run report (report.md): headline numbers, sections from probes, what is missing."""

from __future__ import annotations

from typing import Any, Sequence

from .types import ResultRow

__all__ = ["render_report", "format_value"]


def format_value(row: ResultRow) -> str:
    """Proportions as percentages with 2 decimals (as the VQA papers print them)."""
    if row.unit == "fraction":
        text = f"{100 * row.value:.2f}"
        if row.ci_low is not None and row.ci_high is not None:
            text += f" [{100 * row.ci_low:.2f}, {100 * row.ci_high:.2f}]"
        return text
    if row.unit == "count":
        return f"{row.value:.0f}"
    text = f"{row.value:.4f}"
    if row.ci_low is not None and row.ci_high is not None:
        text += f" [{row.ci_low:.4f}, {row.ci_high:.4f}]"
    return text


def render_report(
    manifest: dict[str, Any],
    rows: Sequence[ResultRow],
    sections: Sequence[str],
    missing: Sequence[tuple[str, str, str]],
    skipped: Sequence[tuple[str, str, str]],
    failures: Sequence[dict[str, str]],
    example_errors: Sequence[tuple[str, str]],
) -> str:
    from tabulate import tabulate

    out = [f"# Run {manifest.get('run_id', '')}\n"]
    out.append(
        f"- model: `{manifest.get('model')}` ({manifest.get('model_plugin', '')})\n"
        f"- suite: `{manifest.get('suite')}`; seed {manifest.get('seed')}; device {manifest.get('device')}\n"
        f"- status: **{manifest.get('status')}**; harness {manifest.get('versions', {}).get('vqa-harness')}, "
        f"git {str(manifest.get('git_commit') or '-')[:12]}\n"
        f"- fractions are shown as percentages; brackets are 95% confidence intervals\n"
    )
    stats = manifest.get("stats") or {}
    if stats:
        out.append(
            f"- model calls {stats.get('model_calls', 0)}, cache hits {stats.get('cache_hits', 0)}, "
            f"example errors {stats.get('example_errors', 0)}\n"
        )
    headline = [r for r in rows if "/" not in r.metric]
    if headline:
        table = [
            [f"{r.dataset}/{r.split}", r.train or "-", r.probe, r.variant or "-", r.metric, format_value(r), r.n]
            for r in headline
        ]
        out.append("\n## Headline numbers\n\n")
        out.append(tabulate(table, headers=["data", "trained on", "probe", "variant", "metric", "value", "n"],
                            tablefmt="github") + "\n")
    if missing:
        out.append("\n## Metrics not computed\n\n")
        out.extend(f"- {task}: `{metric}` — {reason}\n" for task, metric, reason in missing)
    if skipped:
        out.append("\n## Probes skipped\n\n")
        out.extend(f"- {task}: `{probe}` — {reason}\n" for task, probe, reason in skipped)
    if failures:
        out.append("\n## Probe failures\n\n")
        out.extend(f"- {f['task']}: probe `{f['probe']}` (plugin {f['plugin']}): {f['message']}\n" for f in failures)
    if example_errors:
        out.append(f"\n## Example errors (first {len(example_errors)})\n\n")
        out.extend(f"- `{ex}`: {err}\n" for ex, err in example_errors)
    if sections:
        out.append("\n## Details\n\n")
        out.extend(s + "\n" for s in sections)
    return "".join(out)
