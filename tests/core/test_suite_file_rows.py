"""Suite files whose tasks would give result rows that cannot be told apart, and the
command-line mistakes around `--suite`: each is one line naming the file, the task and the
field (or the option), with exit code 2, before any data is read or any model loads."""

from __future__ import annotations

import pytest
from helpers_core import write_suite

from harness.errors import UsageError
from harness.host import PluginHost
from vqa_harness_cli import main
from vqa_harness_cli.suitefiles.read import load_suite_file


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(blocked=frozenset())


def test_one_probe_on_the_same_data_in_two_labelled_tasks_is_refused(host, tmp_path):
    # Result rows carry neither the label nor the probe options: the two tasks' rows would have
    # the same key, and the leaderboard would show one of them in place of the other.
    path = write_suite(tmp_path, """\
        name: swap-two-ways
        tasks:
        - {label: within, dataset: toyvqa, split: val, probes: [image-ablation],
           probe_options: {image-ablation: {swap_within: question_type}}}
        - {label: any, dataset: toyvqa, split: val, probes: [accuracy, image-ablation],
           probe_options: {image-ablation: {swap_within: any}}}
        """)
    with pytest.raises(UsageError, match=r"suite\.yaml: tasks\[1\]: field 'probes\[1\]': the same task as "
                                         r"tasks\[0\] for probe 'image-ablation'"):
        load_suite_file(path, host)


def test_the_default_training_data_given_in_one_task_and_not_the_other_is_refused(host, tmp_path):
    path = write_suite(tmp_path, """\
        name: default-train
        tasks:
        - {dataset: toyvqa, options: {images: 20}, split: val, probes: [accuracy]}
        - {dataset: toyvqa, options: {images: 20}, split: val, probes: [accuracy],
           train: {dataset: 'toyvqa:images=20', split: train}}
        """)
    with pytest.raises(UsageError, match=r"tasks\[1\]: field 'probes\[0\]': the same task as tasks\[0\]"):
        load_suite_file(path, host)


def test_tasks_apart_by_training_data_or_probes_are_kept(host, tmp_path):
    path = write_suite(tmp_path, """\
        name: apart
        tasks:
        - {label: UB, dataset: toyvqa, split: val, probes: [accuracy], train: {dataset: toyvqa-half, split: train}}
        - {label: BB, dataset: toyvqa, split: val, probes: [accuracy]}
        - {label: other, dataset: toyvqa, split: val, probes: [pairs]}
        """)
    assert len(load_suite_file(path, host).tasks) == 3


def test_suite_given_twice_is_refused_not_the_last_one_run(tmp_path, capsys):
    first = write_suite(tmp_path, "name: a\ntasks:\n- {dataset: toyvqa, split: val, probes: [accuracy]}\n", "a.yaml")
    code = main(["run", "--model", "prior", "--suite", str(first), "--suite", "vqa-accuracy",
                 "--out", str(tmp_path / "runs"), "--no-leaderboard"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "--suite" in err and "a.yaml" in err and "vqa-accuracy" in err, err
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("text", ["", "# only a comment\n", "\n  \n"])
def test_an_empty_yaml_file_says_it_is_empty(host, tmp_path, text):
    with pytest.raises(UsageError, match=r"empty\.yaml: empty: a suite file holds name and tasks"):
        load_suite_file(write_suite(tmp_path, text, "empty.yaml"), host)


def test_an_unknown_key_lists_the_keys_once(host, tmp_path):
    path = write_suite(tmp_path, "name: inc\ninclude: other.yaml\ntasks:\n- {dataset: toyvqa, split: val, "
                            "probes: [accuracy]}\n")
    with pytest.raises(UsageError) as info:
        load_suite_file(path, host)
    assert "field 'include': unknown key; keys: name, description, toy, partial, tasks" in str(info.value)
    assert "known:" not in str(info.value)


@pytest.mark.parametrize("dataset, probe, option, value, problem", [
    ("toyvqa-mc", "decoys", "variants", "iuo", "unknown variant"),
    ("toyvqa-mc", "decoys", "variants", "", "names no decoy set"),
    ("toyvqa-mc", "decoy-audit", "variants", "orig,xx", "decoy-audit: unknown variant"),
    ("toyvqa", "counterfactual", "kinds", "synonym_adj,bogus", "unknown perturbation kind 'bogus'"),
    ("toyvqa", "nle", "metrics", "bleu4,blue", "unknown metric"),
    ("toyvqa", "language-prior", "compare_to", "nonsense", "must be DATASET/SPLIT"),
])
def test_a_free_text_probe_option_is_checked_on_load(host, tmp_path, dataset, probe, option, value, problem):
    # Before: accepted on load; the run then trained the model and the probe failed (exit 1, no
    # rows) or, for an empty decoy-set list, gave no rows and exit 0.
    path = write_suite(tmp_path, f"name: opt\ntasks:\n- {{dataset: {dataset}, split: val, probes: [{probe}], "
                            f"probe_options: {{{probe}: {{{option}: '{value}'}}}}}}\n")
    with pytest.raises(UsageError, match=rf"suite\.yaml: tasks\[0\]: field 'probe_options\.{probe}': .*{problem}"):
        load_suite_file(path, host)


def test_split_that_makes_two_tasks_one_is_refused_before_any_work(tmp_path, capsys):
    # docs/suites.md's merge-key example: a val task and a train task; --split val made both the
    # same task, which ran twice and wrote every row twice (exit 0).
    path = write_suite(tmp_path, """\
        name: my-suite
        tasks:
        - &base {dataset: toyvqa, options: {images: 20}, split: val, probes: [accuracy]}
        - <<: *base
          label: on-train
          split: train
        """)
    code = main(["run", "--model", "prior", "--suite", str(path), "--split", "val", "--limit", "3",
                 "--out", str(tmp_path / "runs"), "--no-leaderboard"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "--split val" in err and "tasks[0]" in err and "tasks[1]" in err and "'accuracy'" in err, err
    assert not any((tmp_path / "runs").glob("*/results.jsonl"))
