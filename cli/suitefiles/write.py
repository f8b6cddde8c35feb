"""Any suite as a suite file: the data and YAML text that `vqa_harness_cli.suitefiles.read` reads back
as the same suite (`harness show suite NAME`; round trip tested for every registered suite)."""

from __future__ import annotations

from typing import Any

import yaml

from harness.api import Suite
from harness.errors import UsageError
from harness.host import PluginHost
from harness.specs import parse_spec

from .format import SCALARS, option_text, top_keys

__all__ = ["suite_data", "dump_suite"]

def _scalar(text: str) -> Any:
    """Option text as the YAML scalar that reads back as the same text."""
    try:
        value = yaml.safe_load(text) if text else text
    except yaml.YAMLError:
        return text
    if isinstance(value, SCALARS) and not isinstance(value, str) and option_text(value) == text:
        return value
    return text


def _spec_data(spec: str) -> dict[str, Any]:
    name, options = parse_spec(spec)
    out: dict[str, Any] = {"dataset": name}
    if options:
        out["options"] = {k: _scalar(v) for k, v in options.items()}
    return out


def _probe_value(host: PluginHost, probe: str, key: str, value: Any) -> Any:
    """A probe option as the probe would hold it (typed), so files and plugins compare equal."""
    cls = host.probes[probe] if probe in host.probes else None
    option = getattr(cls, "options", {}).get(key) if cls is not None else None
    if option is not None and isinstance(value, SCALARS):
        try:
            return option.parse(probe, key, option_text(value))
        except UsageError:
            return value
    return value


def suite_data(suite: Suite, host: PluginHost) -> dict[str, Any]:
    """The suite as suite-file data (plain dicts, lists and scalars, in file order)."""
    out: dict[str, Any] = {"name": suite.name, "description": suite.description}
    for key in top_keys()[2:-1]:
        if getattr(suite, key, False):
            out[key] = True
    tasks = []
    for task in suite.tasks:
        item: dict[str, Any] = {}
        if task.label:
            item["label"] = task.label
        item.update(_spec_data(task.dataset))
        item["split"] = task.split
        item["probes"] = list(task.probes)
        options = {p: {k: _probe_value(host, p, k, v) for k, v in dict(o).items()}
                   for p, o in dict(task.probe_options).items() if o}
        if options:
            item["probe_options"] = options
        if task.train is not None:
            item["train"] = {**_spec_data(task.train[0]), "split": task.train[1]}
        tasks.append(item)
    out["tasks"] = tasks
    return out


def dump_suite(suite: Suite, host: PluginHost, *, header: str = "") -> str:
    """YAML text of `suite` that `load_suite_file` reads back as the same suite; `header`
    (comment lines without '#') goes on top."""

    data = suite_data(suite, host)
    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=None, width=100)
    if yaml.safe_load(body) != data:  # PyYAML writes some characters (U+0085) in a style that
        # reads back folded: escaped ASCII ("\N") reads back exact
        body = yaml.safe_dump(data, sort_keys=False, allow_unicode=False, default_flow_style=None, width=100)
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    return "\n".join(lines + [body.rstrip("\n")]) + "\n"
