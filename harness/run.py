"""`harness run`: one model through one suite, writing the run directory.

Order of work: resolve every name first (usage errors before any computation), then per
task load data, fit trainable models (weights cached by the model), run each probe inside
a containment boundary, and rewrite results.jsonl / report.md after every task so that an
interrupted run keeps what it computed.
"""

from __future__ import annotations

import functools
import os
import platform
import subprocess
import traceback
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from . import __version__
from .api import Model, Probe, Task
from .cache import PredictionCache
from .digest import digest
from .errors import DataError, ExitCode, HarnessError, UsageError
from .features import resolve_features
from .layouts import RowTags
from .paths import DEFAULT_RUNS
from .plugins import PluginHost
from .probe_context import TaskContext, train_source
from .report import render_report
from .runner import Runner, resolve_device
from .runstore import RunDir
from .session import Session
from .specs import format_spec, parse_spec
from .suites import resolve_suite
from .types import ResultRow

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
    progress: bool = True
    argv: tuple[str, ...] = ()

    def digest(self, model_spec: str) -> str:
        """Identity of a run for --resume; batch size and device are excluded on purpose
        (results must not depend on them)."""
        return digest({"model": model_spec, "suite": self.suite, "data_dir": str(self.data_dir or ""),
                       "split": self.split, "limit": self.limit, "seed": self.seed}, 16)


@dataclass
class ProbeFailure:
    task: str
    probe: str
    plugin: str
    message: str


@dataclass
class RunOutcome:
    rundir: RunDir
    rows: list[ResultRow]
    exit_code: ExitCode
    example_errors: int = 0
    probe_failures: list[ProbeFailure] = field(default_factory=list)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    model_calls: int = 0


