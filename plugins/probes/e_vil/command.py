"""`harness nle sample` / `harness nle import`: the e-ViL human evaluation round trip.

    harness nle sample runs/<run-id> [--task STEM] [--n 300] [--seed 0] [--out sample.csv]
    harness nle import runs/<run-id> filled1.csv filled2.csv ... [--task STEM] [--append-results]

Both read what the `nle` probe left under `runs/<run-id>/artifacts/nle/` (one `<task>.jsonl`
with per-example answers, explanations and automatic scores, and `<task>.meta.json`).
See docs/e-vil.md.
"""

from __future__ import annotations

import csv
from pathlib import Path

import click

from harness.errors import DataError, UsageError
from harness.fileio import atomic_write_json, describe, fail, write_jsonl
from harness.folders import check_folder_links, check_writable_file
from harness.jsonio import jsonl_records, read_json
from harness.rundir import RunDir
from harness.seeding import MAX_SEED
from harness.specs import Place
from harness.types import ResultRow
from vqa_harness_plugins.probes.e_vil.human import (
    SHORTCOMINGS,
    draw_sample,
    missing_rows,
    read_ratings,
    render_markdown,
    summarize,
    write_sample_csv,
)
from vqa_harness_plugins.validation import Field, check_number, check_object, check_record

__all__ = ["nle"]


@click.group()
def nle() -> None:
    """Human evaluation of natural-language explanations (e-ViL)."""


def _task(run: Path, task: str | None) -> tuple[Path, dict]:
    """The records file and meta of one nle task of a run. The probe writes them under
    `artifacts/nle/<dataset>/<split>/<task>/` (harness.rundir); a task is named by the file
    stem (`<dataset>-<split>`), or by its folder path when two tasks share a stem."""
    folder = run / "artifacts" / "nle"
    metas = sorted(folder.rglob("*.meta.json")) if folder.is_dir() else []
    if not metas:
        raise DataError(f"{run}: no `nle` probe output (expected {folder}/.../<task>.meta.json); "
                        "run a suite with the nle probe first (e.g. --suite e-vil)")
    stems = [m.name[: -len(".meta.json")] for m in metas]
    names = [s if stems.count(s) == 1 else m.relative_to(folder).as_posix()[: -len(".meta.json")]
             for s, m in zip(stems, metas)]
    if task is None:
        if len(names) > 1:
            raise UsageError(f"{run} has several nle tasks; pick one with --task: {', '.join(names)}")
        task = names[0]
    if task not in names:
        raise UsageError(f"no nle task {task!r} in {run}; tasks: {', '.join(names)}")
    meta_path = metas[names.index(task)]
    meta = check_record(read_json(meta_path, "written by the nle probe"), META, meta_path, "")
    if not 0.0 <= meta["s_t"] <= 1.0:  # a fraction (accuracy); 61.9 would make S_O = 61.9 * S_E
        raise fail(meta_path, "", f"expected a fraction in [0, 1], got {meta['s_t']}", "s_t")
    return meta_path.with_name(meta_path.name[: -len(".meta.json")] + ".jsonl"), meta


def _check_out(out: Path | None, run: Path, default: Path, inputs: tuple[Path, ...] = ()) -> Path:
    """`out`, or `default` when None. An --out inside the run folder (its records, results,
    manifest, artifacts) other than the default, or naming one of the input files, is a
    UsageError before anything is read: writing there would replace data with the summary."""
    if out is None:
        return default
    check_folder_links(out.expanduser(), "--out")  # resolve() cannot follow a link loop
    target = out.expanduser().resolve()
    if target != default.resolve():
        if target == run.resolve() or run.resolve() in target.parents:
            raise UsageError(f"--out {out} is inside the run folder {run} (it would overwrite the run's own files); "
                             f"write it outside the run, or leave --out out (default: {default})")
        for path in inputs:
            if target == path.resolve():
                raise UsageError(f"--out {out} is one of the input files; choose another file")
    check_writable_file(out)
    return out


