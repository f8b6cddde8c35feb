"""Suites the engine runs: registered ones, the derived `toy` suite, or a `Suite` object given
as it is (docs/suites.md).

`toy` is not a hand-kept list: it is every task of every registered suite marked
`Suite(toy=True)` (a suite over the embedded toy data only), so each new toy suite joins the
one-line demo automatically. Tasks that several suites share are run once, with the union
of their probes.

Suite *files* (YAML, TOML) are read by the command line (`vqa_harness_cli.suitefiles`), which
hands the engine the `Suite` they describe; a program builds `Suite` objects itself.
"""

from __future__ import annotations

from .errors import PluginError, UsageError
from .host import PluginHost
from .registry import did_you_mean
from .specs import parse_spec
from .types import Suite, Task

__all__ = ["resolve_suite", "registered_suite", "TOY_SUITE", "suite_names", "feed_gap", "check_feeds"]

TOY_SUITE = "toy"
#: File name endings of suite files, which only the command line reads.
_FILE_SUFFIXES = (".yaml", ".yml", ".toml")


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
    if suite.endswith(_FILE_SUFFIXES):
        raise UsageError(f"suite {suite!r} is a file name: suite files are read by the command line "
                         "(`harness run --suite PATH.yaml`); a program passes the Suite "
                         "(vqa_harness_cli.suitefiles.load_suite_file)")
    raise UsageError(f"unknown suite {suite!r}{did_you_mean(suite, suite_names(host))} "
                     "(or a suite file PATH.yaml / PATH.toml; see docs/suites.md)")


def _toy_suite(host: PluginHost) -> Suite:
    merged: dict[tuple, Task] = {}
    for entry in host.suites:
        if not entry.obj.toy:
            continue
        for task in entry.obj.tasks:
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


# ---------------------------------------------------------------------------- "cannot feed"


def feed_gap(dataset_cls: type, probe_cls: type) -> str:
    """Why the dataset cannot feed the probe ("" when it can or either side is undeclared):
    a probe's `needs` (Example fields it cannot do without) must be among the dataset's
    `provides` (the fields its examples can fill)."""
    provides = getattr(dataset_cls, "provides", None)
    needs = tuple(getattr(probe_cls, "needs", ()) or ())
    if provides is None or not needs:
        return ""
    lacking = [n for n in needs if n not in provides]
    if not lacking:
        return ""
    return (f"probe {probe_cls.name!r} needs {', '.join(lacking)}, which dataset {dataset_cls.name!r} does not "
            f"provide (it provides {', '.join(sorted(provides)) or 'nothing'})")


def check_feeds(suite: Suite, host: PluginHost) -> None:
    """The "cannot feed" rule for every task of `suite`. In a registered suite it is a plugin
    bug: one PluginError line naming the suite and its plugin (`toy` checks every toy suite);
    in any other suite (a file, a program's) a UsageError line naming the task."""
    if suite.name in host.suites:
        owners = [(host.suites.get(suite.name).obj, host.suites.get(suite.name))]
    elif suite.name == TOY_SUITE and not suite.file_sha256:
        owners = [(entry.obj, entry) for entry in host.suites if entry.obj.toy]
    else:
        owners = [(suite, None)]
    for owned, entry in owners:
        for i, task in enumerate(owned.tasks):
            dataset_cls = host.datasets.get(parse_spec(task.dataset)[0]).obj
            for probe in task.probes:
                gap = feed_gap(dataset_cls, host.probes.get(probe).obj)
                if gap and entry is not None:
                    raise PluginError(f"suite {entry.name!r} (plugin {entry.plugin!r}), tasks[{i}] "
                                      f"({task.dataset}/{task.split}): {gap}")
                if gap:
                    raise UsageError(f"suite {suite.name!r}, tasks[{i}] ({task.dataset}/{task.split}): {gap}")