def execute_run(config: RunConfig, host: PluginHost, *, runner_factory: Callable[..., Runner] = Runner) -> RunOutcome:
    """Run `config.model` through `config.suite`; returns the outcome (never raises for
    plugin failures; raises HarnessError for bad input found before work starts).

    `runner_factory` builds the Runner (harness.distributed passes a sharding one)."""
    suite = resolve_suite(host, config.suite)
    model_name, model_options = parse_spec(config.model)
    model_entry = host.models.get(model_name)
    model: Model = model_entry.obj(**model_options)
    model.feature_resolver = functools.partial(resolve_features, host=host)
    model_spec = format_spec(model_name, {k: model.config[k] for k in model_options})
    tasks = [_with_split(t, config.split) for t in suite.tasks]
    session = Session(host, data_dir=config.data_dir, limit=config.limit)
    _validate(tasks, host, session)
    device = resolve_device(config.device)

    rundir = RunDir.find_resumable(config.out, config.digest(model_spec)) if config.resume else None
    resumed = rundir is not None
    if rundir is None:
        rundir = RunDir.create(config.out, model_spec, suite.name)
    manifest = _manifest(config, host, model_spec, model_entry, suite, device, rundir, resumed)
    rundir.write_manifest(manifest)
    layouts = _layouts(host, tasks)
    row_tags: dict[tuple[str, str, str, str], RowTags] = {}

    cache = PredictionCache(config.cache_path)
    runner = runner_factory(model, cache=cache, batch_size=config.batch_size, device=device,
                    progress=config.progress, plugin_label=f"{model_entry.plugin}:{model_name}")
    outcome = RunOutcome(rundir, [], ExitCode.OK)
    sections: list[str] = []
    missing: list[tuple[str, str, str]] = []
    resources: dict[str, Any] = {}
    model.setup(device)
    fitted_on: str | None = None
    try:
        for task in tasks:
            task_name = f"{task.dataset}/{task.split}" + (f" [{task.label}]" if task.label else "")
            examples = session.load(task.dataset, task.split, limit=True)
            if model.uses_images:
                _check_images(task_name, examples)
            train_label = model.trained_on
            if model.trainable:
                train = train_source(task, session.dataset(task.dataset).splits)
                if train is None:
                    outcome.skipped.append((task_name, "*", f"model {model_name} needs training data and the task has none"))
                    continue
                train_label = f"{train[0]}/{train[1]}"
                if fitted_on != train_label:
                    model.fit(session.load(*train), seed=config.seed)
                    model.trained_on = train_label
                    runner.refresh_fingerprint()
                    fitted_on = train_label
            for probe_name in task.probes:
                entry = host.probes.get(probe_name)
                probe_cls: type[Probe] = entry.obj
                reason = _capability_gap(probe_cls, model)
                if reason:
                    outcome.skipped.append((task_name, probe_name, reason))
                    continue
                probe = probe_cls(**dict(task.probe_options.get(probe_name, {})))
                ctx = TaskContext(
                    run_id=rundir.run_id, suite=suite.name, model_spec=model_spec, probe=probe_name,
                    task=task, examples=examples, labelled=session.labelled(task.dataset, task.split),
                    seed=config.seed, options=probe.config, session=session, rundir=rundir, model=model,
                    runner=runner, train=train_label, device=device,
                )
                try:
                    rows = probe.run(ctx)
                except (KeyboardInterrupt, SystemExit):
                    raise
                except HarnessError as exc:
                    outcome.probe_failures.append(ProbeFailure(task_name, probe_name, entry.plugin, str(exc)))
                    rows = []
                except Exception as exc:  # contain: the probe is reported, the run goes on
                    detail = "".join(traceback.format_exception(exc))
                    rundir.artifact_path(probe_name, "traceback.txt").write_text(detail, encoding="utf-8")
                    outcome.probe_failures.append(
                        ProbeFailure(task_name, probe_name, entry.plugin, f"{type(exc).__name__}: {exc}")
                    )
                    rows = []
                outcome.rows.extend(rows)
                sections.extend(f"### {task_name} — {probe_name}\n\n{s}" for s in ctx.report_sections)
                missing.extend((task_name, m, r) for m, r in ctx.missing)
                resources.update(ctx.resources)
                if ctx.tags:
                    tag = RowTags(probe_name, task.dataset, task.split, train_label, dict(ctx.tags))
                    row_tags[tag.key()] = tag
            rundir.write_tables(layouts, list(row_tags.values()))
            _flush(rundir, outcome, runner, sections, missing, manifest, resources, status="running")
        notes = model.report_notes()
        if notes:
            sections.append(f"### Model notes ({model_name})\n\n{notes}\n")
        status = "complete"
    except KeyboardInterrupt:
        status = "interrupted"
        _flush(rundir, outcome, runner, sections, missing, manifest, resources, status=status)
        raise
    except HarnessError:  # bad input found mid-run: keep what was computed, then say why
        _flush(rundir, outcome, runner, sections, missing, manifest, resources, status="failed")
        raise
    finally:
        cache.close()
    outcome.example_errors = runner.stats.errors
    outcome.model_calls = runner.stats.model_calls
    if outcome.example_errors or outcome.probe_failures:
        outcome.exit_code = ExitCode.PARTIAL
    _flush(rundir, outcome, runner, sections, missing, manifest, resources, status=status)
    return outcome


def run_models(models: Sequence[str], base: RunConfig, host: PluginHost, *, leaderboard: Path | None,
               echo: Callable[[str], None], warn: Callable[[str], None]) -> ExitCode:
    """The one entry point of `harness run`, in one process or under torchrun: each model
    through the suite (sharded over the launcher's ranks when WORLD_SIZE > 1), a summary
    per model with skips and failures, then the leaderboard (rank 0). The worst exit code."""
    from dataclasses import replace

    from .distributed import run_distributed, world

    rank, size, _ = world()
    worst = ExitCode.OK
    for spec in models:
        config = replace(base, model=spec)
        outcome = run_distributed(config, host) if size > 1 else execute_run(config, host)
        if outcome is None:  # ranks other than 0 only predict
            continue
        echo(f"{spec} on {base.suite}: {len(outcome.rows)} result rows -> {outcome.rundir.path}"
             f" (model calls {outcome.model_calls}" + (f", world size {size})" if size > 1 else ")"))
        for task, probe, reason in outcome.skipped:
            warn(f"  skipped {probe} on {task}: {reason}")
        for f in outcome.probe_failures:
            warn(f"  probe {f.probe} (plugin {f.plugin}) failed on {f.task}: {f.message}")
        if outcome.example_errors:
            warn(f"  {outcome.example_errors} example(s) failed in the model; see {outcome.rundir.path / 'report.md'}")
        worst = max(worst, outcome.exit_code)
    if leaderboard is not None and rank == 0:
        from .publish import publish

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


