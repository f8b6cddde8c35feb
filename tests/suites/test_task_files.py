"""Probe files are keyed by the whole task: no two tasks of a built-in suite write the same
file, and the `goyal` suite's three tasks on VQA v2 val keep three answer files, each of
which reproduces its task's accuracy (issue 26, finding 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_official import write_world

from harness.rundir import RunDir, task_folder
from harness.suites import resolve_suite, suite_names
from harness.testing import make_host, run_in_process
from harness.types import Task
from vqa_harness_cli.suitefiles import load_suite_file


@pytest.fixture(scope="module")
def host():
    return make_host(builtins=True)


def test_no_two_tasks_of_a_built_in_suite_share_a_probe_folder(host, tmp_path: Path) -> None:
    rundir = RunDir(tmp_path / "run")
    checked = 0
    for name in suite_names(host):
        suite = resolve_suite(host, name)
        seen: dict[Path, str] = {}
        for task in suite.tasks:
            for probe in task.probes:
                files = rundir.probe_files(task, probe)
                for folder in (files.predictions_folder, files.artifacts_folder):
                    other = seen.setdefault(folder, f"{task.title} {probe}")
                    assert other == f"{task.title} {probe}", f"suite {name}: {other} and {task.title} {probe} " \
                                                             f"both write {folder.relative_to(rundir.path)}"
                checked += 1
    assert checked > 40  # every built-in suite, the derived toy suite included


def test_task_folders_tell_apart_what_makes_a_task() -> None:
    base = Task("vqa2", "val", ("accuracy",))
    variants = [base, Task("vqa2", "val", ("accuracy",), train=("vqa1", "train")),
                Task("vqa2", "val", ("accuracy",), train=("vqa2", "train")),
                Task("vqa2", "val", ("accuracy",), train=("vqa2", "train"), label="BB"),
                Task("vqa2", "val", ("accuracy",), probe_options={"accuracy": {"x": 1}})]
    names = [task_folder(t) for t in variants]
    assert len(set(names)) == len(names) and names[0] == "default" and names[3].startswith("BB-")
    assert task_folder(Task("vqa2", "val", ("pairs",), train=("vqa2", "train"), label="BB")) == names[3]


@pytest.fixture(scope="module")
def goyal(host, tmp_path_factory):
    root = tmp_path_factory.mktemp("official")
    write_world(root)
    tmp = tmp_path_factory.mktemp("goyal")
    out = run_in_process(host, model="qtype-prior", suite="goyal", tmp_path=tmp, data_dir=root)
    assert out.exit_code == 0, (out.probe_failures, out.skipped)
    return root, out


def test_goyal_keeps_one_answer_file_per_v2_val_task(goyal) -> None:
    _, out = goyal
    files = sorted((out.rundir.path / "predictions" / "vqa2" / "val").glob("*/balanced-accuracy/answer.jsonl"))
    assert len(files) == 3  # UB, B_half B, BB
    assert {f.parent.parent.name.split("-")[0] for f in files} == {"UB", "B_half_B", "BB"}
    contents = [f.read_text() for f in files]
    assert len(set(contents)) == 3  # three trainings, three sets of answers, none overwritten


def test_each_task_accuracy_reproduces_from_its_own_file(goyal, host, tmp_path: Path) -> None:
    root, out = goyal
    rows = {r.train: r for r in out.rows if r.probe == "balanced-accuracy" and r.dataset == "vqa2"
            and r.metric == "vqa_accuracy"}
    assert set(rows) == {"vqa1/train", "vqa2-half/train", "vqa2/train"}
    assert len({round(r.value, 9) for r in rows.values()}) >= 2  # the trainings differ in what they answer
    suite = tmp_path / "v2val.yaml"
    suite.write_text("name: v2val\ntasks:\n- {dataset: vqa2, split: val, probes: [accuracy]}\n")
    found = sorted((out.rundir.path / "predictions" / "vqa2" / "val").glob("*/balanced-accuracy/answer.jsonl"))
    assert len(found) == 3
    for answers in found:
        lines = [json.loads(line) for line in answers.read_text().splitlines()]
        replay = tmp_path / f"{answers.parent.parent.name}.jsonl"
        replay.write_text("".join(json.dumps({"id": p["example_id"], "answer": p["answer"]}) + "\n" for p in lines))
        again = run_in_process(host, model=f"predictions:path={replay}", suite=load_suite_file(suite, host), data_dir=root,
                               tmp_path=tmp_path / answers.parent.parent.name)
        (value,) = [r.value for r in again.rows if r.metric == "vqa_accuracy"]
        train = _train_of(host, answers)
        assert value == pytest.approx(rows[train].value, abs=1e-12), (answers, train)


def _train_of(host, answers: Path) -> str:
    """The training data of the goyal task whose folder holds `answers`."""
    by_folder = {task_folder(t): f"{t.train[0]}/{t.train[1]}" for t in resolve_suite(host, "goyal").tasks}
    return by_folder[answers.parent.parent.name]
