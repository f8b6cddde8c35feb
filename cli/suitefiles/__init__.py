"""Suite files (docs/suites.md): `harness run --suite PATH.yaml` reads one into the `Suite`
the engine runs, `harness show suite` writes any suite as one.

- `format`: the suite-file format's vocabulary;
- `read`: a suite file, checked against the registered plugins, as a `Suite`;
- `write`: any suite as a suite file.
"""

from __future__ import annotations

from harness.errors import UsageError
from harness.host import PluginHost
from harness.suites import registered_suite, resolve_suite
from harness.types import Suite

from .format import is_suite_file
from .read import load_suite_file

__all__ = ["suite_from_command_line", "load_suite_file"]


def suite_from_command_line(host: PluginHost, name: str) -> Suite:
    """`--suite NAME`: a registered suite, the derived `toy` suite, or a suite file (a name
    ending in .yaml/.yml/.toml, or an existing file); else one UsageError line."""
    found = registered_suite(host, name)
    if found is not None:
        return found
    if is_suite_file(name):
        return load_suite_file(name, host)
    try:
        return resolve_suite(host, name)
    except UsageError as exc:  # an unknown name: the engine's line, and where suite files fit in
        raise UsageError(f"{exc}; or a suite file PATH.yaml / PATH.toml (docs/suites.md)") from None
