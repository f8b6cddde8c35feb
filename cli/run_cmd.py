"""`harness run` (also under torchrun: `torchrun --nproc_per_node=N -m vqa_harness_cli run ...`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from harness.errors import ExitCode
from harness.host import get_host
from harness.paths import DEFAULT_LEADERBOARD, DEFAULT_RUNS
from harness.run import RunConfig
from harness.seeding import MAX_SEED
from harness.specs import Place, check_spec_names

from .launch import run_models
from .publish import check_output_folder
from .suitefiles import suite_from_command_line

__all__ = ["run"]


@click.command()
@click.option("--model", "models", multiple=True, required=True, callback=check_spec_names,
              help="Model spec NAME[:key=value,...]; repeat to run several models.")
@click.option("--suite", "suites", multiple=True, required=True, help="Suite name (`harness list suites`; `toy` runs every toy probe) "
                                             "or a suite file PATH.yaml / PATH.toml (docs/suites.md).")
@click.option("--data-dir", type=Place(file_okay=False, path_type=Path), default=None,
              help="Folder with downloaded datasets (see docs/datasets.md).")
@click.option("--split", default=None, help="Override every task's split (e.g. val, test-dev).")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Use the first N examples of each task.")
@click.option("--batch-size", type=click.IntRange(min=1), default=32, show_default=True)
@click.option("--device", default="auto", show_default=True, help="auto | cpu | cuda | cuda:<i> (auto = CUDA when available).")
@click.option("--seed", type=click.IntRange(min=0, max=MAX_SEED), default=0, show_default=True,
              help="Seed for training, sampling and bootstrap CIs (0 to 2^32 - 1).")
@click.option("--out", type=Place(file_okay=False, path_type=Path), default=DEFAULT_RUNS, show_default=True,
              help="Folder for run directories.")
@click.option("--resume", is_flag=True, help="Continue the newest run with the same settings (model, suite, --data-dir, "
              "--split, --limit, --seed) if it did not complete; --batch-size, --device, --jobs and "
              "--cache may differ.")
@click.option("--leaderboard", "leaderboard_dir", type=Place(file_okay=False, path_type=Path),
              default=DEFAULT_LEADERBOARD, show_default=True, help="Leaderboard folder updated at the end.")
@click.option("--no-leaderboard", is_flag=True, help="Do not update the leaderboard.")
@click.option("--jobs", default="auto", show_default=True, metavar="N|auto",
              help="Models run at once, one process each (auto: one per CPU core, 1 on a GPU).")
@click.option("--cache", "cache_path", type=Place(dir_okay=False, path_type=Path), default=None,
              help="Prediction cache file (default: user cache folder). The probe outputs computed with it "
                   "are kept beside it, in FILE.outputs/, and belong to that file alone.")
def run(models, suites, data_dir, split, limit, batch_size, device, seed, out, resume,
        leaderboard_dir, no_leaderboard, jobs, cache_path) -> None:
    """Run models through a suite and write results/runs/<run-id>/ and the leaderboard.

    Predictions are cached by model fingerprint and input, so a re-run or `--resume`
    calls the model only for what is missing. Under torchrun each rank predicts its share
    and rank 0 writes the run folder (docs/hf-models.md).
    """

    if len(suites) > 1:  # click would keep the last one given, silently
        raise click.BadParameter(f"given {len(suites)} times ({', '.join(suites)}); one suite per run: "
                                 "run the command once per suite", param_hint="'--suite'")
    suite = suites[0]
    n_jobs = None if jobs == "auto" else _jobs(jobs)
    host = get_host()
    for failure in host.failures:
        click.echo(f"warning: {failure}", err=True)
    check_output_folder(out)
    if not no_leaderboard:
        check_output_folder(leaderboard_dir)
    base = RunConfig(model="", suite=suite_from_command_line(host, suite), data_dir=data_dir, split=split, limit=limit, batch_size=batch_size,
                     device=device, seed=seed, out=out, resume=resume, cache_path=cache_path, argv=tuple(sys.argv))
    worst = run_models(models, base, host, leaderboard=None if no_leaderboard else leaderboard_dir,
                       echo=click.echo, warn=lambda text: click.echo(text, err=True), jobs=n_jobs)
    if worst != ExitCode.OK:
        raise SystemExit(int(worst))


def _jobs(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1 or n > 1024:
        raise click.BadParameter(f"{value!r} is not 'auto' or a number of processes from 1 to 1024",
                                 param_hint="'--jobs'")
    return n
