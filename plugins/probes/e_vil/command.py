"""`harness nle sample` / `harness nle import`: the e-ViL human evaluation round trip.

    harness nle sample runs/<run-id> [--task STEM] [--n 300] [--seed 0] [--out sample.csv]
    harness nle import runs/<run-id> filled1.csv filled2.csv ... [--task STEM] [--append-results]

Both read what the `nle` probe left in `runs/<run-id>/artifacts/nle/` (one `<task>.jsonl`
with per-example answers, explanations and automatic scores, and `<task>.meta.json`).
See docs/e-vil.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from harness.errors import DataError, UsageError

__all__ = ["nle"]


@click.group()
def nle() -> None:
    """Human evaluation of natural-language explanations (e-ViL)."""


def _task(run: Path, task: str | None) -> tuple[Path, dict]:
    folder = run / "artifacts" / "nle"
    metas = sorted(folder.glob("*.meta.json")) if folder.is_dir() else []
    if not metas:
        raise DataError(f"{run}: no `nle` probe output (expected {folder}/<task>.meta.json); "
                        "run a suite with the nle probe first (e.g. --suite e-vil)")
    stems = [m.name[: -len(".meta.json")] for m in metas]
    if task is None:
        if len(stems) > 1:
            raise UsageError(f"{run} has several nle tasks; pick one with --task: {', '.join(stems)}")
        task = stems[0]
    if task not in stems:
        raise UsageError(f"no nle task {task!r} in {run}; tasks: {', '.join(stems)}")
    meta_path = folder / f"{task}.meta.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"{meta_path}: unreadable ({exc})") from None
    return folder / f"{task}.jsonl", meta


def _records(path: Path) -> list[dict]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None
    out = []
    for i, line in enumerate(lines, start=1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}: row {i}: not valid JSON ({exc.msg})") from None
    return out


@nle.command("sample")
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--task", default=None, help="Task stem (artifacts/nle/<task>.jsonl) when the run has several.")
@click.option("--n", "n", type=click.IntRange(min=1), default=300, show_default=True,
              help="Explanations to sample (the paper: 300).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the shuffle.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="CSV to write (default: artifacts/nle/<task>.sample.csv in the run).")
def sample(run: Path, task: str | None, n: int, seed: int, out: Path | None) -> None:
    """Write the annotation sample: seeded shuffle, first N correctly answered, unique images."""
    from vqa_harness_plugins.probes.e_vil.human import draw_sample, write_sample_csv

    path, meta = _task(run, task)
    records = _records(path)
    chosen = draw_sample(records, n=n, seed=seed)
    if not chosen:
        raise DataError(f"{path}: no correctly answered example with an explanation to sample")
    out = out or path.with_name(path.name[: -len(".jsonl")] + ".sample.csv")
    write_sample_csv(out, chosen)
    click.echo(f"{out}: {len(chosen)} explanations (of {sum(1 for r in records if r.get('correct'))} "
               f"correctly answered; seed {seed}). Give each annotator a copy; they fill `annotator`, "
               "`rating` (yes / weak yes / weak no / no) and mark shortcomings with x.")


@nle.command("import")
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("filled", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--task", default=None, help="Task stem when the run has several nle tasks.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="JSON summary (default: artifacts/nle/<task>.human.json in the run).")
@click.option("--append-results", is_flag=True,
              help="Also add the human rows (variant 'human') to the run's results.jsonl.")
def import_(run: Path, filled: tuple[Path, ...], task: str | None, out: Path | None, append_results: bool) -> None:
    """Read filled annotation CSVs; print human S_E / S_O, shortcomings and correlations."""
    from harness.runstore import atomic_write_json, read_results, write_jsonl
    from vqa_harness_plugins.probes.e_vil.human import read_ratings, render_markdown, summarize

    path, meta = _task(run, task)
    records = _records(path)
    ratings = read_ratings(list(filled), known_ids={r["id"] for r in records})
    summary = summarize(records, ratings, float(meta["s_t"]))
    click.echo(render_markdown(summary, f"{meta.get('model', '')} on {meta['dataset']}/{meta['split']}"))
    rows = human_rows(meta, summary)
    out = out or path.with_name(path.name[: -len(".jsonl")] + ".human.json")
    atomic_write_json(out, {"meta": meta, "s_e": summary.s_e, "s_o": summary.s_o, "s_t": summary.s_t,
                            "n_items": summary.n_items, "n_ratings": summary.n_ratings,
                            "shortcomings": dict(summary.shortcomings),
                            "correlations": {m: {"rho": r, "p": p, "n": k} for m, (r, p, k) in summary.correlations.items()},
                            "unavailable": dict(summary.unavailable), "rows": [r.to_json() for r in rows]})
    click.echo(f"wrote {out}")
    if append_results:
        results = run / "results.jsonl"
        kept = [r for r in (read_results(results) if results.is_file() else [])
                if not (r.variant == "human" and r.dataset == meta["dataset"] and r.split == meta["split"])]
        write_jsonl(results, (r.to_json() for r in kept + rows))
        click.echo(f"appended {len(rows)} rows to {results}")


def human_rows(meta: dict, summary) -> list:
    """Result rows (variant "human") for the human scores, shortcomings and correlations."""
    from harness.types import ResultRow
    from vqa_harness_plugins.probes.e_vil.human import SHORTCOMINGS

    def row(metric, value, n, unit, hib=True):
        return ResultRow(run_id=meta.get("run_id", ""), model=meta.get("model", ""), suite=meta.get("suite", ""),
                         dataset=meta["dataset"], split=meta["split"], probe="nle", variant="human",
                         metric=metric, value=float(value), n=int(n), higher_is_better=hib, unit=unit,
                         train=meta.get("train", ""))

    s = summary
    rows = [row("s_e/human", s.s_e, s.n_items, "score"), row("s_o/human", s.s_o, s.n_items, "score")]
    rows += [row(f"shortcoming/{c}", s.shortcomings[c], s.n_ratings, "fraction", hib=False) for c, _ in SHORTCOMINGS]
    rows += [row(f"spearman/{m}", rho, n, "correlation") for m, (rho, _, n) in s.correlations.items()]
    return rows
