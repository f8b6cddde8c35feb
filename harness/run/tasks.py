"""A run's middle stage, task by task (driven by `harness.run.execute`): load data when
needed, fit a trainable model, run or restore each probe inside a containment boundary, and
gather what it produced. The model object is never changed: what the run learns is kept here."""

from __future__ import annotations

import functools
import json
import os
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from ..api import Model, Probe, Task
from ..cache.artifacts import ArtifactStore
from ..locations import Locations
from ..cache.outputs import ProbeOutput, ProbeOutputCache
from ..cache.watch import CacheWatch
from ..data.origin import dataset_provenance, file_distribution
from ..data.session import LazyExamples
from ..devices import model_threads
from ..cache.contents import save_contents
from ..digest import digest
from ..errors import DataError, ExitCode, HarnessError, PluginError, StopRun, printable
from ..fileio import atomic_write_text
from ..folders import storage_error
from ..host import PluginHost
from ..images import missing_images
from ..inputs import model_views
from ..layouts import RowTags
from ..paths import cache_dir, quiet_unless
from ..rundir import RunDir, task_folder
from ..types import ResultRow
from . import stops
from .assumptions import TAG as ASSUMPTIONS_TAG
from .assumptions import explain, neutralize, unmet_assumptions
from .config import RunConfig
from .context import TaskContext
from .plan import RunPlan
from .predictor import Predictor, guarded_fit
from .rows import checked_rows

__all__ = ["ProbeFailure", "RunOutcome", "TaskRunner", "capability_gap", "check_images"]


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
    #: (what it is, path) of files that stand in for a probe's rows where it computed none
    #: (`Probe.announce`).
    announced: list[tuple[str, str]] = field(default_factory=list)
    #: Lines the terminal shows after the run (a probe's assumption the dataset does not meet).
    warnings: list[str] = field(default_factory=list)


def capability_gap(probe: type[Probe], model: Model) -> str:
    """Why `model` cannot serve `probe` ("" when it can)."""
    caps = model.capabilities()
    lacking = [c for c in probe.requires if c not in caps]
    if lacking:
        return f"model {model.name!r} lacks {', '.join(lacking)}"
    if probe.requires_any and not any(c in caps for c in probe.requires_any):
        return f"model {model.name!r} has none of {', '.join(probe.requires_any)}"
    return ""


def check_images(task_name: str, examples: Sequence[Any], data_dir: Path | str | None = None) -> None:
    """Missing image files are reported (count and first paths) before the model starts, with
    where they were looked for: a distribution that ships them, `data_dir`, or neither."""
    count, first = missing_images([ex.image for ex in examples])
    if not count:
        return
    shipped = file_distribution(first[0])
    if shipped:
        hint = f"they belong to the installed {shipped}: reinstall it"
    elif data_dir is not None and Path(os.path.abspath(first[0])).is_relative_to(os.path.abspath(data_dir)):
        hint = f"looked for under --data-dir {data_dir}: are the images there?"
    else:
        hint = "this model needs images; set --data-dir to the folder that holds them"
    raise DataError(f"{task_name}: {count} image file(s) missing on disk, e.g. {', '.join(first)} ({hint})")


