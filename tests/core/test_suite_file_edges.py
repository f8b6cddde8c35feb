"""Suite files and specs at their edges: a value with a quote, the same task twice, nesting too
deep, a repeated spec key, YAML 1.1 integers, and the toy image size: each is one line naming
what is at fault, or read exactly as the command line reads it."""

from __future__ import annotations

import pytest
from helpers_core import write_suite

from harness.errors import UsageError
from harness.host import PluginHost
from harness.specs import parse_spec
from vqa_harness_cli.suitefiles.read import load_suite_file


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(blocked=frozenset())


TASK = "  - {dataset: toyvqa, options: {images: 20, seed: 0}, split: val, probes: [accuracy]}\n"


def test_the_same_task_twice_is_refused_naming_both(host, tmp_path):
    twice = write_suite(tmp_path, "name: dup\ntasks:\n" + TASK
                   + "  - {dataset: 'toyvqa:seed=0', options: {images: 20}, split: val, probes: [accuracy]}\n")
    with pytest.raises(UsageError, match=r"tasks\[1\].*the same task as tasks\[0\]"):
        load_suite_file(twice, host)


def test_a_quote_in_an_option_value_is_refused_not_read_as_another_value(host, tmp_path):
    quoted = write_suite(tmp_path, """\
        name: quote
        tasks:
          - {dataset: vqa2, options: {root: "it's", duplicates: keep-first}, split: val, probes: [accuracy]}
        """)
    with pytest.raises(UsageError, match=r"options\.root.*cannot be written into a dataset spec"):
        load_suite_file(quoted, host)


@pytest.mark.parametrize("name, text", [("deep.yaml", "tasks: " + "[" * 1000 + "]" * 1000 + "\n"),
                                        ("deep.toml", "tasks = " + "[" * 1000 + "]" * 1000 + "\n")])
def test_nesting_too_deep_is_one_line(host, tmp_path, name, text):
    with pytest.raises(UsageError, match="nested too deeply"):
        load_suite_file(write_suite(tmp_path, text, name), host)


def test_an_option_given_twice_in_a_spec_is_refused():
    with pytest.raises(UsageError, match="option 'epochs' given twice"):
        parse_spec("qonly:epochs=abc,epochs=1")


def test_yaml_integers_are_read_as_the_command_line_reads_them(host, tmp_path):
    octal = write_suite(tmp_path, "name: octal\ntasks:\n  - {dataset: toyvqa, options: {images: 20, seed: 010}, "
                             "split: val, probes: [accuracy]}\n")
    (task,) = load_suite_file(octal, host).tasks
    assert parse_spec(task.dataset)[1]["seed"] == "010"  # ten, as toyvqa:seed=010 (YAML 1.1 read 8)
    hexa = write_suite(tmp_path, "name: hexa\ntasks:\n  - {dataset: toyvqa, options: {images: 0x1e}, "
                            "split: val, probes: [accuracy]}\n")
    with pytest.raises(UsageError, match="images"):
        load_suite_file(hexa, host)


def test_the_toy_image_size_option_has_the_generators_least(host, tmp_path):
    small = write_suite(tmp_path, "name: small\ntasks:\n  - {dataset: toyvqa, options: {size: 10}, "
                             "split: val, probes: [accuracy]}\n")
    with pytest.raises(UsageError, match=r"tasks\[0\].*size"):
        load_suite_file(small, host)
