"""`harness run` for one model, as a pipeline read top to bottom:

1. plan: resolve every name and check the data (`harness.run.plan`), before any work;
2. open: the prediction cache, the run folder (new or resumed) and its manifest;
3. tasks: per task, fit when needed and run or restore each probe (`harness.run.tasks`);
4. write: results.jsonl, tables.json, the manifest and report.md after every task, so that
   an interrupted run keeps what it computed, and once more at the end with the status.
"""

from __future__ import annotations

from typing import Any, Callable

from ..api import Model
from ..cache.predictions import PredictionCache
from ..errors import ExitCode, StopRun
from ..host import PluginHost
from ..manifest import new_manifest, now
from ..provenance import torch_numerics
from ..report import render_report
from ..rundir import RunDir
from .config import RunConfig
from .plan import RunPlan, plan_run
from .predictor import Predictor
from .tasks import RunOutcome, TaskRunner

__all__ = ["execute_run"]


def execute_run(config: RunConfig, host: PluginHost, *,
                predictor_factory: Callable[..., Predictor] = Predictor) -> RunOutcome:
    """Run `config.model` through `config.suite`; returns the outcome (never raises for
    plugin failures; raises HarnessError for bad input found before work starts).

    `predictor_factory` builds the Predictor (harness.run.distributed passes a sharding one).
    Probe outputs found in the cache (harness.cache.outputs) are restored, not recomputed,
    unless `config.reuse_outputs` is off; data is loaded only when something needs it."""
    plan = plan_run(config, host)
    cache = PredictionCache(config.cache_path)  # a bad --cache is one line before a run folder exists
    rundir, manifest = _open_rundir(config, host, plan)
    predictor = predictor_factory(plan.model, cache=cache, batch_size=config.batch_size, device=plan.device,
                                  progress=config.progress,
                                  plugin_label=f"{plan.model_entry.plugin}:{plan.model_entry.name}")
    run = TaskRunner(config, host, plan, rundir, predictor)
    layouts = {name: list(host.probes[name].layouts()) for t in plan.tasks for name in t.probes}
    headlines = {name: [list(h) for h in host.probes[name].headline] for name in layouts}
    plan.model.setup(plan.device)
    status = "failed"
    try:
        for task in plan.tasks:
            run.task(task)
            _note_parameters(manifest, plan.model, run.trained_on)
            rundir.write_tables(layouts, list(run.row_tags.values()), headlines)
            _write_summary(run, manifest, headlines, status="running")
        notes = plan.model.report_notes()
        if notes:
            run.sections.append(f"### Model notes ({plan.model_entry.name})\n\n{notes}\n")
        status = "complete"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except StopRun:  # the model cannot go on (endpoint gone, budget spent): keep what is done
        status = "stopped"
        raise
    finally:  # bad input found mid-run (HarnessError) also keeps what was computed
        cache.close()
        run.outcome.example_errors = predictor.stats.errors
        run.outcome.model_calls = predictor.stats.model_calls
        if status == "complete" and (run.outcome.example_errors or run.outcome.probe_failures):
            run.outcome.exit_code = ExitCode.PARTIAL
        _write_summary(run, manifest, headlines, status=status)
    return run.outcome


def _open_rundir(config: RunConfig, host: PluginHost, plan: RunPlan) -> tuple[RunDir, dict[str, Any]]:
    """The run folder (the incomplete one `--resume` continues, else a new one) and the
    manifest of the run starting now, written into it."""
    identity = config.digest(plan.model_spec, plan.suite.file_sha256)
    rundir = RunDir.find_resumable(config.out, identity) if config.resume else None
    previous = rundir.read_manifest() if rundir is not None else {}
    if rundir is None:
        rundir = RunDir.create(config.out, plan.model_spec, plan.suite.name)
    manifest = new_manifest(config, host, plan.model_spec, plan.model_entry, plan.suite, plan.device, rundir.run_id,
                            previous)
    rundir.write_manifest(manifest)
    return rundir, manifest


def _note_parameters(manifest: dict[str, Any], model: Model, trained_on: str) -> None:
    """`parameter_count` per training data in the manifest, when the model reports it."""
    try:
        count = model.parameter_count()
    except Exception:  # metadata only: a plugin bug here must not end the run
        return
    if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
        manifest.setdefault("parameter_count", {})[trained_on or "-"] = count


def _write_summary(run: TaskRunner, manifest: dict[str, Any], headlines: dict[str, list[list[str]]], *,
                   status: str) -> None:
    """Rewrite results.jsonl, the manifest and report.md with what the run has so far."""
    stats = run.predictor.stats
    in_force = torch_numerics()
    environment = {**manifest.get("environment", {}), **({"torch": in_force} if in_force else {})}
    manifest = {**manifest, "status": status, "resources": run.resources, "device": run.plan.device,
                "environment": environment,
                "stats": {"model_calls": stats.model_calls, "cache_hits": stats.cache_hits,
                          "example_errors": stats.errors, "predict_seconds": round(stats.seconds, 3),
                          "deferred_fit_seconds": round(stats.fit_seconds, 3),
                          "probe_outputs_reused": run.reused},
                "timings": run.timings, "data": dict(sorted(run.data_digests.items())),
                **({"data_counts": run.data_counts} if run.data_counts else {}),
                **({"datasets": dict(sorted(run.datasets.items()))} if run.datasets else {}), **_usage(run.plan.model)}
    if status != "running":
        manifest["finished"] = now()
    run.rundir.write_results(run.outcome.rows)
    run.rundir.write_manifest(manifest)
    run.rundir.write_report(render_report(manifest, run.outcome.rows, run.sections, run.missing, run.outcome.skipped,
                                          [vars(f) for f in run.outcome.probe_failures], stats.error_examples,
                                          headlines))


def _usage(model: Model) -> dict[str, Any]:
    """{"usage": model.usage()} when the model reports any (requests, tokens), else {}."""
    try:
        usage = dict(model.usage() or {})
    except Exception:  # metadata only: a plugin bug here must not end the run
        return {}
    return {"usage": usage} if usage else {}
