"""The engine runs a registered suite or a `Suite` object (harness.suites): suite files are the
command line's (vqa_harness_cli.suitefiles), and a program's Suite is checked like a file's."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from helpers_core import ModelPlugin, tiny_examples

from harness.api import Suite, Task
from harness.errors import UsageError
from harness.run.config import RunConfig
from harness.suites import check_feeds, check_suite, resolve_suite
from harness.testing import dataset_plugin, hookimpl, make_host, run_in_process

EXAMPLES = tiny_examples(3)


@pytest.fixture
def host():
    return make_host(ModelPlugin(), dataset_plugin("so-data", {"val": EXAMPLES}, suite="so-registered"), builtins=True,
                     names=["so-model", "so-data"])


def test_a_program_passes_a_suite_object_and_the_manifest_has_no_suite_file(host, tmp_path: Path):
    suite = Suite("mine", "built in code", (Task("so-data", "val", ("accuracy",)),))
    out = run_in_process(host, model="echo", suite=suite, tmp_path=tmp_path)
    assert out.exit_code == 0 and {r.metric for r in out.rows} >= {"vqa_accuracy"}
    manifest = json.loads((out.rundir.path / "manifest.json").read_text())
    assert manifest["suite"] == "mine" and manifest["suite_file"] is None
    assert resolve_suite(host, suite) is suite


@pytest.mark.parametrize("name", ["my.yaml", "My.YAML", "dir/x.toml"])
def test_the_engine_names_a_suite_file_it_is_given_by_name(host, name):
    with pytest.raises(UsageError, match="is a file name: suite files are read by the command line"):
        resolve_suite(host, name)


def test_an_unknown_name_is_one_line_with_near_matches(host):
    with pytest.raises(UsageError, match=r"unknown suite 'so-registerd'; did you mean: so-registered"):
        resolve_suite(host, "so-registerd")


@pytest.mark.parametrize(("suite", "problem"), [
    (Suite("two words", "", (Task("so-data", "val", ("accuracy",)),)), "use letters, digits"),
    (Suite("x/y", "", (Task("so-data", "val", ("accuracy",)),)), "no spaces or slashes"),
    (Suite("long", "d" * 10_001, (Task("so-data", "val", ("accuracy",)),)), "at most 10,000"),
    (Suite("so-registered", "", (Task("so-data", "val", ("accuracy", "accuracy")),)), "registered suite .*with other"),
    (Suite("opts", "", (Task("so-data", "val", ("accuracy",), probe_options={"accuracy": {"bogus": 1}}),)),
     r"tasks\[0\] \(so-data/val\), probe_options\['accuracy'\]: .*bogus"),
    (Suite("opts", "", (Task("so-data", "val", ("accuracy",), probe_options={"pairs": {}}),)),
     r"probe_options\['pairs'\]: not among the task's probes"),
])
def test_a_programs_suite_is_checked_like_a_suite_file(host, suite, problem):
    with pytest.raises(UsageError, match=problem):
        check_suite(suite, host)


def test_a_programs_suite_may_reuse_a_registered_name_with_the_same_tasks(host):
    registered = resolve_suite(host, "so-registered")
    check_suite(dataclasses.replace(registered), host)  # an equal copy, not the registered object
    # the same tasks written otherwise: probes as a list, an empty options entry
    task = registered.tasks[0]
    same = Task(task.dataset, task.split, list(task.probes), task.train, task.label, {"accuracy": {}})
    check_suite(Suite("so-registered", "mine", (same,)), host)


def test_a_programs_suite_named_toy_where_no_toy_suite_is_registered():
    """Not "no registered suite is a toy suite": the name is free there."""
    alone = make_host(ModelPlugin(), dataset_plugin("so-data", {"val": EXAMPLES}), builtins=False, names=["m", "d"])
    check_suite(Suite("toy", "mine", (Task("so-data", "val", ()),)), alone)


def test_cannot_feed_names_the_task_of_a_programs_suite(host):
    """The same rule as for registered suites (tests/core/test_suite_files.py), but the suite
    is the user's, so the line is a usage error naming the task."""
    mine = Suite("mine", "", (Task("toyvqa", "val", ("accuracy",)), Task("vqa-x", "val", ("pairs",))))
    with pytest.raises(UsageError, match=r"^suite 'mine', tasks\[1\] \(vqa-x/val\): probe 'pairs' needs pair_id"):
        check_feeds(mine, host)


def test_the_run_identity_takes_any_mapping_of_options():
    from types import MappingProxyType

    task = Task("so-data", "val", ("pairs",), probe_options=MappingProxyType({"pairs": MappingProxyType({"a": 1})}))
    plain = Task("so-data", "val", ("pairs",), probe_options={"pairs": {"a": "1"}})
    config = RunConfig(model="m", suite="s")
    assert config.digest("m", Suite("s", "", (task,))) == config.digest("m", Suite("s", "", (plain,)))


def test_the_run_identity_follows_the_tasks_not_the_order_options_were_written_in():
    task = Task("so-data", "val", ("accuracy", "pairs"), probe_options={"pairs": {"a": 1, "b": 2}})
    same = Task("so-data", "val", ("accuracy", "pairs"), probe_options={"pairs": {"b": 2, "a": 1}})
    other = Task("so-data", "test", ("accuracy", "pairs"), probe_options={"pairs": {"a": 1, "b": 2}})
    config = RunConfig(model="m", suite="s")
    one, two, three = (config.digest("m", Suite("s", "", (t,))) for t in (task, same, other))
    assert one == two != three


def test_a_gap_in_the_derived_toy_suite_names_the_toy_suite_that_holds_the_task():
    from harness.errors import PluginError

    class BadToy:
        @hookimpl
        def register_suites(self, register):
            register(Suite("bad-toy", "", (Task("toyvqa", "val", ("accuracy",)), Task("vqa-x", "val", ("pairs",))),
                           toy=True))

    host = make_host(BadToy(), builtins=True, names=["bad-toy-suites"])
    with pytest.raises(PluginError, match=r"^suite 'bad-toy' \(plugin 'bad-toy-suites'\), tasks\[1\] \(vqa-x/val\)"):
        check_feeds(resolve_suite(host, "toy"), host)
