"""Suite resolution: registered suites, the derived `toy` suite and suite files.

`toy` is not a hand-kept list: it is every task of every registered suite marked
`Suite(toy=True)` (a suite over the embedded toy data only), so each new toy suite joins the
one-line demo automatically. Tasks that several suites share are run once, with the union
of their probes.
"""

from __future__ import annotations

from ..api import Suite, Task
from ..errors import UsageError
from ..host import PluginHost
from ..registry import did_you_mean

__all__ = ["resolve_suite", "TOY_SUITE", "suite_names"]

TOY_SUITE = "toy"


def suite_names(host: PluginHost) -> list[str]:
    """Names `resolve_suite` accepts besides suite files: the registered suites and `toy`."""
    return sorted({*host.suites.names(), TOY_SUITE})


def resolve_suite(host: PluginHost, name: str) -> Suite:
    """A registered suite, the derived `toy` suite, or a suite file (a name ending in
    .yaml/.yml/.toml, or an existing file; harness.suites.read, docs/suites.md)."""
    if name == TOY_SUITE and TOY_SUITE not in host.suites:
        return _toy_suite(host)
    if name in host.suites:
        return host.suites[name]
    from .read import is_suite_file, load_suite_file

    if is_suite_file(name):
        return load_suite_file(name, host)
    raise UsageError(f"unknown suite {name!r}{did_you_mean(name, suite_names(host))} "
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
