"""`harness run`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..errors import ExitCode

__all__ = ["run"]


@click.command()
@click.option("--model", "models", multiple=True, required=True,
              help="Model spec NAME[:key=value,...]; repeat to run several models.")
@click.option("--suite", required=True, help="Suite name (`harness list suites`); `toy` runs every toy probe.")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder with downloaded datasets (see docs/datasets.md).")
@click.option("--split", default=None, help="Override every task's split (e.g. val, test-dev).")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Use the first N examples of each task.")
@click.option("--batch-size", type=click.IntRange(min=1), default=32, show_default=True)
@click.option("--device", default="auto", show_default=True, help="auto | cpu | cuda | cuda:<i> (auto = CUDA when available).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for training, sampling and bootstrap CIs.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"), show_default=True,
              help="Folder for run directories.")
@click.option("--resume", is_flag=True, help="Continue the newest unfinished run with the same settings.")
@click.option("--leaderboard", "leaderboard_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("leaderboard"), show_default=True, help="Leaderboard folder updated at the end.")
@click.option("--no-leaderboard", is_flag=True, help="Do not update the leaderboard.")
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Prediction cache file (default: user cache folder).")
def run(models, suite, data_dir, split, limit, batch_size, device, seed, out, resume,
        leaderboard_dir, no_leaderboard, cache_path) -> None:
    """Run models through a suite and write runs/<run-id>/ and the leaderboard.

    Predictions are cached by model fingerprint and input, so a re-run or `--resume`
    calls the model only for what is missing.
    """
    import os

    from ..plugins import get_host
    from ..run import RunConfig, execute_run

    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1  # under torchrun / accelerate launch
    rank = int(os.environ.get("RANK", "0"))
    host = get_host()
    for failure in host.failures:
        click.echo(f"warning: {failure}", err=True)
    worst = ExitCode.OK
    for model in models:
        config = RunConfig(model=model, suite=suite, data_dir=data_dir, split=split, limit=limit,
                           batch_size=batch_size, device=device, seed=seed, out=out, resume=resume,
                           cache_path=cache_path, argv=tuple(sys.argv))
        if distributed:
            from ..distributed import run_distributed

            outcome = run_distributed(config, host)
            if outcome is None:  # ranks other than 0 only predict
                continue
        else:
            outcome = execute_run(config, host)
        click.echo(f"{model} on {suite}: {len(outcome.rows)} result rows -> {outcome.rundir.path}"
                   f" (model calls {outcome.model_calls})")
        for task, probe, reason in outcome.skipped:
            click.echo(f"  skipped {probe} on {task}: {reason}", err=True)
        for f in outcome.probe_failures:
            click.echo(f"  probe {f.probe} (plugin {f.plugin}) failed on {f.task}: {f.message}", err=True)
        if outcome.example_errors:
            click.echo(f"  {outcome.example_errors} example(s) failed in the model; see {outcome.rundir.path / 'report.md'}",
                       err=True)
        worst = max(worst, outcome.exit_code)
    if not no_leaderboard and rank == 0:
        from vqa_harness_leaderboard import build_leaderboard

        written = build_leaderboard([out], leaderboard_dir)
        click.echo(f"leaderboard: {len(written)} files in {leaderboard_dir}/")
    if worst != ExitCode.OK:
        raise SystemExit(int(worst))
