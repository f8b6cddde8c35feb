"""Registered suites and the derived `toy` suite.

`toy` is not a hand-kept list: it is every task of every registered suite marked
`Suite(toy=True)` (a suite over the embedded toy data only), so each new toy suite joins the
one-line demo automatically. Tasks that several suites share are run once, with the union
of their probes.
"""

from __future__ import annotations

from ..api import Suite, Task
from ..errors import UsageError
from ..host import PluginHost

__all__ = ["registered_suite", "TOY_SUITE", "suite_names"]

TOY_SUITE = "toy"


def suite_names(host: PluginHost) -> list[str]:
    """Names `harness.suites.resolve_suite` accepts besides suite files: the registered suites and `toy`."""
    return sorted({*host.suites.names(), TOY_SUITE})


def registered_suite(host: PluginHost, name: str) -> Suite | None:
    """A registered suite, or the derived `toy` suite; None for any other name."""
    if name == TOY_SUITE and TOY_SUITE not in host.suites:
        return _toy_suite(host)
    return host.suites[name] if name in host.suites else None


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