def _check_images(task_name: str, examples: Sequence[Any]) -> None:
    """Missing image files are reported (count and first paths) before the model starts."""
    from .images import missing_images

    count, first = missing_images([ex.image for ex in examples])
    if count:
        raise DataError(
            f"{task_name}: {count} image file(s) missing on disk, e.g. {', '.join(first)} "
            "(this model needs images; set --data-dir to the folder that holds them)"
        )


def _capability_gap(probe: type[Probe], model: Model) -> str:
    caps = model.capabilities()
    lacking = [c for c in probe.requires if c not in caps]
    if lacking:
        return f"model {model.name!r} lacks {', '.join(lacking)}"
    if probe.requires_any and not any(c in caps for c in probe.requires_any):
        return f"model {model.name!r} has none of {', '.join(probe.requires_any)}"
    return ""


def _git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent,
            capture_output=True, text=True, timeout=5,
        )
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def _manifest(config, host, model_spec, model_entry, suite, device, rundir, resumed) -> dict[str, Any]:
    import torch

    previous = rundir.read_manifest() if resumed else {}
    dists = sorted({p.distribution for p in host.loaded})
    return {
        "run_id": rundir.run_id,
        "argv": list(config.argv),
        "model": model_spec,
        "model_plugin": f"{model_entry.plugin} ({model_entry.distribution})",
        "suite": suite.name,
        "suite_description": suite.description,
        "seed": config.seed,
        "device": device,
        "batch_size": config.batch_size,
        "split": config.split,
        "limit": config.limit,
        "data_dir": str(config.data_dir) if config.data_dir else None,
        "config_digest": config.digest(model_spec),
        "versions": {
            "vqa-harness": __version__,
            "python": platform.python_version(),
            "torch": torch.__version__,
            "plugin_distributions": dists,
        },
        "plugins": [{"name": p.name, "distribution": p.distribution} for p in host.loaded],
        "plugin_failures": [str(f) for f in host.failures],
        "git_commit": _git_commit(),
        "started": previous.get("started") or _now(),
        "resumed": previous.get("resumed", 0) + (1 if resumed else 0),
        "world_size": int(os.environ.get("WORLD_SIZE", "1")),
        "status": "running",
        "resources": {},
    }


def _flush(rundir, outcome, runner, sections, missing, manifest, resources, *, status) -> None:
    rundir.write_results(outcome.rows)
    manifest = {**manifest, "status": status, "resources": resources,
                "stats": {"model_calls": runner.stats.model_calls, "cache_hits": runner.stats.cache_hits,
                          "example_errors": runner.stats.errors, "predict_seconds": round(runner.stats.seconds, 3)}}
    if status != "running":
        manifest["finished"] = _now()
    rundir.write_manifest(manifest)
    rundir.write_report(render_report(manifest, outcome.rows, sections, missing, outcome.skipped,
                                      [vars(f) for f in outcome.probe_failures], runner.stats.error_examples))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _layouts(host: PluginHost, tasks: Sequence[Task]) -> dict[str, list]:
    """probe -> its table layouts, for every probe the suite uses (written as data)."""
    names = dict.fromkeys(p for t in tasks for p in t.probes)
    return {name: list(host.probes[name].layouts()) for name in names}
