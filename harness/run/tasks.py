"""One run's tasks: load data when needed, fit trainable models, run or restore each probe
inside a containment boundary, and gather rows, report sections and tags.

`harness.run.execute_run` drives it task by task; nothing here writes the run folder's
summary files (results.jsonl, manifest, report), which the driver rewrites after each task.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..api import Model, Probe, Task
from ..digest import digest
from ..errors import DataError, ExitCode, HarnessError
from ..layouts import RowTags
from ..cache.outputs import ProbeOutput, ProbeOutputCache
from .context import TaskContext, train_source
from .predictor import model_threads
from ..types import ResultRow

if TYPE_CHECKING:  # pragma: no cover
    from ..host import PluginHost
    from .predictor import Runner
    from ..rundir import RunDir
    from .session import LazyExamples, Session

__all__ = ["ProbeFailure", "RunOutcome", "capability_gap"]


@dataclass
class ProbeFailure:
    task: str
    probe: str
    plugin: str
    message: str


@dataclass
class RunOutcome:
    rundir: "RunDir"
    rows: list[ResultRow]
    exit_code: ExitCode
    example_errors: int = 0
    probe_failures: list[ProbeFailure] = field(default_factory=list)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    model_calls: int = 0


def capability_gap(probe: type[Probe], model: Model) -> str:
    """Why `model` cannot serve `probe` ("" when it can)."""
    caps = model.capabilities()
    lacking = [c for c in probe.requires if c not in caps]
    if lacking:
        return f"model {model.name!r} lacks {', '.join(lacking)}"
    if probe.requires_any and not any(c in caps for c in probe.requires_any):
        return f"model {model.name!r} has none of {', '.join(probe.requires_any)}"
    return ""


def check_images(task_name: str, examples: Sequence[Any]) -> None:
    """Missing image files are reported (count and first paths) before the model starts."""
    from ..images import missing_images

    count, first = missing_images([ex.image for ex in examples])
    if count:
        raise DataError(
            f"{task_name}: {count} image file(s) missing on disk, e.g. {', '.join(first)} "
            "(this model needs images; set --data-dir to the folder that holds them)"
        )


class _Run:
    """The state of one model's run through a suite."""

    def __init__(self, config: Any, host: "PluginHost", suite: str, model: Model, model_spec: str,
                 model_plugin: str, session: "Session", rundir: "RunDir", device: str) -> None:
        self.config, self.host, self.suite = config, host, suite
        self.model, self.model_spec, self.model_plugin = model, model_spec, model_plugin
        self.session, self.rundir, self.device = session, rundir, device
        self.runner: "Runner" = None  # type: ignore[assignment]  # set by the driver
        self.outcome = RunOutcome(rundir, [], ExitCode.OK)
        self.sections: list[str] = []
        self.missing: list[tuple[str, str, str]] = []
        self.resources: dict[str, Any] = {}
        self.row_tags: dict[tuple[str, str, str, str], RowTags] = {}
        self.reused = 0
        self.headlines: dict[str, list[list[str]]] = {}
        #: Seconds per probe (and per fit), for the manifest: where a run spends its time.
        self.timings: list[dict[str, Any]] = []
        # Probe outputs depend on predictions: with a prediction cache of its own (--cache
        # FILE), a run keeps its probe outputs next to it, not in the shared harness cache.
        self.outputs = None
        if config.reuse_outputs:
            from ..cache.artifacts import ArtifactStore

            own = Path(config.cache_path).parent / "artifacts" if config.cache_path else None
            self.outputs = ProbeOutputCache(ArtifactStore(own))
        self._fitted_on: str | None = None
        self._train_fp = ""
        self._done: dict[str, str] = {}
        #: "<dataset spec>/<split>" -> what its lenient policies accepted (manifest `data_counts`).
        self.data_counts: dict[str, dict[str, Any]] = {}

    def device_used(self) -> str:
        return self.device

    # ------------------------------------------------------------------ tasks
    def task(self, task: Task) -> None:
        name = f"{task.dataset}/{task.split}" + (f" [{task.label}]" if task.label else "")
        examples = self.session.lazy(task.dataset, task.split, limit=True)
        train_label = self.model.trained_on
        if self.model.trainable:
            source = train_source(task, self.session.dataset(task.dataset).splits)
            if source is None:
                self.outcome.skipped.append((name, "*", f"model {self.model.name} needs training data and the "
                                                        "task has none"))
                return
            train_label = f"{source[0]}/{source[1]}"
            if self._fitted_on != train_label:
                self._fit(self.session.lazy(*source), train_label)
            self._note_counts(*source)
        self._note_counts(task.dataset, task.split)
        for probe_name in task.probes:
            start = time.perf_counter()
            fits = self.runner.stats.seconds
            self._probe(task, name, probe_name, examples, train_label)
            self.timings.append({"task": name, "probe": probe_name, "seconds": round(time.perf_counter() - start, 3),
                                 "model_seconds": round(self.runner.stats.seconds - fits, 3)})

    def _note_counts(self, spec: str, split: str) -> None:
        """Record what a dataset's `duplicates=keep-first` / `answers=lenient` accepted (the
        non-zero counts of its `summary(split)`), so the manifest and report.md show them.
        Only datasets with such a policy are asked: with the defaults nothing is accepted."""
        key = f"{spec}/{split}"
        plugin = self.session.dataset(spec)
        config = getattr(plugin, "config", {}) or {}
        if key in self.data_counts or (config.get("duplicates") != "keep-first" and config.get("answers") != "lenient"):
            return
        try:
            summary = dict(plugin.summary(split))
        except HarnessError:
            raise
        except Exception:  # metadata only: a plugin bug here must not end the run
            return
        counts = {k: v for k, v in summary.items()
                  if k.startswith(("duplicate_", "answer_count_mismatches")) and v}
        if counts:
            policies = {k: config[k] for k in ("duplicates", "answers") if k in config}
            self.data_counts[key] = {**policies, **({"expected_answers": summary["expected_answers"]}
                                                    if summary.get("expected_answers") else {}), **counts}

    def _fit(self, train: "LazyExamples", train_label: str) -> None:
        """Fit the model on `train`, or defer it until a prediction needs it (`fit_key`)."""
        start = time.perf_counter()
        try:
            self._fit_now(train, train_label)
        finally:
            self.timings.append({"fit": train_label, "seconds": round(time.perf_counter() - start, 3)})

    def _fit_now(self, train: "LazyExamples", train_label: str) -> None:
        seed = self.config.seed
        key = self.model.fit_key(train.fingerprint, seed)
        self.runner.refresh_fingerprint()
        if key is None:
            with model_threads(self.model):
                self.model.fit(train, seed=seed)
            self.runner.refresh_fingerprint()
        else:
            model = self.model
            fingerprint = digest({"model": model.name, "class": f"{type(model).__module__}.{type(model).__qualname__}",
                                  "config": model.fingerprint_config(), "fit": key})
            self.runner.defer_fit(lambda: model.fit(train, seed=seed), fingerprint)
        self.model.trained_on = train_label
        self._fitted_on, self._train_fp = train_label, train.fingerprint

    def _probe(self, task: Task, task_name: str, probe_name: str, examples: "LazyExamples", train_label: str) -> None:
        entry = self.host.probes.get(probe_name)
        probe_cls: type[Probe] = entry.obj
        reason = capability_gap(probe_cls, self.model)
        if reason:
            self.outcome.skipped.append((task_name, probe_name, reason))
            return
        probe = probe_cls(**dict(task.probe_options.get(probe_name, {})))
        if not self.model.trainable:
            # Tasks that differ only in their training data are one task for a model the
            # harness does not train (e.g. Goyal's UB and BB for a pretrained model).
            same = digest([task.dataset, task.split, probe_name, probe.config])
            if same in self._done:
                self.outcome.skipped.append((task_name, probe_name, f"same data and options as {self._done[same]} "
                                             "(the model is not trained here, so the train source does not matter)"))
                return
            self._done[same] = task_name
        labelled = self.session.labelled(task.dataset, task.split)
        key = None
        if self.outputs is not None:
            # A model-free probe (a dataset audit) gives the same output whatever the model.
            model_free = probe_cls.model_free
            key = self.outputs.key(
                model_fingerprint="(model-free)" if model_free else self.runner.fingerprint, probe=probe_name,
                probe_class=probe_cls,
                options=probe.config, dataset=task.dataset, dataset_fingerprint=examples.fingerprint,
                split=task.split, limit=self.config.limit, train=train_label,
                train_fingerprint=self._train_fp if self.model.trainable else "", labelled=labelled,
                seed=self.config.seed, modules=[probe_cls.__module__, type(self.model).__module__,
                                                type(self.session.dataset(task.dataset)).__module__])
            found = self.outputs.get(key, self.rundir.path, run_id=self.rundir.run_id, model=self.model_spec,
                                     suite=self.suite, fingerprint=self.session.fingerprint)
            if found is not None:
                self.reused += 1
                self._gather(task, task_name, probe_name, train_label, found)
                return
        if self.model.uses_images and not examples.loaded:
            check_images(task_name, examples)
        ctx = TaskContext(
            run_id=self.rundir.run_id, suite=self.suite, model_spec=self.model_spec, probe=probe_name, task=task,
            examples=examples.items(), labelled=labelled, seed=self.config.seed, options=probe.config,
            session=self.session, rundir=self.rundir, model=self.model, runner=self.runner, train=train_label,
            device=self.device, data_fingerprint=examples.fingerprint, probe_module=probe_cls.__module__,
        )
        errors_before = self.runner.stats.errors
        failed = False
        try:
            rows = probe.run(ctx)
        except (KeyboardInterrupt, SystemExit):
            raise
        except HarnessError as exc:
            self.outcome.probe_failures.append(ProbeFailure(task_name, probe_name, entry.plugin, str(exc)))
            rows, failed = [], True
        except Exception as exc:  # contain: the probe is reported, the run goes on
            detail = "".join(traceback.format_exception(exc))
            self.rundir.artifact_path(probe_name, "traceback.txt").write_text(detail, encoding="utf-8")
            self.outcome.probe_failures.append(
                ProbeFailure(task_name, probe_name, entry.plugin, f"{type(exc).__name__}: {exc}"))
            rows, failed = [], True
        output = ProbeOutput(list(rows), list(ctx.report_sections), list(ctx.missing), dict(ctx.resources),
                             dict(ctx.tags), ctx.written_files(), dict(ctx.reads))
        self._gather(task, task_name, probe_name, train_label, output)
        # Only a clean output is shared: failed examples are retried by the next run.
        if key is not None and not failed and self.runner.stats.errors == errors_before:
            self.outputs.put(key, self.rundir.path, output)

    def _gather(self, task: Task, task_name: str, probe_name: str, train_label: str, out: ProbeOutput) -> None:
        self.outcome.rows.extend(out.rows)
        self.sections.extend(f"### {task_name} — {probe_name}\n\n{s}" for s in out.sections)
        self.missing.extend((task_name, m, r) for m, r in out.missing)
        self.resources.update(out.resources)
        if out.tags:
            tag = RowTags(probe_name, task.dataset, task.split, train_label, dict(out.tags))
            self.row_tags[tag.key()] = tag


def relative_files(rundir: Path, paths: Sequence[Path]) -> list[str]:
    """Paths inside `rundir` that exist, relative to it (sorted, unique)."""
    out = set()
    for path in paths:
        path = Path(path)
        if path.is_file():
            try:
                out.add(path.resolve().relative_to(Path(rundir).resolve()).as_posix())
            except ValueError:
                continue
    return sorted(out)
