"""`harness run` for one model, as a pipeline read top to bottom: plan (`harness.run.plan`),
open the cache and run folder, run the tasks (`harness.run.tasks`), and write the summary
files after every task and once more at the end (docs/architecture.md)."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import Any, Callable

from ..api import Model
from ..cache.predictions import PredictionCache
from ..cache.watch import CacheWatch
from ..display import Display
from ..errors import (
    ExitCode,
    HarnessError,
    PluginError,
    Stopped,
    StopRun,
    StorageError,
    plugin_call,
    printable,
)
from ..folders import check_output_folder, check_outside_packages, storage_error
from ..host import PluginHost
from ..layouts import Layout
from ..manifest import check_resumed, new_manifest, now
from ..paths import check_cache_writable
from ..provenance import torch_numerics
from ..report import render_report
from ..rundir import RunDir
from . import stops
from .config import RunConfig
from .plan import RunPlan, plan_run
from .predictor import Predictor
from .tasks import RunOutcome, TaskRunner

__all__ = ["execute_run"]

#: Each probe's headline metrics, as (metric, variant) pairs.
_Headlines = dict[str, list[list[str]]]


def execute_run(config: RunConfig, host: PluginHost, *,
                predictor_factory: Callable[..., Predictor] = Predictor) -> RunOutcome:
    """Run `config.model` through `config.suite`; returns the outcome (never raises for
    plugin failures; raises HarnessError for bad input found before work starts).
    `predictor_factory` builds the Predictor (vqa_harness_cli.launch.distributed passes a
    sharding one). The run folder has one writer (`RunDir.claim`); however the run ends, its
    manifest says how: `complete`, `failed` (with `error`), `stopped` (the model cannot go
    on), `interrupted` / `terminated` (a signal: harness.run.stops)."""
    plan = plan_run(config, host)
    layouts, headlines, displays = _declarations(host, plan)
    # What `harness run` checks of --out and --cache, for a program's RunConfig too: one line,
    # not a traceback, and no output inside a source package (nor among a run's own files)
    check_output_folder(config.out)
    if config.cache_path:
        check_outside_packages(Path(config.cache_path).parent, "prediction cache folder")
    cache = PredictionCache(config.cache_path)  # a bad --cache is one line before a run folder exists
    try:
        check_cache_writable()  # so is a read-only harness cache (--cache holds only the predictions)
        watch = CacheWatch(cache)  # a cache deleted during the run fails it (it must not complete)
        label = f"{plan.model_entry.plugin}:{plan.model_entry.name}"
        predictor = predictor_factory(plan.model, cache=cache, batch_size=config.batch_size, progress=config.progress,
                                      plugin_label=label, release=host.release(plan.model_entry.plugin))
        with stops.deferred():  # a stop request waits until the manifest can record it
            rundir, manifest = _open_rundir(config, host, plan)
            run = TaskRunner(config, host, plan, rundir, predictor, outputs_root=cache.outputs_root,
                             watch=watch)
    except BaseException:
        cache.close()
        raise
    if config.resume and not manifest["resumed"]:  # a relative --out from another folder, say: not silent
        run.outcome.warnings.append(_not_resumed(config, plan, manifest))
    status, error = "failed", ""
    try:
        stops.raise_pending()
        plugin_call(f"plugin {label}: setup({plan.device!r}) failed", plan.model.setup, plan.device)
        for task in plan.tasks:
            run.task(task)
            watch.check()
            _note_parameters(manifest, plan.model, run.trained_on)
            if _caught_up(run, manifest):
                rundir.write_tables(layouts, list(run.row_tags.values()), headlines, displays)
            _write_summary(run, _progress_manifest(run, manifest, "running"), headlines, displays)
        notes = plan.model.report_notes()
        if notes:
            run.sections.append(f"### Model notes ({plan.model_entry.name})\n\n{notes}\n")
        watch.check()
        status = "complete"
    except KeyboardInterrupt as exc:  # Ctrl-C, or a signal (harness.errors.Stopped)
        status = exc.status if isinstance(exc, Stopped) else "interrupted"
        raise
    except Exception as exc:  # bad input found mid-run (HarnessError) also keeps what was computed;
        # StopRun: the model cannot go on (endpoint gone, budget spent, not trainable), the disk is full
        stop = stops.swallowed()
        if stop is not None:  # the error a stop became (a library swallowed its Stopped): that stop
            status = stop.status
            raise stop from exc
        known = None if isinstance(exc, StorageError) else (
            watch.lost() or (None if isinstance(exc, StopRun) else storage_error(exc, rundir.path)))
        if known is not None:  # the cause (a deleted cache, a full disk), not what it broke
            status, error = known.status, str(known)
            raise known from exc
        status = exc.status if isinstance(exc, StopRun) else "failed"
        error = str(exc) if isinstance(exc, HarnessError) else f"{type(exc).__name__}: {exc}"
        raise
    finally:
        with stops.deferred():  # a signal now would cut the last write: it waits for it
            _finish(run, manifest, headlines, displays, status=status, error=error)
    try:
        stops.raise_pending()  # every task ran (`complete`), then the command was stopped
    except Stopped as stop:
        stop.finished = str(rundir.path)  # nothing of this run to resume (the command says so)
        raise
    return run.outcome


def _declarations(host: PluginHost,
                  plan: RunPlan) -> tuple[dict[str, list[Layout]], _Headlines, dict[str, Display]]:
    """Each probe's table layouts, headline metrics and display, as `tables.json` holds them.
    A declaration that raises or is not what the contract says is one PluginError naming the
    probe's plugin, before any work (not a traceback after the first task)."""
    layouts, headlines, displays = {}, {}, {}
    for name in dict.fromkeys(p for t in plan.tasks for p in t.probes):
        entry = host.probes.get(name)
        try:
            layouts[name] = list(entry.obj.layouts())
            headlines[name] = [list(h) for h in entry.obj.headline]
            displays[name] = entry.obj.display()
            if not all(isinstance(lay, Layout) for lay in layouts[name]):
                raise TypeError("layouts() must give harness.api.Layout objects")
            if not all(len(h) == 2 and all(isinstance(x, str) for x in h) for h in headlines[name]):
                raise TypeError("headline must hold (metric, variant) pairs of strings")
            if not isinstance(displays[name], Display):
                raise TypeError("display() must return a harness.api.Display")
        except Exception as exc:
            raise PluginError(f"plugin {entry.plugin}: probe {name!r} declares its tables wrongly: "
                              f"{type(exc).__name__}: {' '.join(str(exc).split())}") from None
    return layouts, headlines, displays