class TaskRunner:
    """The state of one model's run through its plan's tasks. `outputs_root`: the
    probe-output store (None: the harness cache's); `watch`: the caches checked after every
    probe (a probe run on a deleted cache is not gathered)."""

    def __init__(self, config: RunConfig, host: PluginHost, plan: RunPlan, rundir: RunDir,
                 predictor: Predictor, *, outputs_root: Path | None = None,
                 watch: CacheWatch | None = None) -> None:
        self.config, self.host, self.plan, self.rundir, self.predictor = config, host, plan, rundir, predictor
        self.watch = watch
        self.model, self.session = plan.model, plan.session
        self.outcome = RunOutcome(rundir, [], ExitCode.OK, skipped=list(plan.skipped))
        self.sections: list[str] = []
        self.missing: list[tuple[str, str, str]] = []
        self.resources: dict[str, Any] = {}
        self.row_tags: dict[tuple[str, str, str, str], RowTags] = {}
        self.reused = 0
        #: Probes whose output this attempt gathered (run or restored), in the plan's order.
        self.probes_done = 0
        #: Seconds per probe (and per fit), for the manifest: where a run spends its time.
        self.timings: list[dict[str, Any]] = []
        where = Locations({"data-dir": config.data_dir, "harness-cache": cache_dir()})  # the toy images' folder
        self.outputs = ProbeOutputCache(ArtifactStore(outputs_root), where) if config.reuse_outputs else None
        self.trained_on = plan.trained_on  #: trained on now: the declared data, or the last fit's
        self._fitted_on: str | None = None
        self._train_fp = ""
        self._done: dict[str, str] = {}
        self._images_checked: set[tuple[str, str]] = set()  # (dataset, split): once, before the model runs
        self._image_digests: dict[tuple[str, str], str] = {}  # (dataset, split) -> `_image_digest`
        # For the manifest, per "<dataset spec>/<split>": what its relaxed checks accepted
        # (`data_counts`) and the fingerprint of the examples trained on or scored (`data`: two
        # runs whose rows differ can be told apart by their data); per dataset spec, what it
        # is and where its files came from (`datasets`).
        self.data_counts: dict[str, dict[str, Any]] = {}
        self.data_digests: dict[str, str] = {}
        self.datasets: dict[str, dict[str, Any]] = {}

    def task(self, task: Task) -> None:
        examples = self.session.lazy(task.dataset, task.split, limit=True)
        if self.model.trainable:
            source = task.train_source(self.session.dataset(task.dataset).splits)
            if source is None:
                self.outcome.skipped.append((task.title, "*", f"model {self.model.name} needs "
                                             "training data and the task has none"))
                return
            label = f"{source[0]}/{source[1]}"
            train = self.session.lazy(*source)
            if self._fitted_on != label and self._needs_model(task):
                self._fit(train, label)
            self.data_digests.setdefault(label, train.fingerprint)
            self._note_dataset(*source)
        self.data_digests.setdefault(f"{task.dataset}/{task.split}", examples.fingerprint)
        self._note_dataset(task.dataset, task.split)
        for probe_name in task.probes:
            start, seconds = time.perf_counter(), self.predictor.stats.seconds
            self._probe(task, probe_name, examples)
            self.timings.append({"task": task.title, "probe": probe_name,
                                 "seconds": round(time.perf_counter() - start, 3),
                                 "model_seconds": round(self.predictor.stats.seconds - seconds, 3)})
        if self.model.trainable:  # asked after the probes, when whatever they loaded was loaded
            self._note_counts(*source)
        self._note_counts(task.dataset, task.split)
        save_contents()  # the image digests read for this task, for the next process

    def _needs_model(self, task: Task) -> bool:
        """Whether a probe of `task` will run (`_probe` skips those with a `capability_gap`; a
        model-free probe has none, and its rows name the training data). A model is not trained
        for probes that are all skipped."""
        return any(not capability_gap(self.host.probes.get(name).obj, self.model) for name in task.probes)

    def _note_dataset(self, spec: str, split: str) -> None:
        """The manifest's `datasets` entry of `spec`: its provenance (harness.data.origin) and
        the splits used. Nothing is loaded."""
        known = self.datasets.get(spec)
        splits = sorted({*(known["splits"] if known else ()), split})
        if known and known["splits"] == splits:
            return
        plugin = self.session.dataset(spec)
        entry = self.host.datasets.get(plugin.name)
        self.datasets[spec] = {**dataset_provenance(plugin, entry, splits), "splits": splits}

    def _note_counts(self, spec: str, split: str) -> None:
        """Record what a dataset's relaxed checks accepted (`DatasetPlugin.accepted`)."""
        key = f"{spec}/{split}"
        if key in self.data_counts:
            return
        try:
            accepted = dict(self.session.dataset(spec).accepted(split))
            json.dumps(accepted, allow_nan=False)  # it goes into the manifest as it is
        except HarnessError:
            raise
        except Exception as exc:  # metadata only: a plugin bug here must not end the run
            self.outcome.warnings.append(f"dataset {spec}: accepted({split!r}) failed or returned what JSON "
                                         f"cannot hold ({type(exc).__name__}: {exc}); not recorded")
            return
        if accepted:
            self.data_counts[key] = accepted

    def _fit(self, train: LazyExamples, label: str) -> None:
        """Fit the model on `train`, or defer it until a prediction needs it (`fit_key`)."""
        start = time.perf_counter()
        try:
            model = self.model
            key = model.fit_key(train.fingerprint, self.config.seed)
            self.predictor.refresh_fingerprint()
            fit = functools.partial(self._train, train, label)
            if key is None:
                with model_threads(model):
                    guarded_fit(fit, self.predictor.plugin_label)
                self.predictor.refresh_fingerprint()
            else:
                fingerprint = digest({"model": model.name,
                                      "class": f"{type(model).__module__}.{type(model).__qualname__}",
                                      "config": model.fingerprint_config(), "fit": key})
                self.predictor.defer_fit(fit, fingerprint)
            self.trained_on = self._fitted_on = label
            self._train_fp = train.fingerprint
        finally:
            self.timings.append({"fit": label, "seconds": round(time.perf_counter() - start, 3)})

    def _train(self, train: LazyExamples, label: str) -> None:
        """`model.fit`, with a line on stdout before and after (with `progress`): training can
        take minutes, inside a probe when deferred, and a progress bar shows only on a
        terminal. Not stderr: that is for the one-line errors."""
        name = self.plan.model_spec
        if self.config.progress:
            print(f"{name}: training on {label} (or loading its cached weights)...", flush=True)
        start = time.perf_counter()
        with quiet_unless(self.config.progress):  # the model's own bars and epoch lines
            self.model.fit(train, seed=self.config.seed)
        if self.config.progress:
            print(f"{name}: trained on {label} in {time.perf_counter() - start:.1f} s", flush=True)

    def _probe(self, task: Task, probe_name: str, examples: LazyExamples) -> None:
        entry = self.host.probes.get(probe_name)
        probe_cls: type[Probe] = entry.obj
        reason = capability_gap(probe_cls, self.model)
        if reason:
            self.outcome.skipped.append((task.title, probe_name, reason))
            return
        probe = probe_cls(**dict(task.probe_options.get(probe_name, {})))
        if not self.model.trainable:
            # Tasks that differ only in their training data are one task for a model the
            # harness does not train (e.g. Goyal's UB and BB for a pretrained model).
            same = digest([task.dataset, task.split, probe_name, probe.config])
            if same in self._done:
                self.outcome.skipped.append((task.title, probe_name, f"same data and options as {self._done[same]} "
                                             "(the model is not trained here, so the train source does not matter)"))
                return
            self._done[same] = task.title
        self.rundir.probe_files(task, probe_name).clear()  # what an earlier attempt (--resume) left
        key = self._output_key(task, probe_name, probe_cls, probe, examples)
        if key is not None:
            found = self.outputs.get(key, self.rundir.path, run_id=self.rundir.run_id, model=self.plan.model_spec,
                                     suite=self.plan.suite.name, fingerprint=self.session.fingerprint)
            if found is not None:
                self.reused += 1
                self._gather(task, probe_cls, found)
                return
        output, clean = self._run_contained(task, probe_name, entry.plugin, probe, examples)
        stops.raise_swallowed()  # a stop the probe's code swallowed whole: its output is not kept
        if self.watch is not None:
            self.watch.check()
        self._gather(task, probe_cls, output)
        if key is not None and clean:  # only a clean output is shared: failed examples are retried
            self.outputs.put(key, self.rundir.path, output)

    def _output_key(self, task: Task, probe_name: str, probe_cls: type[Probe], probe: Probe,
                    examples: LazyExamples) -> dict[str, Any] | None:
        """The probe output's cache key (None when outputs are not reused)."""
        if self.outputs is None:
            return None
        try:
            settings = dict(probe.cache_settings())
            digest(settings)
        except HarnessError:
            raise
        except Exception:  # a probe that cannot say what its output depends on runs again
            return None
        # A model-free probe (a dataset audit) gives the same output whatever the model.
        model = "(model-free)" if probe_cls.model_free else self.predictor.fingerprint
        # An image rewritten changes the output of a model that looks at it, a moved folder does not
        # (this loads the task's examples: a restored output of a text model never does).
        images = self._image_digest(self.outputs, task, examples) if self.model.uses_images and not probe_cls.model_free else ""
        return self.outputs.key(
            model_fingerprint=model, probe=probe_name, probe_class=probe_cls, options=probe.config,
            dataset=task.dataset, dataset_fingerprint=examples.fingerprint, split=task.split,
            task=task_folder(task), limit=self.config.limit, train=self.trained_on,
            train_fingerprint=self._train_fp if self.model.trainable else "",
            labelled=self.session.labelled(task.dataset, task.split), seed=self.config.seed,
            settings=settings, images=images, modules=[probe_cls.__module__, type(self.model).__module__,
                                        type(self.session.dataset(task.dataset)).__module__])

    def _image_digest(self, outputs: ProbeOutputCache, task: Task, examples: LazyExamples) -> str:
        """`ProbeOutputCache.images_key` of the split's image files, once per split (every probe
        of every task on it keys its output with it)."""
        where = (task.dataset, task.split)
        if where not in self._image_digests:
            self._image_digests[where] = outputs.images_key(list(dict.fromkeys(e.image for e in examples.items())))
        return self._image_digests[where]

    def _run_contained(self, task: Task, probe_name: str, plugin: str, probe: Probe,
                       examples: LazyExamples) -> tuple[ProbeOutput, bool]:
        """Run the probe; a failure is recorded (and its traceback kept), not raised. Returns
        the output and whether it is clean (no failure, no failed example)."""
        if self.model.uses_images and (task.dataset, task.split) not in self._images_checked:
            check_images(task.title, examples, self.config.data_dir)
            self._images_checked.add((task.dataset, task.split))
        if type(self.model).check_examples is not Model.check_examples:  # only an override loads them here
            dataset = self.session.dataset(task.dataset)  # as a model is given them: no gold, it could be kept
            self.model.check_examples(model_views(examples.items(), "check", dataset, show_choices=True))
        files = self.rundir.probe_files(task, probe_name)
        ctx = TaskContext(
            run_id=self.rundir.run_id, suite=self.plan.suite.name, model_spec=self.plan.model_spec, probe=probe_name,
            task=task, examples=list(examples.items()), labelled=self.session.labelled(task.dataset, task.split),
            seed=self.config.seed, options=probe.config, session=self.session, files=files, model=self.model,
            predictor=self.predictor, train=self.trained_on, device=self.plan.device,
            data_fingerprint=examples.fingerprint, probe_module=type(probe).__module__,
            probe_settings=probe.cache_settings,
        )
        errors_before = self.predictor.stats.errors
        failed = False
        try:
            rows = checked_rows(probe.run(ctx), ctx)
        except (KeyboardInterrupt, StopRun):  # StopRun: the model cannot go on at all
            raise
        except BaseException as exc:  # SystemExit, a library's BaseException too: the run goes on
            stops.raise_swallowed()  # the error a stop became (in a library) is that stop, not a probe failure
            if isinstance(exc, HarnessError):
                message = str(exc)
            else:
                known = storage_error(exc, self.rundir.path)
                if known is not None:  # the disk, not the probe: the run cannot go on
                    raise known from exc
                detail = printable("".join(traceback.format_exception(exc)))  # text UTF-8 can hold
                atomic_write_text(files.artifact("traceback.txt"), detail)
                message = f"{type(exc).__name__}: {exc}"
            self.outcome.probe_failures.append(ProbeFailure(task.title, probe_name, plugin, message))
            rows, failed = [], True
        output = ProbeOutput(list(rows), list(ctx.report_sections), list(ctx.missing), dict(ctx.resources),
                             dict(ctx.tags), self.rundir.relative(ctx.touched), dict(ctx.reads))
        return output, not failed and self.predictor.stats.errors == errors_before

    def _gather(self, task: Task, probe_cls: type[Probe], out: ProbeOutput) -> None:
        probe_name = probe_cls.name
        dataset = self.session.dataset(task.dataset)
        unmet = unmet_assumptions(probe_cls, dataset)
        if unmet:  # the rows stay, without a better direction; the run says why
            out = replace(out, rows=neutralize(out.rows, unmet),
                          tags={**out.tags, ASSUMPTIONS_TAG: ",".join(sorted(unmet))})
            line = explain(probe_name, dataset, unmet)
            self.sections.append(f"### {task.title} — {probe_name}: assumptions not met\n\n{line}.\n")
            self.outcome.warnings.append(f"{task.title}: {line}")
        self.outcome.rows.extend(out.rows)
        self.probes_done += 1
        self.sections.extend(f"### {task.title} — {probe_name}\n\n{s}" for s in out.sections)
        self.missing.extend((task.title, m, r) for m, r in out.missing)
        self.resources.update(out.resources)
        if out.tags:
            tag = RowTags(probe_name, task.dataset, task.split, self.trained_on, dict(out.tags))
            self.row_tags[tag.key()] = tag
        if not out.rows:  # the files that stand in for the rows the probe could not compute
            for rel in out.files:
                what = probe_cls.announce.get(rel.rsplit("/", 1)[-1])
                found = (what, str(self.rundir.path / rel))
                if what and found not in self.outcome.announced:
                    self.outcome.announced.append(found)

