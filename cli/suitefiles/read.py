"""Suites from a file (`harness run --suite PATH.yaml`) and suites as files (`harness show suite`).

A suite file is YAML (`.yaml`, `.yml`, or any other existing file) or TOML (`.toml`) holding
one mapping (docs/suites.md):

    name: my-goyal                 # required: letters, digits, . _ + -
    description: ...               # optional
    toy: false                     # optional: runs on embedded data only
    partial: false                 # optional: run the tasks whose files exist, skip the rest
    tasks:                         # required, at least one
      - label: UB                  # optional: the task's name in tables
        dataset: vqa2              # required: a registered dataset ("name:key=value" works too)
        options: {root: vqa2}      # optional: dataset options
        split: val                 # required: one of the dataset's splits
        probes: [balanced-accuracy, pairs]        # required: registered probes
        probe_options: {pairs: {}}                # optional: options per probe of the task
        train: {dataset: vqa1, options: {}, split: train}   # optional: training data

Everything is checked on load, before any data or model is touched: a wrong type, an
unknown key, an empty task list, a missing required field, an unknown dataset / probe /
option / split, and a probe that the dataset cannot feed are one-line usage errors (exit 2)
naming the file, the task (`tasks[2]`, counted from 0) and the field. "Cannot feed" is a
static rule: a probe's `needs` (Example fields it cannot do without) must be among the
dataset's `provides` (the fields its examples can fill); undeclared on either side means no
check. `vqa_harness_cli.suitefiles.write.dump_suite` writes any suite in exactly this format.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path
from typing import Any, Mapping

import yaml

from harness.digest import digest_bytes
from harness.errors import HarnessError, UsageError
from harness.fileio import decode_text, describe, exists, read_bytes
from harness.host import PluginHost
from harness.jsonio import lone_surrogate_at
from harness.registry import did_you_mean
from harness.specs import parse_spec
from harness.suites import MAX_DESCRIPTION, NAME_PATTERN, feed_gap, registered_suite, rows_clash
from harness.types import Suite, Task

from .format import SCALARS, TASK_KEYS, TRAIN_KEYS, option_text, top_keys
from .write import suite_data

__all__ = ["load_suite_file", "parse_suite", "MAX_FILE_BYTES"]

#: A suite file is a list of tasks: larger is a mistake (or worse), refused before parsing.
MAX_FILE_BYTES = 1024 * 1024

# ---------------------------------------------------------------------------- reading


def load_suite_file(path: Path | str, host: PluginHost) -> Suite:
    """The suite a file describes, checked against the registered plugins (UsageError)."""
    path = Path(path)
    try:
        found = exists(path)
    except HarnessError as exc:  # a folder on the way this user may not search, a name too long
        raise UsageError(f"suite file {exc}") from None
    if not found:
        raise UsageError(f"suite file {path} not found (a suite is a registered name, see `harness list suites`, "
                         "or a .yaml/.toml file, see docs/suites.md)")
    try:
        blob = read_bytes(path)
        if len(blob) > MAX_FILE_BYTES:
            raise UsageError(f"{path}: {len(blob):,} bytes; a suite file is at most {MAX_FILE_BYTES:,} bytes "
                             "(it lists tasks; data files are read from --data-dir)")
        text = decode_text(blob, path)
    except HarnessError as exc:
        raise UsageError(str(exc)) from None
    suite = parse_suite(_parse_text(text, path), host, source=str(path))
    # Hashed from the bytes parsed: a file edited while the run starts cannot give the run
    # the identity of one version and the tasks of another.
    return dataclasses.replace(suite, file_sha256=digest_bytes(blob), file=str(path.resolve()))


def _toml() -> Any:
    """tomllib (Python >= 3.11), else its backport tomli (a dependency on Python 3.10)."""
    try:
        import tomllib  # the standard library's TOML reader from Python 3.11
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # its backport on Python 3.10
    return tomllib


def _parse_text(text: str, path: Path) -> Any:
    if path.suffix.lower() == ".toml":
        tomllib = _toml()
        try:
            return tomllib.loads(text)
        except RecursionError:
            raise UsageError(f"{path}: nested too deeply to be a suite file") from None
        except tomllib.TOMLDecodeError as exc:
            raise UsageError(f"{path}: not valid TOML ({' '.join(str(exc).split())})") from None

    try:
        return yaml.load(text, Loader=_strict_loader())  # a SafeLoader subclass
    except RecursionError:
        raise UsageError(f"{path}: nested too deeply to be a suite file") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1} column {mark.column + 1}: " if mark is not None else ""
        problem = " ".join(str(exc.problem or exc.context or "").split())
        if getattr(exc, "valid_yaml", False):
            raise UsageError(f"{path}: {where}{problem}") from None
        raise UsageError(f"{path}: {where}not valid YAML ({problem})") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: not valid YAML ({' '.join(str(exc).split())})") from None


@functools.cache
def _strict_loader() -> type:
    """A SafeLoader that refuses a key repeated in one mapping (YAML would keep the last) and a
    list or mapping as a key (no name is a list), with the line; merge keys (`<<: *anchor`)
    work as YAML defines them: the mapping's own keys win over merged ones, and only its own
    keys count as repeated. Built on first use, so PyYAML is imported only for suite files."""

    class StrictLoader(yaml.SafeLoader):
        pass

    def construct_mapping(loader, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # `<<`: checked by flatten_mapping
                continue
            key = loader.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict, set)):  # valid YAML, but no key of a suite file
                error = yaml.constructor.ConstructorError(
                    None, None, f"a {'list' if isinstance(key, list) else 'mapping'} cannot be a key in a suite file "
                    "(keys are names)",
                    key_node.start_mark)
                error.valid_yaml = True
                raise error
            if isinstance(key, SCALARS) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice in one mapping", key_node.start_mark)
            seen.add(key)
        loader.flatten_mapping(node)  # merge keys: a bad one is a ConstructorError with its line
        return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    # Integers as YAML 1.2 and the command line read them: plain decimal only. YAML 1.1's
    # octal (010 = 8), hexadecimal and base-60 (1:30 = 90) forms stay text, checked as text.
    int_tag = "tag:yaml.org,2002:int"
    StrictLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != int_tag]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    # (a leading zero stays text: PyYAML's int constructor would read it as octal)
    StrictLoader.add_implicit_resolver(int_tag, re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$"), list("-+0123456789"))
    return StrictLoader


# ---------------------------------------------------------------------------- checking


class _Where:
    """Builds the one-line errors: `<file>: <record>: field '<name>': <problem>`."""

    def __init__(self, source: str) -> None:
        self.source = source

    def error(self, record: str, field: str | None, problem: str) -> UsageError:
        parts = [self.source] + ([record] if record else []) + ([f"field {field!r}"] if field else [])
        return UsageError(": ".join(parts + [" ".join(problem.split())]))


def _kind(value: Any) -> str:
    return describe(value)


def parse_suite(data: Any, host: PluginHost, *, source: str = "<suite>") -> Suite:
    """A Suite from parsed suite-file data (see the module docstring); UsageError naming
    `source`, the task and the field for anything wrong."""
    where = _Where(source)
    if data is None:  # an empty file, or only comments
        raise where.error("", None, "empty: a suite file holds name and tasks (docs/suites.md)")
    if not isinstance(data, dict):
        raise where.error("", None, f"expected a mapping with name, description and tasks, got {_kind(data)}")
    _check_text(data, where)
    _check_keys(data, top_keys(), where, "")
    for key in ("name", "tasks"):
        if key not in data:
            raise where.error("", key, "missing (required)")
    name = data["name"]
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise where.error("", "name", f"expected a name of letters, digits and . _ + - (no spaces), got {_kind(name)}")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise where.error("", "description", f"expected a string, got {_kind(description)}")
    if len(description) > MAX_DESCRIPTION:
        raise where.error("", "description", f"{len(description):,} characters; at most {MAX_DESCRIPTION:,} "
                                             "(every run's manifest copies it)")
    flags = {}
    for key in top_keys()[2:-1]:
        if key in data:
            if not isinstance(data[key], bool):
                raise where.error("", key, f"expected true or false, got {_kind(data[key])}")
            flags[key] = data[key]
    tasks = data["tasks"]
    if not isinstance(tasks, list):
        raise where.error("", "tasks", f"expected a list of tasks, got {_kind(tasks)}")
    if not tasks:
        raise where.error("", "tasks", "empty: a suite needs at least one task")
    parsed = tuple(_task(item, i, host, where) for i, item in enumerate(tasks))
    _check_rows_apart(parsed, host, where)
    seen: dict[Any, int] = {}
    for i, task in enumerate(parsed):  # the same task twice would run twice and repeat its rows
        data_name, options = parse_spec(task.dataset)
        same = (data_name, tuple(sorted(options.items())), task.split, task.train, task.label,
                tuple(sorted((p, tuple(sorted(o.items()))) for p, o in task.probe_options.items())))
        if same in seen:
            raise where.error(f"tasks[{i}]", None, f"the same task as tasks[{seen[same]}] (data, split, training "
                                                   "data, label and probe options); give it another label or drop it")
        seen[same] = i
    suite = Suite(name=name, description=description, tasks=parsed, **flags)
    _check_name(suite, host, where)
    return suite


def _check_rows_apart(tasks: tuple[Task, ...], host: PluginHost, where: _Where) -> None:
    """A probe twice on the same data, split and training data (`rows_clash`): one would stand
    in for the other in the leaderboard."""
    clash = rows_clash(tasks, lambda spec: host.datasets[parse_spec(spec)[0]].splits)
    if clash is not None:
        first, i, j = clash
        raise where.error(f"tasks[{i}]", f"probes[{j}]", f"the same task as tasks[{first}] for "
                          f"probe {tasks[i].probes[j]!r} (same data, split and training data; result rows carry "
                          "neither label nor probe options, so the two tasks' rows could not be told apart): "
                          "keep one, or run the other in a suite of its own")


def _check_text(data: Mapping[str, Any], where: _Where) -> None:
    """A YAML "\\ud800" escape gives a lone surrogate, text no UTF-8 file can hold (the
    manifest, report.md, the run's digest): refused here, naming the task and the field."""
    found = lone_surrogate_at(data)
    if found is None:
        return
    record, _, field = found.partition(".") if found.startswith("tasks[") else ("", "", found)
    raise where.error(record, field or None, "holds a \\ud800-\\udfff escape without its other half (a lone "
                                             "surrogate), which is not a character; write the character itself")


def _check_keys(mapping: Mapping[str, Any], allowed: tuple[str, ...], where: _Where, record: str,
                prefix: str = "") -> None:
    for key in mapping:
        if key not in allowed:
            shown = str(key)
            hint = did_you_mean(shown, list(allowed))
            hint = hint if hint.startswith("; did you mean") else ""  # not the keys again
            raise where.error(record, prefix + shown, f"unknown key; keys: {', '.join(allowed)}{hint}")


def _task(item: Any, index: int, host: PluginHost, where: _Where) -> Task:
    record = f"tasks[{index}]"
    if not isinstance(item, dict):
        raise where.error(record, None, f"expected a mapping (dataset, split, probes, ...), got {_kind(item)}")
    _check_keys(item, TASK_KEYS, where, record)
    for key in ("dataset", "split", "probes"):
        if key not in item:
            raise where.error(record, key, "missing (required)")
    dataset_cls, spec = _dataset(item, host, where, record, "")
    split = _split(item["split"], dataset_cls, where, record, "split")
    probes = item["probes"]
    if not isinstance(probes, list) or not probes:
        raise where.error(record, "probes", f"expected a non-empty list of probe names, got {_kind(probes)}")
    classes = {}
    for j, probe in enumerate(probes):
        if not isinstance(probe, str):
            raise where.error(record, f"probes[{j}]", f"expected a probe name, got {_kind(probe)}")
        if probe in classes:
            raise where.error(record, f"probes[{j}]", f"probe {probe!r} is listed twice")
        if probe not in host.probes:
            raise where.error(record, f"probes[{j}]", f"unknown probe {probe!r}{did_you_mean(probe, host.probes.names())}")
        classes[probe] = host.probes[probe]
        gap = feed_gap(dataset_cls, classes[probe])
        if gap:
            raise where.error(record, f"probes[{j}]", gap)
    probe_options = _probe_options(item.get("probe_options", {}), classes, where, record)
    train = None
    if "train" in item:
        train = _train(item["train"], host, where, record)
    label = item.get("label", "")
    if not isinstance(label, str):
        raise where.error(record, "label", f"expected a string, got {_kind(label)}")
    return Task(spec, split, tuple(probes), train, label, probe_options)


def _dataset(item: Mapping[str, Any], host: PluginHost, where: _Where, record: str, prefix: str) -> tuple[type, str]:
    """(dataset class, spec text) from `dataset` and `options`, the options checked."""
    value = item["dataset"]
    if not isinstance(value, str) or not value.strip():
        raise where.error(record, prefix + "dataset", f"expected a dataset name, got {_kind(value)}")
    try:
        name, inline = parse_spec(value)
    except UsageError as exc:
        raise where.error(record, prefix + "dataset", str(exc)) from None
    if name not in host.datasets:
        raise where.error(record, prefix + "dataset",
                          f"unknown dataset {name!r}{did_you_mean(name, host.datasets.names())}")
    cls = host.datasets[name]
    options = item.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise where.error(record, prefix + "options", f"expected a mapping of dataset options, got {_kind(options)}")
    merged = dict(inline)
    for key, raw in options.items():
        field = f"{prefix}options.{key}"
        if not isinstance(raw, SCALARS):
            raise where.error(record, field, f"expected a string, number or true/false, got {_kind(raw)}")
        if key in inline:
            raise where.error(record, field, f"also given in the dataset spec {value!r}")
        merged[str(key)] = option_text(raw)
    try:
        cls(data_dir=None, **merged)  # checks names, types and ranges; reads nothing
    except UsageError as exc:
        raise where.error(record, prefix + "options", str(exc)) from None
    for key, text in merged.items():
        if "," in text and "'" in text:
            raise where.error(record, f"{prefix}options.{key}", "a value cannot hold both a comma and a quote")
    body = ",".join(f"{k}='{v}'" if "," in v else f"{k}={v}" for k, v in merged.items())
    spec = f"{name}:{body}" if body else name
    for key, text in parse_spec(spec)[1].items():  # what the run will read back, option by option
        if merged.get(key) != text:
            raise where.error(record, f"{prefix}options.{key}", f"the value {merged.get(key)!r} cannot be written "
                                                                "into a dataset spec (a quote ' in it)")
    return cls, spec


def _split(value: Any, cls: type, where: _Where, record: str, field: str) -> str:
    if not isinstance(value, str):
        raise where.error(record, field, f"expected a split name, got {_kind(value)}")
    if value not in cls.splits:
        raise where.error(record, field, f"dataset {cls.name!r} has no split {value!r}; splits: {', '.join(cls.splits)}")
    return value


def _train(value: Any, host: PluginHost, where: _Where, record: str) -> tuple[str, str]:
    if not isinstance(value, dict):
        raise where.error(record, "train", f"expected a mapping with dataset, options and split, got {_kind(value)}")
    _check_keys(value, TRAIN_KEYS, where, record, "train.")
    for key in ("dataset", "split"):
        if key not in value:
            raise where.error(record, f"train.{key}", "missing (required)")
    cls, spec = _dataset(value, host, where, record, "train.")
    return spec, _split(value["split"], cls, where, record, "train.split")


def _probe_options(value: Any, classes: Mapping[str, type], where: _Where, record: str) -> dict[str, dict[str, Any]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise where.error(record, "probe_options", f"expected a mapping probe -> options, got {_kind(value)}")
    out: dict[str, dict[str, Any]] = {}
    for probe, options in value.items():
        field = f"probe_options.{probe}"
        if probe not in classes:
            raise where.error(record, field, f"{probe!r} is not among the task's probes ({', '.join(classes)})")
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise where.error(record, field, f"expected a mapping of probe options, got {_kind(options)}")
        for key, raw in options.items():
            if not isinstance(raw, SCALARS):
                raise where.error(record, f"{field}.{key}", f"expected a string, number or true/false, got {_kind(raw)}")
        try:
            instance = classes[probe](**{str(k): option_text(v) for k, v in options.items()})
        except UsageError as exc:
            raise where.error(record, field, str(exc)) from None
        if options:
            out[probe] = {str(k): instance.config[str(k)] for k in options}
    return out


def _check_name(suite: Suite, host: PluginHost, where: _Where) -> None:
    """A file may reuse a registered suite's name only for the same tasks (results of
    different tasks under one name would mix in the leaderboard)."""
    registered = registered_suite(host, suite.name)
    if registered is None:
        return
    if suite_data(registered, host)["tasks"] != suite_data(suite, host)["tasks"]:
        raise where.error("", "name", f"{suite.name!r} is a registered suite with other tasks; give this suite "
                                      "a name of its own (results are grouped by suite name)")
