"""Suites: registered ones, the derived `toy` suite, and suite files (docs/suites.md).

- `registered`: the registered suites and `toy` (every task of every toy suite);
- `format`: the suite-file format's vocabulary;
- `read`: a suite file, checked against the registered plugins, as a `Suite`;
- `write`: any suite as a suite file (`harness show suite NAME`).
"""

from __future__ import annotations

from ..errors import UsageError
from ..host import PluginHost
from ..registry import did_you_mean
from ..types import Suite
from .format import is_suite_file
from .read import load_suite_file
from .registered import TOY_SUITE, registered_suite, suite_names

__all__ = ["resolve_suite", "TOY_SUITE", "suite_names"]


def resolve_suite(host: PluginHost, name: str) -> Suite:
    """A registered suite, the derived `toy` suite, or a suite file (a name ending in
    .yaml/.yml/.toml, or an existing file)."""
    suite = registered_suite(host, name)
    if suite is not None:
        return suite
    if is_suite_file(name):
        return load_suite_file(name, host)
    raise UsageError(f"unknown suite {name!r}{did_you_mean(name, suite_names(host))} "
                     "(or a suite file PATH.yaml / PATH.toml; see docs/suites.md)")