def _open_rundir(config: RunConfig, host: PluginHost, plan: RunPlan) -> tuple[RunDir, dict[str, Any]]:
    """The run folder (the incomplete one `--resume` continues, else a new one), claimed by
    this process, and the manifest of the run starting now, written into it."""
    identity = config.digest(plan.model_spec, plan.suite)
    rundir = RunDir.find_resumable(config.out, identity) if config.resume else None
    fresh = rundir is None
    if rundir is None:
        rundir = RunDir.create(config.out, plan.model_spec, plan.suite.name)
    try:
        rundir.claim()
        previous = {} if fresh else check_resumed(rundir.read_manifest(), rundir.manifest_path)
        manifest = new_manifest(config, host, plan.model_spec, plan.model_entry, plan.suite, plan.device,
                                rundir.run_id, previous)
        rundir.write_manifest(manifest)
    except BaseException as exc:
        rundir.release()
        if fresh:  # nothing of it was written: no empty run folder is left behind
            shutil.rmtree(rundir.path, ignore_errors=True)
        known = storage_error(exc, rundir.path)
        if known is not None:
            raise known from None
        raise
    return rundir, manifest


def _not_resumed(config: RunConfig, plan: RunPlan, manifest: dict[str, Any]) -> str:
    """The warning of a `--resume` that started a new run, naming the run it did not continue:
    the newest with these settings, complete; else the newest unfinished one of the model and
    suite, and the settings it differs in."""
    line = f"--resume: no unfinished run with these settings in {config.out}; this is a new run"
    runs = [(path, data) for path, data in RunDir.manifests(config.out, None) if path.name != manifest["run_id"]]
    same = [path for path, data in runs if data.get("config_digest") == manifest["config_digest"]]
    if same:  # complete: `RunDir.find_resumable` continues only the newest
        return f"{line} (the newest with these settings, {same[0].name}, is complete)"
    path, data = next(((path, data) for path, data in runs if data.get("status") != "complete" and
                       (data.get("model"), data.get("suite")) == (plan.model_spec, plan.suite.name)), (None, {}))
    if path is None:
        return line
    settings = {"--seed": "seed", "--split": "split", "--limit": "limit", "--data-dir": "data_dir"}
    differ = [f"{option} {_setting(data.get(key))} there, {_setting(manifest[key])} here"
              for option, key in settings.items() if data.get(key) != manifest[key]]
    stored = data.get("suite_file")
    if (stored.get("sha256") if isinstance(stored, dict) else "") != plan.suite.file_sha256:
        differ.append("the suite file's content")
    what = "; ".join(differ) or "the suite's tasks (or where a relative --data-dir leads)"
    return (f"{line} (the newest unfinished run of {plan.model_spec} on {plan.suite.name}, {path.name}, "
            f"differs: {what})")


def _setting(value: Any) -> str:
    return "not given" if value is None else printable(str(value))


