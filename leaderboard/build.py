"""Collect result rows and write the leaderboard files."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import fields, replace
from pathlib import Path

from harness.api import Table
from harness.names import SCHEMA_VERSION
from harness.types import ResultRow

from .files import write_public as atomic_write_text
from .tables import generic_tables

__all__ = ["RowProblem", "build_leaderboard", "collect_rows"]

REQUIRED = {f.name for f in fields(ResultRow)} - {"ci_low", "ci_high", "unit", "train", "higher_is_better"}


class RowProblem(str):
    """'file:line: message' for a skipped result row."""


def _run_dirs(inputs: Iterable[Path]) -> list[Path]:
    """Run folders among `inputs` (a run folder itself, or a folder of runs)."""
    found = []
    for path in inputs:
        path = Path(path)
        if (path / "results.jsonl").is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if (p / "results.jsonl").is_file()))
    return sorted(set(found))


def collect_rows(inputs: Iterable[Path], *, latest_only: bool = True) -> tuple[list[ResultRow], list[RowProblem]]:
    """Valid rows of the given runs (latest run per (model, suite) unless told otherwise)."""
    rows: list[ResultRow] = []
    problems: list[RowProblem] = []
    for run in _run_dirs(inputs):
        path = run / "results.jsonl"
        with open(path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    data = json.loads(line)
                except json.JSONDecodeError as exc:
                    problems.append(RowProblem(f"{path}:{lineno}: not JSON ({exc.msg})"))
                    continue
                missing = sorted(REQUIRED - set(data)) if isinstance(data, dict) else ["(not an object)"]
                if missing:
                    problems.append(RowProblem(f"{path}:{lineno}: missing field(s) {', '.join(missing)}"))
                    continue
                if data["schema_version"] != SCHEMA_VERSION:
                    problems.append(RowProblem(f"{path}:{lineno}: unknown schema_version {data['schema_version']!r}"))
                    continue
                rows.append(ResultRow.from_json(data))
    if latest_only:
        latest: dict[tuple[str, str], str] = {}
        for r in rows:
            key = (r.model, r.suite)
            latest[key] = max(latest.get(key, ""), r.run_id)
        rows = [r for r in rows if latest[(r.model, r.suite)] == r.run_id]
    return rows, problems


def render_markdown(table: Table) -> str:
    """A table as a github-style markdown section."""
    from tabulate import tabulate

    text = f"### {table.title}\n\n"
    text += tabulate([list(r) for r in table.body], headers=list(table.headers), tablefmt="github",
                     disable_numparse=True)
    if table.note:
        text += f"\n\n{table.note}"
    return text + "\n"


def build_tables(rows: Sequence[ResultRow]) -> dict[str, list[Table]]:
    """suite -> tables; a probe's own `tables()` layout when it has one, else generic."""
    by_suite_probe: dict[tuple[str, str], list[ResultRow]] = {}
    for r in rows:
        by_suite_probe.setdefault((r.suite, r.probe), []).append(r)
    probes = _probe_classes()
    out: dict[str, list[Table]] = {}
    for (suite, probe), group in sorted(by_suite_probe.items()):
        cls = probes.get(probe)
        failed = ""
        try:
            tables = cls.tables(group) if cls is not None else None
        except Exception as exc:  # a plugin's layout bug must not take the leaderboard down
            tables, failed = None, f"{type(exc).__name__}: {exc}"
        if tables is None:
            tables = generic_tables(probe, group)
            if failed and tables:
                tables[0] = replace(tables[0], note=f"probe {probe!r} tables() failed ({failed}); generic layout shown")
        out.setdefault(suite, []).extend(tables)
    return out


def _probe_classes() -> dict[str, type]:
    try:
        from harness.plugins import get_host

        return {e.name: e.obj for e in get_host().probes}
    except Exception:  # the leaderboard still builds generic tables without plugins
        return {}


def build_leaderboard(inputs: Iterable[Path], out: Path, *, latest_only: bool = True) -> list[Path]:
    """Write index.md, <suite>.md, results.csv, results.json, problems.txt and the static
    site (index.html, charts/*.svg, run-reports/*.html) under `out`."""
    from .site import write_site

    out = Path(out)
    inputs = [Path(p) for p in inputs]
    rows, problems = collect_rows(inputs, latest_only=latest_only)
    rows.sort(key=lambda r: (r.suite, r.probe, r.model, r.train, r.dataset, r.split, r.variant, r.metric, r.run_id))
    written: list[Path] = []
    tables = build_tables(rows)
    index = ["# vqa-harness leaderboard\n",
             "Fractions are shown as percentages; `±` columns in CSV/JSON hold 95% intervals.\n"]
    if not rows:
        index.append("\nNo runs found yet: run `harness run --model M --suite S` first.\n")
    for suite, suite_tables in tables.items():
        body = f"## Suite `{suite}`\n\n" + "\n".join(render_markdown(t) for t in suite_tables)
        path = out / f"{suite}.md"
        atomic_write_text(path, f"# Suite `{suite}`\n\n" + "\n".join(render_markdown(t) for t in suite_tables))
        written.append(path)
        index.append("\n" + body)
    if problems:
        index.append(f"\n{len(problems)} result row(s) were skipped; see problems.txt.\n")
    atomic_write_text(out / "index.md", "".join(index))
    written.append(out / "index.md")
    header = [f.name for f in fields(ResultRow)]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow(r.to_json())
    atomic_write_text(out / "results.csv", buf.getvalue())
    atomic_write_text(out / "results.json", json.dumps([r.to_json() for r in rows], indent=1, sort_keys=True) + "\n")
    atomic_write_text(out / "problems.txt", "".join(p + "\n" for p in problems))
    written += [out / "results.csv", out / "results.json", out / "problems.txt"]
    run_dirs = {p.name: p for p in _run_dirs(inputs)}
    written += write_site(rows, problems, tables, run_dirs, out, [str(p) for p in inputs])
    return written
