"""`harness run`: one model through one suite, writing the run directory.

Order of work: resolve every name first (usage errors before any computation), then per
task load data, fit trainable models (weights cached by the model), run each probe inside
a containment boundary, and rewrite results.jsonl / report.md after every task so that an
interrupted run keeps what it computed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..api import Model, Task
from ..cache.predictions import PredictionCache
from ..digest import digest
from ..errors import ExitCode, UsageError
from ..features import resolve_features
from ..manifest import new_manifest, now, suite_file_digest
from ..paths import DEFAULT_RUNS
from ..host import PluginHost
from ..report import render_report
from .parallel import default_jobs, expected_cost, run_parallel
from .tasks import ProbeFailure, RunOutcome, _Run
from .predictor import Runner, resolve_device
from ..rundir import RunDir
from ..seeding import check_seed
from .session import Session
from ..specs import format_spec, parse_spec
from ..suites.data import TRAINED_ON, check_data, check_trained_on
from ..suites.read import check_feeds
from ..suites import resolve_suite

__all__ = ["RunConfig", "RunOutcome", "execute_run", "run_models", "ProbeFailure"]


@dataclass(frozen=True)
class RunConfig:
    model: str
    suite: str
    data_dir: Path | None = None
    split: str | None = None
    limit: int | None = None
    batch_size: int = 32
    device: str = "auto"
    seed: int = 0
    out: Path = DEFAULT_RUNS
    resume: bool = False
    cache_path: Path | None = None
    #: Restore probe outputs from the artifact store when their key matches (harness.cache.outputs).
    reuse_outputs: bool = True
    progress: bool = True
    argv: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_seed(self.seed)

    def digest(self, model_spec: str) -> str:
        """Identity of a run for --resume; batch size and device are excluded on purpose
        (results must not depend on them)."""
        return digest({"model": model_spec, "suite": self.suite, "suite_file": suite_file_digest(self.suite),
                       "data_dir": str(self.data_dir or ""), "split": self.split, "limit": self.limit,
                       "seed": self.seed}, 16)


def execute_run(config: RunConfig, host: PluginHost, *, runner_factory: Callable[..., Runner] = Runner) -> RunOutcome:
    """Run `config.model` through `config.suite`; returns the outcome (never raises for
    plugin failures; raises HarnessError for bad input found before work starts).

    `runner_factory` builds the Runner (harness.run.distributed passes a sharding one). Probe
    outputs found in the artifact store (harness.cache.outputs) are restored, not recomputed,
    unless `config.reuse_outputs` is off; data is loaded only when something needs it."""
    suite = resolve_suite(host, config.suite)
    model_name, model_options = parse_spec(config.model)
    model_entry = host.models.get(model_name)
    declared = model_options.pop(TRAINED_ON, None)
    if declared is not None:
        check_trained_on(declared, suite, host)
    model: Model = model_entry.obj(**model_options)
    if declared is not None:
        if model.trainable:
            raise UsageError(f"model {model_name!r} is trained by the harness on each task's train split; "
                             f"`{TRAINED_ON}=` declares the training data of a pretrained model")
        model.trained_on = declared
    model.feature_resolver = functools.partial(resolve_features, host=host)
    shown = {k: model.config[k] for k in model_options}
    model_spec = format_spec(model_name, {**shown, **({TRAINED_ON: declared} if declared is not None else {})})
    tasks = [_with_split(t, config.split) for t in suite.tasks]
    session = Session(host, data_dir=config.data_dir, limit=config.limit)
    _validate(tasks, host, session)
    check_feeds(suite, host)  # suite files are checked on load; registered ones here
    tasks, absent = check_data(suite, tasks, session, trainable=model.trainable)
    device = resolve_device(config.device)

    cache = PredictionCache(config.cache_path)  # a bad --cache is one line before a run folder exists
    rundir = RunDir.find_resumable(config.out, config.digest(model_spec)) if config.resume else None
    previous = rundir.read_manifest() if rundir is not None else {}
    if rundir is None:
        rundir = RunDir.create(config.out, model_spec, suite.name)
    manifest = new_manifest(config, host, model_spec, model_entry, suite, device, rundir.run_id, previous)
    rundir.write_manifest(manifest)
    run = _Run(config, host, suite.name, model, model_spec, model_entry.plugin, session, rundir, device)
    run.runner = runner_factory(model, cache=cache, batch_size=config.batch_size, device=device,
                                progress=config.progress, plugin_label=f"{model_entry.plugin}:{model_name}")
    layouts = {name: list(host.probes[name].layouts()) for t in tasks for name in t.probes}
    run.headlines = {name: [list(h) for h in host.probes[name].headline] for name in layouts}
    run.outcome.skipped.extend(absent)
    model.setup(device)
    status = "failed"
    try:
        for task in tasks:
            run.task(task)
            _note_parameters(manifest, model)
            rundir.write_tables(layouts, list(run.row_tags.values()), run.headlines)
            _flush(run, manifest, status="running")
        notes = model.report_notes()
        if notes:
            run.sections.append(f"### Model notes ({model_name})\n\n{notes}\n")
        status = "complete"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:  # bad input found mid-run (HarnessError) also keeps what was computed
        cache.close()
        run.outcome.example_errors = run.runner.stats.errors
        run.outcome.model_calls = run.runner.stats.model_calls
        if status == "complete" and (run.outcome.example_errors or run.outcome.probe_failures):
            run.outcome.exit_code = ExitCode.PARTIAL
        _flush(run, manifest, status=status)
    return run.outcome


def run_models(models: Sequence[str], base: RunConfig, host: PluginHost, *, leaderboard: Path | None,
               echo: Callable[[str], None], warn: Callable[[str], None], jobs: int | None = 1) -> ExitCode:
    """The one entry point of `harness run`, in one process or under torchrun: each model
    through the suite (sharded over the launcher's ranks when WORLD_SIZE > 1; several models
    at once in `jobs` processes, None = harness.run.parallel.default_jobs), a summary per model
    with skips and failures, then the leaderboard (rank 0). The worst exit code."""
    from dataclasses import replace

    from .distributed import run_distributed, world

    rank, size, _ = world()
    worst = ExitCode.OK
    repeated = sorted({spec for spec in models if models.count(spec) > 1})
    if repeated:  # the same run twice: the second would only re-read the first one's cache
        warn(f"warning: model(s) given more than once run once: {', '.join(repeated)}")
        models = list(dict.fromkeys(models))
    configs = [replace(base, model=spec) for spec in models]
    jobs = 1 if size > 1 else min(jobs or default_jobs(len(models), base.device), len(models))
    if jobs > 1:
        cost = [expected_cost(host.models.get(parse_spec(spec)[0]).obj) for spec in models]
        outcomes: Iterable[RunOutcome | None] = run_parallel(configs, host, jobs, cost=cost, execute=execute_run,
                                                             started=echo)
    else:
        outcomes = (run_distributed(c, host) if size > 1 else execute_run(c, host) for c in configs)
    for spec, outcome in zip(models, outcomes):
        if outcome is None:  # ranks other than 0 only predict
            continue
        echo(f"{spec} on {base.suite}: {len(outcome.rows)} result rows -> {outcome.rundir.path}"
             f" (model calls {outcome.model_calls}" + (f", world size {size})" if size > 1 else ")"))
        server = outcome.rundir.path / "artifacts" / "accuracy" / "results_official.json"
        if server.is_file() and not any(r.probe == "accuracy" for r in outcome.rows):  # a split without answers
            echo(f"  evaluation-server results file: {server}")
        for task, probe, reason in outcome.skipped:
            warn(f"  skipped {probe} on {task}: {reason}")
        for f in outcome.probe_failures:
            warn(f"  probe {f.probe} (plugin {f.plugin}) failed on {f.task}: {f.message}")
        if outcome.example_errors:
            warn(f"  {outcome.example_errors} example(s) failed in the model; see {outcome.rundir.path / 'report.md'}")
        worst = max(worst, outcome.exit_code)
    if leaderboard is not None and rank == 0:
        from ..publish import publish

        if len(host.publishers):
            written = publish(host, [base.out], leaderboard, progress=warn)
            echo(f"leaderboard: {len(written)} files in {leaderboard}/")
        else:
            warn("no leaderboard: no publisher plugin is installed (run folders are complete)")
    return worst


# ------------------------------------------------------------------------- helpers


def _with_split(task: Task, split: str | None) -> Task:
    if split is None or split == task.split:
        return task
    return Task(task.dataset, split, task.probes, task.train, task.label, task.probe_options)


def _validate(tasks: Sequence[Task], host: PluginHost, session: Session) -> None:
    for task in tasks:
        plugin = session.dataset(task.dataset)  # unknown dataset / bad option -> UsageError
        if task.split not in plugin.splits:
            raise UsageError(
                f"dataset {plugin.name!r} has no split {task.split!r}; splits: {', '.join(plugin.splits)}"
            )
        for probe in task.probes:
            host.probes.get(probe)  # unknown probe -> UsageError with near matches


def _note_parameters(manifest: dict[str, Any], model: Model) -> None:
    """`parameter_count` per training data in the manifest, when the model reports it."""
    try:
        count = model.parameter_count()
    except Exception:  # metadata only: a plugin bug here must not end the run
        return
    if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
        manifest.setdefault("parameter_count", {})[model.trained_on or "-"] = count


def _flush(run: "_Run", manifest: dict[str, Any], *, status: str) -> None:
    """Rewrite results.jsonl, the manifest and report.md with what the run has so far."""
    stats = run.runner.stats
    manifest = {**manifest, "status": status, "resources": run.resources, "device": run.device_used(),
                "stats": {"model_calls": stats.model_calls, "cache_hits": stats.cache_hits,
                          "example_errors": stats.errors, "predict_seconds": round(stats.seconds, 3),
                          "deferred_fit_seconds": round(stats.fit_seconds, 3),
                          "probe_outputs_reused": run.reused},
                "timings": run.timings, **({"data_counts": run.data_counts} if run.data_counts else {})}
    if status != "running":
        manifest["finished"] = now()
    run.rundir.write_results(run.outcome.rows)
    run.rundir.write_manifest(manifest)
    run.rundir.write_report(render_report(manifest, run.outcome.rows, run.sections, run.missing, run.outcome.skipped,
                                          [vars(f) for f in run.outcome.probe_failures], stats.error_examples,
                                          run.headlines))