def _keep_ratings(out: Path, what: str) -> None:
    """UsageError when `out` is a CSV holding filled ratings: annotators' work cannot be
    recomputed, so it is never replaced by an output."""
    rated = _ratings_in(out)
    if rated:
        raise UsageError(f"--out {out} holds {rated} filled rating(s) (an annotator's copy?); "
                         f"write {what} to another file, or remove that one first")


def _ratings_in(path: Path) -> int:
    """How many rows of an existing CSV at `path` have a `rating` filled in (0 when there is
    no such file or it is not a readable CSV with that column)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            return sum(1 for row in csv.DictReader(fh) if (row.get("rating") or "").strip())
    except (OSError, UnicodeError, csv.Error):
        return 0


#: What the nle probe writes: `<task>.meta.json` and one record per example in `<task>.jsonl`.
META = {"dataset": Field("str"), "split": Field("str"), "s_t": Field("number")}
RECORD = {"id": Field("text")}


def _records(path: Path) -> list[dict]:
    """The probe's per-example records; the fields the sample and the summary read are
    checked (a `correct` of "false" would be sampled as correct, a text score ends Spearman)."""
    out = []
    for row, item in jsonl_records(path, "written by the nle probe"):
        check_record(item, RECORD, path, f"row {row}")
        if not isinstance(item.get("correct", False), bool):
            raise fail(path, f"row {row}", f"expected true or false, got {describe(item['correct'])}", "correct")
        if "explanation" in item and not isinstance(item["explanation"], str):
            raise fail(path, f"row {row}", f"expected text, got {describe(item['explanation'])}", "explanation")
        scores = item.get("scores")
        if scores is not None:
            check_object(scores, path, f"row {row}", "scores")
            for metric, value in scores.items():
                check_number(value, path, f"row {row}", f"scores.{metric}")
        out.append(item)
    return out


@nle.command("sample")
@click.argument("run", type=Place(exists=True, file_okay=False, path_type=Path))
@click.option("--task", default=None, help="Task stem (artifacts/nle/.../<task>.jsonl) when the run has several.")
@click.option("--n", "n", type=click.IntRange(min=1), default=300, show_default=True,
              help="Explanations to sample (the paper: 300).")
@click.option("--seed", type=click.IntRange(min=0, max=MAX_SEED), default=0,
              show_default=True, help="Seed of the shuffle.")
@click.option("--out", type=Place(dir_okay=False, path_type=Path), default=None,
              help="CSV to write (default: beside artifacts/nle/.../<task>.jsonl in the run; no other path inside the run).")
def sample(run: Path, task: str | None, n: int, seed: int, out: Path | None) -> None:
    """Write the annotation sample: seeded shuffle, first N correctly answered, unique images."""
    path, meta = _task(run, task)
    out = _check_out(out, run, path.with_name(path.name[: -len(".jsonl")] + ".sample.csv"))
    _keep_ratings(out, "the sample")
    records = _records(path)
    chosen = draw_sample(records, n=n, seed=seed)
    if not chosen:
        raise DataError(f"{path}: no correctly answered example with an explanation to sample")
    write_sample_csv(out, chosen)
    click.echo(f"{out}: {len(chosen)} explanations (of {sum(1 for r in records if r.get('correct'))} "
               f"correctly answered; seed {seed}). Give each annotator a copy; they fill `annotator`, "
               "`rating` (yes / weak yes / weak no / no) and mark shortcomings with x.")


@nle.command("import")
@click.argument("run", type=Place(exists=True, file_okay=False, path_type=Path))
@click.argument("filled", nargs=-1, required=True, type=Place(exists=True, dir_okay=False, path_type=Path))
@click.option("--task", default=None, help="Task stem when the run has several nle tasks.")
@click.option("--out", type=Place(dir_okay=False, path_type=Path), default=None,
              help="JSON summary (default: beside artifacts/nle/.../<task>.jsonl in the run; no other path inside the run).")
@click.option("--append-results", is_flag=True,
              help="Also add the human rows (variant 'human') to the run's results.jsonl.")
def import_(run: Path, filled: tuple[Path, ...], task: str | None, out: Path | None, append_results: bool) -> None:
    """Read filled annotation CSVs; print human S_E / S_O, shortcomings and correlations."""
    path, meta = _task(run, task)
    out = _check_out(out, run, path.with_name(path.name[: -len(".jsonl")] + ".human.json"), filled)
    _keep_ratings(out, "the summary")
    writer = RunDir(run).writer() if append_results else None
    if writer is not None:  # its results.jsonl is still being written: rows added now could be lost
        raise DataError(f"{run} is still being written (process {writer or '?'}); add the human rows with "
                        "--append-results once that run has ended")
    records = _records(path)
    ratings = read_ratings(list(filled), known={r["id"]: r for r in records})
    summary = summarize(records, ratings, float(meta["s_t"]))
    for line in missing_rows(ratings):
        click.echo(line, err=True)
    click.echo(render_markdown(summary, f"{meta.get('model', '')} on {meta['dataset']}/{meta['split']}"))
    rows = human_rows(meta, summary)
    atomic_write_json(out, {"meta": meta, "s_e": summary.s_e, "s_o": summary.s_o, "s_t": summary.s_t,
                            "n_items": summary.n_items, "n_ratings": summary.n_ratings,
                            "ratings_per_item": dict(zip(("min", "max"), summary.ratings_per_item)),
                            "shortcomings": dict(summary.shortcomings),
                            "correlations": {m: {"rho": r, "p": p, "n": k} for m, (r, p, k) in summary.correlations.items()},
                            "unavailable": dict(summary.unavailable), "rows": [r.to_json() for r in rows]})
    click.echo(f"wrote {out}")
    if append_results:
        results = run / "results.jsonl"
        # Replace this task's human rows only: a task is its data and its training set (two
        # tasks of one run may share dataset and split after different training sets).
        kept = [r for r in (_result_rows(results) if results.is_file() else [])
                if not (r.variant == "human" and r.dataset == meta["dataset"] and r.split == meta["split"]
                        and r.train == meta.get("train", ""))]
        write_jsonl(results, (r.to_json() for r in kept + rows))
        click.echo(f"appended {len(rows)} rows to {results}")


def _result_rows(path: Path) -> list:
    """The run's result rows; a bad line is one line naming the file and the row (the file
    is rewritten with the human rows added, so nothing in it may be dropped silently)."""

    rows = []
    for row, item in jsonl_records(path, "the run's results", allow_empty=True):
        check_record(item, RESULT, path, f"row {row}")
        try:
            rows.append(ResultRow.from_json(item))
        except TypeError as exc:
            raise DataError(f"{path}: row {row}: not a result row ({exc})") from None
    return rows


RESULT = {"metric": Field("text"), "value": Field("number"), "n": Field("int"), "dataset": Field("str"),
          "split": Field("str"), "variant": Field("str")}


def human_rows(meta: dict, summary) -> list:
    """Result rows (variant "human") for the human scores, shortcomings and correlations."""
    def row(metric, value, n, unit, hib=True):
        return ResultRow(run_id=meta.get("run_id", ""), model=meta.get("model", ""), suite=meta.get("suite", ""),
                         dataset=meta["dataset"], split=meta["split"], probe="nle", variant="human",
                         metric=metric, value=float(value), n=int(n), higher_is_better=hib, unit=unit,
                         train=meta.get("train", ""))

    s = summary
    rows = [row("s_e/human", s.s_e, s.n_items, "score"), row("s_o/human", s.s_o, s.n_items, "score")]
    rows += [row(f"shortcoming/{c}", s.shortcomings[c], s.n_ratings, "fraction", hib=False) for c, _ in SHORTCOMINGS]
    # A correlation says how far a metric is to be trusted, not which model is better: no direction.
    rows += [row(f"spearman/{m}", rho, n, "correlation", hib=None) for m, (rho, _, n) in s.correlations.items()]
    return rows
