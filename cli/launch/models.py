"""`harness run` with several models: each through the suite (in processes side by side,
sharded over torchrun ranks, or one after the other), a summary per model, then the
leaderboard."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable, Sequence

from harness import PINS_IN_EFFECT
from harness.errors import ExitCode, HarnessError
from harness.host import PluginHost
from harness.run.config import RunConfig
from harness.run.execute import execute_run
from harness.run.plan import resolve_model
from harness.run.tasks import RunOutcome
from harness.rundir import RunDir
from harness.specs import parse_spec
from harness.suites import resolve_suite

from ..publish import publish
from . import signals
from .distributed import run_distributed, world
from .parallel import default_jobs, expected_cost, run_parallel

__all__ = ["run_models"]


def run_models(models: Sequence[str], base: RunConfig, host: PluginHost, *, leaderboard: Path | None,
               echo: Callable[[str], None], warn: Callable[[str], None], jobs: int | None = 1) -> ExitCode:
    """The one entry point of `harness run`, in one process or under torchrun: each model
    through the suite (sharded over the launcher's ranks when WORLD_SIZE > 1; several models
    at once in `jobs` processes, None = vqa_harness_cli.launch.parallel.default_jobs), a summary per model
    with skips and failures, then the leaderboard (rank 0). The worst exit code.

    SIGINT and SIGTERM stop it like Ctrl-C (vqa_harness_cli.launch.signals): the running models record
    it, worker processes exit, and `harness.errors.Stopped` is raised."""
    with signals.stop_on_signals():
        return _run_models(models, base, host, leaderboard=leaderboard, echo=echo, warn=warn, jobs=jobs)


def _run_models(models: Sequence[str], base: RunConfig, host: PluginHost, *, leaderboard: Path | None,
                echo: Callable[[str], None], warn: Callable[[str], None], jobs: int | None) -> ExitCode:
    rank, size, _ = world()
    worst = ExitCode.OK
    if not PINS_IN_EFFECT:
        warn("warning: torch was imported before harness, so the pinned numerics (harness.NUMERICS_ENV) "
             "did not apply: trained models may differ in the last bits from other machines (import harness first)")
    repeated = sorted({spec for spec in models if models.count(spec) > 1})
    if repeated:  # the same run twice: the second would only re-read the first one's cache
        warn(f"warning: model(s) given more than once run once: {', '.join(repeated)}")
        models = list(dict.fromkeys(models))
    resume = base.resume and size == 1
    if len(models) > 1 or resume:  # a bad spec or option of a later model is one line before the first one runs
        suite = resolve_suite(host, base.suite)  # (one model: its run's plan does this first thing)
        declared = {spec: resolve_model(spec, suite, host)[2] for spec in models}
    if resume:  # a complete run has nothing to continue: not run again
        models = _unfinished(models, base, {spec: base.digest(d, suite) for spec, d in declared.items()}, echo)
    configs = [replace(base, model=spec) for spec in models]
    jobs = 1 if size > 1 else min(jobs or default_jobs(len(models), base.device), len(models))
    if jobs > 1:
        cost = [expected_cost(host.models.get(parse_spec(spec)[0]).obj) for spec in models]
        outcomes: Iterable[RunOutcome | None] = run_parallel(configs, host, jobs, cost=cost, execute=execute_run,
                                                             started=echo, warn=warn)
    else:
        outcomes = (run_distributed(c, host) if size > 1 else execute_run(c, host) for c in configs)
    shown = 0
    try:
        for spec, outcome in zip(models, outcomes):
            shown += 1
            if outcome is None:  # ranks other than 0 only predict
                continue
            worst = max(worst, _summary(spec, base.suite_name, outcome, size, echo, warn))
    except HarnessError as exc:  # the models after it never ran: said, so that nobody takes the
        left = getattr(exc, "not_started", None)  # command's runs for all of them
        left = models[shown + 1:] if left is None and jobs == 1 else left or []  # a broken pool says its own
        if left:
            failed = getattr(exc, "model", models[min(shown, len(models) - 1)])
            warn(f"models not started after the failure of {failed} (below): {', '.join(left)} (re-run to run them)")
        raise
    except KeyboardInterrupt as exc:  # a run finished (complete), then the stop: --resume has none of it
        if getattr(exc, "finished", "") and jobs == 1:
            left = models[shown + 1:]
            exc.advice = (f"the run of {models[shown]} was complete before the stop ({exc.finished})"
                          + (f"; models not started: {', '.join(left)}" if left else ": nothing of it to resume"))
        raise
    if leaderboard is not None and rank == 0:
        if len(host.publishers):
            closing: list[str] = []
            try:
                written = publish(host, [base.out], leaderboard, progress=warn, summary=closing.append)
            except KeyboardInterrupt as exc:  # the runs are complete: --resume would start new ones
                exc.advice = (f"every run is complete; the leaderboard in {leaderboard} may be partly written: "
                              f"`harness leaderboard build {base.out} --out {leaderboard}` writes it")
                raise
            echo(f"leaderboard: {len(written)} files in {leaderboard}/")
            for text in closing:  # the answer at a glance (the publisher's table) and where it is
                echo("\n" + text.rstrip("\n"))
        else:
            warn("no leaderboard: no publisher plugin is installed (run folders are complete)")
    return worst


def _unfinished(models: Sequence[str], base: RunConfig, identities: dict[str, str],
                echo: Callable[[str], None]) -> list[str]:
    """The models `--resume` runs: all but those whose newest run with these settings in
    `base.out` is complete with no failed example or probe (one line each names that run). Before,
    each of those started a second, identical run, after a "no unfinished run" warning."""
    left = []
    for spec in models:
        done = _complete(Path(base.out), identities[spec])
        if done is None:
            left.append(spec)
        else:
            echo(f"{spec} on {base.suite_name}: complete in {done}, not run again (--resume continues "
                 "unfinished runs; leave it out for a new run)")
    return left


def _complete(out: Path, identity: str) -> Path | None:
    """The newest run folder under `out` with this identity when it is complete and none of
    its examples or probes failed (a new run would retry them), else None."""
    path, data = next(RunDir.manifests(out, identity), (None, {}))
    stats = data.get("stats")
    clean = isinstance(stats, dict) and stats.get("example_errors") == stats.get("probe_failures") == 0
    return path if data.get("status") == "complete" and clean else None


def _summary(spec: str, suite: str, outcome: RunOutcome, size: int, echo: Callable[[str], None],
             warn: Callable[[str], None]) -> ExitCode:
    """The lines a model's run ends with: rows, announced files, skips, failures."""
    echo(f"{spec} on {suite}: {len(outcome.rows)} result rows -> {outcome.rundir.path}"
         f" (model calls {outcome.model_calls}" + (f", world size {size})" if size > 1 else ")"))
    for what, path in outcome.announced:
        echo(f"  {what}: {path}")
    for line in outcome.warnings:
        warn(f"  warning: {line}")
    for task, probe, reason in outcome.skipped:
        warn(f"  skipped {probe} on {task}: {reason}")
    for f in outcome.probe_failures:
        warn(f"  probe {f.probe} (plugin {f.plugin}) failed on {f.task}: {f.message}")
    if outcome.example_errors:
        warn(f"  {outcome.example_errors} example(s) failed in the model; see {outcome.rundir.path / 'report.md'}")
    return outcome.exit_code
