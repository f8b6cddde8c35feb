"""Suites the engine runs: registered ones, the derived `toy` suite, or a `Suite` object given
as it is (docs/suites.md). Suite *files* (YAML, TOML) are read by the command line
(`vqa_harness_cli.suitefiles`), which hands the engine the `Suite` they describe."""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any, Callable, Sequence

from .errors import PluginError, UsageError
from .host import PluginHost
from .project import TOY_SUITE
from .registry import Entry, did_you_mean
from .specs import format_spec, parse_spec
from .types import Suite, Task

__all__ = ["resolve_suite", "registered_suite", "TOY_SUITE", "suite_names", "feed_gap", "check_feeds", "check_suite",
           "task_data", "rows_clash", "NAME_PATTERN", "MAX_DESCRIPTION", "SUITE_FILE_SUFFIXES"]

#: File name endings read as suite files (YAML, or TOML for `.toml`), which only the command
#: line reads.
SUITE_FILE_SUFFIXES = (".yaml", ".yml", ".toml")
#: A suite's name: results are grouped by it and run folders are named after it.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
#: Characters of a suite's description, which every run's manifest copies.
MAX_DESCRIPTION = 10_000


def suite_names(host: PluginHost) -> list[str]:
    """The registered suites and `toy`."""
    return sorted({*host.suites.names(), TOY_SUITE})


def registered_suite(host: PluginHost, name: str) -> Suite | None:
    """A registered suite, or the derived `toy` suite; None for any other name."""
    if name == TOY_SUITE and TOY_SUITE not in host.suites:
        return _toy_suite(host)
    return host.suites[name] if name in host.suites else None


def resolve_suite(host: PluginHost, suite: str | Suite) -> Suite:
    """`suite` itself when it is a `Suite`, else the registered suite (or `toy`) of that name."""
    if isinstance(suite, Suite):
        return suite
    found = registered_suite(host, suite)
    if found is not None:
        return found
    if PurePath(suite).suffix.lower() in SUITE_FILE_SUFFIXES:
        raise UsageError(f"suite {suite!r} is a file name: suite files are read by the command line "
                         "(`harness run --suite PATH.yaml`); a program passes the Suite "
                         "(vqa_harness_cli.suitefiles.load_suite_file)")
    raise UsageError(f"unknown suite {suite!r}{did_you_mean(suite, suite_names(host))} (see `harness list suites`)")


def _toy_suite(host: PluginHost) -> Suite:
    """`toy` is not a hand-kept list: every task of every registered suite marked `Suite(toy=True)`
    (a suite over the embedded toy data only), so each new toy suite joins the one-line demo
    automatically. Tasks that several suites share run once, with the union of their probes."""
    merged: dict[tuple, Task] = {}
    for task in (t for entry in host.suites if entry.obj.toy for t in entry.obj.tasks):
        key = (task.dataset, task.split, task.train, task.label)
        if key in merged:
            old = merged[key]
            probes = tuple(dict.fromkeys(old.probes + task.probes))
            options = {**task.probe_options, **old.probe_options}
            merged[key] = Task(old.dataset, old.split, probes, old.train, old.label, options)
        else:
            merged[key] = task
    if not merged:
        raise UsageError("no registered suite is a toy suite (Suite(toy=True))")
    return Suite(TOY_SUITE, "every probe that exists on the embedded toy benchmark", tuple(merged.values()))


def rows_clash(tasks: Sequence[Task], splits: Callable[[str], Sequence[str]]) -> tuple[int, int, int] | None:
    """(earlier task, later task, index of the probe in the later one) for the first probe two
    tasks run on the same data, split and training data (the default `train` split, from
    `splits(dataset spec)`, counts as given); None when there is none. Result rows carry neither
    the label nor the probe options, so such tasks' rows could not be told apart."""
    seen: dict[tuple[Any, str], int] = {}
    for i, task in enumerate(tasks):
        source = task.train_source(splits(task.dataset))
        train = None if source is None else (format_spec(*parse_spec(source[0])), source[1])
        data = (format_spec(*parse_spec(task.dataset)), task.split, train)
        for j, probe in enumerate(task.probes):
            if (data, probe) in seen:
                return seen[data, probe], i, j
            seen[data, probe] = i
    return None


def feed_gap(dataset_cls: type, probe_cls: type) -> str:
    """Why the dataset cannot feed the probe: a `needs` outside its `provides` ("" when none is,
    or either side is undeclared)."""
    provides = getattr(dataset_cls, "provides", None)
    if provides is None:
        return ""
    lacking = [n for n in getattr(probe_cls, "needs", ()) or () if n not in provides]
    if not lacking:
        return ""
    return (f"probe {probe_cls.name!r} needs {', '.join(lacking)}, which dataset {dataset_cls.name!r} does not "
            f"provide (it provides {', '.join(sorted(provides)) or 'nothing'})")


