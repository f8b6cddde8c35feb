"""A run's first stage: every name resolved and every input checked before any work starts
(usage errors before any computation, missing files before any model loads)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from ..api import Model, Suite, Task
from ..data.check import TRAINED_ON, check_data, check_trained_on
from ..data.session import Session
from ..devices import resolve_device
from ..errors import UsageError, plugin_call
from ..features import resolve_features
from ..host import PluginHost
from ..images import decoded_cache_bytes
from ..registry import Entry
from ..specs import format_spec, parse_spec
from ..suites import check_suite, resolve_suite, rows_clash
from .config import RunConfig

__all__ = ["RunPlan", "plan_run", "resolve_model"]


@dataclass(frozen=True)
class RunPlan:
    """What `plan_run` resolved: the suite, the model, the tasks that can run and the device."""

    suite: Suite
    model: Model
    model_entry: Entry[type[Model]]
    model_spec: str  #: the model as rows and folders name it (options given, canonical order)
    trained_on: str  #: training data a pretrained model declares (`trained_on=`, else its class's)
    tasks: tuple[Task, ...]
    #: Tasks of a partial suite whose files are missing, as (task, "*", reason).
    skipped: tuple[tuple[str, str, str], ...]
    session: Session
    device: str


def plan_run(config: RunConfig, host: PluginHost) -> RunPlan:
    """Resolve `config` against the registered plugins; UsageError / DataError otherwise."""
    decoded_cache_bytes()  # a bad $VQA_HARNESS_IMAGE_CACHE_MB is one line before any work
    suite = resolve_suite(host, config.suite)
    entry, model, model_spec, declared = resolve_model(config.model, suite, host)
    tasks = [_with_split(t, config.split) for t in suite.tasks]
    session = Session(host, data_dir=config.data_dir, limit=config.limit)
    _validate(tasks, host, session)
    _check_rows_apart(suite.name, tasks, session, config.split)
    check_suite(suite, host)
    runnable, skipped = check_data(suite, tasks, session, trainable=model.trainable)
    _check_example_ids(model, runnable, session)
    trained_on = declared if declared is not None else type(model).trained_on
    return RunPlan(suite, model, entry, model_spec, trained_on, tuple(runnable), tuple(skipped),
                   session, resolve_device(config.device))


def resolve_model(spec: str, suite: Suite, host: PluginHost) -> tuple[Entry[type[Model]], Model, str, str | None]:
    """The model a `--model` spec names, built with its options (a model builds cheaply: its
    weights load in `setup`), its spec as rows and folders name it, and the training data it
    declares (`trained_on=`, None when not given); UsageError for an unknown name or a bad
    option. The launcher calls it for every model before the first one runs."""
    model_name, options = parse_spec(spec)
    entry = host.models.get(model_name)
    declared = options.pop(TRAINED_ON, None)
    if declared is not None:
        check_trained_on(declared, suite, host)
    if "feature_resolver" in options:  # the harness's own constructor argument, not an option
        raise UsageError(f"model {model_name!r} does not accept option(s) feature_resolver")
    model: Model = plugin_call(f"plugin {entry.plugin}:{model_name}: the model could not be created",
                               entry.obj, feature_resolver=functools.partial(resolve_features, host=host), **options)
    if declared is not None and model.trainable:
        raise UsageError(f"model {model_name!r} is trained by the harness on each task's train split; "
                         f"`{TRAINED_ON}=` declares the training data of a pretrained model")
    shown: dict[str, Any] = {k: model.config[k] for k in options}
    if declared is not None:
        shown[TRAINED_ON] = declared
    return entry, model, format_spec(model_name, shown), declared


def _check_example_ids(model: Model, tasks: list[Task], session: Session) -> None:
    """Hand a model that checks example ids (`Model.check_example_ids`, e.g. a results file)
    the ids of every split the run evaluates, before any work; other models load nothing."""
    if type(model).check_example_ids is Model.check_example_ids:
        return
    pairs = dict.fromkeys((t.dataset, t.split) for t in tasks)
    model.check_example_ids(frozenset(i for pair in pairs for i in session.ids(*pair)))


def _with_split(task: Task, split: str | None) -> Task:
    if split is None or split == task.split:
        return task
    return Task(task.dataset, split, task.probes, task.train, task.label, task.probe_options)


def _check_rows_apart(name: str, tasks: list[Task], session: Session, split: str | None) -> None:
    """No probe twice on the same data, split and training data (`rows_clash`): the suite-file
    reader refuses such a file; `--split` can make two tasks of any suite one."""
    clash = rows_clash(tasks, lambda spec: session.dataset(spec).splits)
    if clash is not None:
        first, i, j = clash
        task = tasks[i]
        after = f" once --split {split} is applied" if split is not None else ""
        raise UsageError(f"suite {name!r}: tasks[{first}] and tasks[{i}] would run probe "
                         f"{task.probes[j]!r} on the same data, split and training data{after} ({task.dataset}/"
                         f"{task.split}): rows carry neither label nor probe options, so theirs could not "
                         "be told apart; " + ("run without --split" if after else "keep one of them"))


def _validate(tasks: list[Task], host: PluginHost, session: Session) -> None:
    for task in tasks:
        plugin = session.dataset(task.dataset)  # unknown dataset / bad option -> UsageError
        if task.split not in plugin.splits:
            raise UsageError(f"dataset {plugin.name!r} has no split {task.split!r}; "
                             f"splits: {', '.join(plugin.splits)}")
        for probe in task.probes:
            host.probes.get(probe)  # unknown probe -> UsageError with near matches