def _finish(run: TaskRunner, manifest: dict[str, Any], headlines: _Headlines,
            displays: dict[str, Display], *, status: str, error: str) -> None:
    """The run's last write: results.jsonl, the manifest with its status (and error), report.md;
    then the folder is released. A write the disk refuses (full, read-only) gives back the
    writer's reserve and writes the manifest alone, so that it still says how the run ended
    (`failed`); the files before it stay as they were (atomic writes), and it is one
    StorageError line unless the run already ends with an error of its own."""
    error = printable(error)  # an error's text may hold what no UTF-8 file can
    try:
        run.predictor.cache.close()
        run.outcome.example_errors = run.predictor.stats.errors
        run.outcome.model_calls = run.predictor.stats.model_calls
        if status == "complete" and (run.outcome.example_errors or run.outcome.probe_failures):
            run.outcome.exit_code = ExitCode.PARTIAL
        final = _progress_manifest(run, manifest, status)
        final.update({"finished": now(), **({"error": error} if error else {})})
        try:
            _write_summary(run, final, headlines, displays)
        except OSError as exc:
            known = storage_error(exc, run.rundir.path)
            if known is None:
                raise
            run.rundir.free_reserve()
            with contextlib.suppress(OSError):
                run.rundir.write_manifest({**final, "status": "failed", "error": error or str(known)})
            if not error:  # this write is what failed (else the run's own error is on its way)
                raise known from None
    finally:
        run.rundir.release()


def _note_parameters(manifest: dict[str, Any], model: Model, trained_on: str) -> None:
    """`parameter_count` per training data in the manifest, when the model reports it."""
    try:
        count = model.parameter_count()
    except Exception:  # metadata only: a plugin bug here must not end the run
        return
    if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
        manifest.setdefault("parameter_count", {})[trained_on or "-"] = count


def _caught_up(run: TaskRunner, manifest: dict[str, Any]) -> bool:
    """Whether this attempt has gathered as many probes as the run folder's files hold (all of
    them unless `--resume` continues an attempt that came further). The tasks run in one order
    and an attempt resumes from the start, so it then holds all the earlier attempt held."""
    return manifest["status"] == "complete" or run.probes_done >= manifest.get("probes_done", 0)


def _write_summary(run: TaskRunner, manifest: dict[str, Any], headlines: _Headlines,
                   displays: dict[str, Display]) -> None:
    """Rewrite results.jsonl, the manifest and report.md with what the run has so far. A
    resumed attempt that has not come as far as the one before it writes only the manifest:
    the earlier rows stay in results.jsonl, and stay when this attempt ends early (a model
    that fails to set up, a stop), as docs/architecture.md says."""
    if not _caught_up(run, manifest):
        run.rundir.write_manifest(manifest)
        return
    run.rundir.write_results(run.outcome.rows)
    run.rundir.write_manifest(manifest)
    run.rundir.write_report(render_report(manifest, run.outcome.rows, run.sections, run.missing, run.outcome.skipped,
                                          [vars(f) for f in run.outcome.probe_failures],
                                          run.predictor.stats.error_examples, headlines, displays))


def _progress_manifest(run: TaskRunner, manifest: dict[str, Any], status: str) -> dict[str, Any]:
    """The manifest with what the run has done so far."""
    stats = run.predictor.stats
    in_force = torch_numerics()
    environment = {**manifest.get("environment", {}), **({"torch": in_force} if in_force else {})}
    return {**manifest, "status": status, "resources": run.resources, "device": run.plan.device,
                "environment": environment,
                "stats": {"model_calls": stats.model_calls, "cache_hits": stats.cache_hits,
                          "example_errors": stats.errors,
                          "probe_failures": len(run.outcome.probe_failures), "predict_seconds": round(stats.seconds, 3),
                          "deferred_fit_seconds": round(stats.fit_seconds, 3),
                          "probe_outputs_reused": run.reused},
                "timings": run.timings, "data": dict(sorted(run.data_digests.items())),
                "probes_done": max(run.probes_done, manifest.get("probes_done", 0)),
                **({"data_counts": run.data_counts} if run.data_counts else {}),
                **({"datasets": dict(sorted(run.datasets.items()))} if run.datasets else {}),
                **_usage(run.plan.model, manifest.get("usage_before_resume") or {})}


def _usage(model: Model, before: dict[str, Any]) -> dict[str, Any]:
    """{"usage": ...} when the model reports any (requests, tokens), else {}: this process's
    `model.usage()` added to `before`, the usage of the attempts a resumed run continues
    (numbers add up; any other value is this process's)."""
    try:
        usage = dict(model.usage() or {})
    except Exception:  # metadata only: a plugin bug here must not end the run
        usage = {}
    total = dict(before)
    for key, value in usage.items():
        earlier = total.get(key)
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (earlier, value))
        total[key] = earlier + value if numbers else value
    return {"usage": total} if total else {}