def task_data(task: Task) -> dict[str, Any]:
    """A task as plain, canonical data: what two tasks must share to be the same task (option
    values as text, the way the command line gives them; probes without options left out).
    The run's identity hashes it, and a program's suite is compared with a registered one by it."""
    name, options = parse_spec(task.dataset)
    data: dict[str, Any] = {"dataset": [name, {str(k): str(v) for k, v in sorted(options.items())}],
                            "split": task.split, "probes": list(task.probes), "label": task.label,
                            "probe_options": {str(p): {str(k): str(v) for k, v in sorted(dict(o).items())}
                                              for p, o in sorted(dict(task.probe_options).items()) if o}}
    if task.train is not None:
        train_name, train_options = parse_spec(task.train[0])
        data["train"] = [train_name, {str(k): str(v) for k, v in sorted(train_options.items())}, task.train[1]]
    return data


def check_suite(suite: Suite, host: PluginHost) -> None:
    """What the engine checks of a `Suite` before any work, as one UsageError or PluginError
    line: the name, description, probe options and reuse of a registered suite's name (or
    `toy`'s) of a suite that is not registered (a program's, or a file's, which its reader has
    checked already in the file's terms); `check_feeds` for every suite."""
    if not _registered_or_toy(suite, host):
        if not NAME_PATTERN.match(suite.name):
            raise UsageError(f"suite name {suite.name!r}: use letters, digits and . _ + - (no spaces or slashes)")
        if len(suite.description) > MAX_DESCRIPTION:
            raise UsageError(f"suite {suite.name!r}: a description of {len(suite.description):,} characters; "
                             f"at most {MAX_DESCRIPTION:,} (every run's manifest copies it)")
        same_name = _registered_or_none(host, suite.name)
        if same_name is not None and [task_data(t) for t in same_name.tasks] != [task_data(t) for t in suite.tasks]:
            raise UsageError(f"suite {suite.name!r} is the name of a registered suite (or of `toy`) with other "
                             "tasks; give this suite a name of its own (results are grouped by suite name)")
        for i, task in enumerate(suite.tasks):
            _check_probe_options(suite, i, task, host)
    check_feeds(suite, host)


def _check_probe_options(suite: Suite, index: int, task: Task, host: PluginHost) -> None:
    for probe, options in dict(task.probe_options).items():
        where = f"suite {suite.name!r}, tasks[{index}] ({task.dataset}/{task.split}), probe_options[{probe!r}]"
        if probe not in task.probes:
            raise UsageError(f"{where}: not among the task's probes ({', '.join(task.probes)})")
        try:
            host.probes.get(probe).obj(**dict(options))
        except UsageError as exc:
            raise UsageError(f"{where}: {exc}") from None


def _registered_or_none(host: PluginHost, name: str) -> Suite | None:
    try:
        return registered_suite(host, name)
    except UsageError:  # `toy` where no registered suite is a toy suite
        return None


def _registered_or_toy(suite: Suite, host: PluginHost) -> bool:
    if suite.name in host.suites:
        return host.suites[suite.name] is suite
    return suite.name == TOY_SUITE and not suite.file_sha256 and suite == _registered_or_none(host, TOY_SUITE)


def check_feeds(suite: Suite, host: PluginHost) -> None:
    """The "cannot feed" rule for every task of `suite`. In a registered suite (or `toy`) a
    gap is a plugin bug: one PluginError line naming the suite that holds the task and its
    plugin; in any other suite (a file, a program's) a UsageError line naming the task."""
    for i, task in enumerate(suite.tasks):
        dataset_cls = host.datasets.get(parse_spec(task.dataset)[0]).obj
        for probe in task.probes:
            gap = feed_gap(dataset_cls, host.probes.get(probe).obj)
            if not gap:
                continue
            if _registered_or_toy(suite, host):
                entry, index = _holder(suite, task, probe, host)
                raise PluginError(f"suite {entry.name!r} (plugin {entry.plugin!r}), tasks[{index}] "
                                  f"({task.dataset}/{task.split}): {gap}")
            raise UsageError(f"suite {suite.name!r}, tasks[{i}] ({task.dataset}/{task.split}): {gap}")


def _holder(suite: Suite, task: Task, probe: str, host: PluginHost) -> tuple[Entry, int]:
    """The registered suite, and the index of its task, that asks `probe` of `task`'s data
    (for `toy`, one of the toy suites it merges)."""
    entries = [host.suites.get(suite.name)] if suite.name in host.suites else [e for e in host.suites if e.obj.toy]
    for entry in entries:
        for index, own in enumerate(entry.obj.tasks):
            if (own.dataset, own.split, own.train) == (task.dataset, task.split, task.train) and probe in own.probes:
                return entry, index
    return entries[0], 0
