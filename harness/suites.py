"""Suite resolution, including the derived `toy` suite.

`toy` is not a hand-kept list: it is every task, of every registered suite, whose dataset
is an embedded toy dataset (name starting with "toy"), so each new suite that runs on the
toy benchmark joins the one-line demo automatically.
"""

from __future__ import annotations

from .api import Suite, Task
from .errors import UsageError
from .plugins import PluginHost
from .registry import did_you_mean
from .specs import parse_spec

__all__ = ["resolve_suite", "TOY_SUITE", "suite_names"]

TOY_SUITE = "toy"


def suite_names(host: PluginHost) -> list[str]:
    return sorted({*host.suites.names(), TOY_SUITE})


def resolve_suite(host: PluginHost, name: str) -> Suite:
    if name == TOY_SUITE and TOY_SUITE not in host.suites:
        return _toy_suite(host)
    if name not in host.suites:
        raise UsageError(f"unknown suite {name!r}{did_you_mean(name, suite_names(host))}")
    return host.suites[name]


def _toy_suite(host: PluginHost) -> Suite:
    merged: dict[tuple, Task] = {}
    for entry in host.suites:
        for task in entry.obj.tasks:
            if not parse_spec(task.dataset)[0].startswith("toy"):
                continue
            key = (task.dataset, task.split, task.train, task.label)
            if key in merged:
                old = merged[key]
                probes = tuple(dict.fromkeys(old.probes + task.probes))
                options = {**task.probe_options, **old.probe_options}
                merged[key] = Task(old.dataset, old.split, probes, old.train, old.label, options)
            else:
                merged[key] = task
    if not merged:
        raise UsageError("no registered suite has toy tasks")
    return Suite(TOY_SUITE, "every probe that exists on the embedded toy benchmark", tuple(merged.values()))
