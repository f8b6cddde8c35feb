"""`harness run` with absurd options, unwritable output folders and a bad task after a good
one: one line, the right exit code, nothing already computed lost; and report.md escapes
user-provided text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_malformed import ConstModel, expect_one_line, plugin_for, run_bad, run_cli, write

from harness.api import Task
from harness.testing import ListDataset, hookimpl, make_host
from harness.types import Example


class Tiny(ListDataset):
    name = "tiny"
    splits = ("train", "val")
    data = {s: [Example(id=f"{s}{i}", question=f"Is it {i}?", answers=("yes",) * 10, label="yes")
                for i in range(6)] for s in ("train", "val")}


@pytest.mark.parametrize("spec, needles", [
    ("qonly:epochs=99999999999999999999999", ["model 'qonly'", "epochs=99999999999999999999999 is out of range",
                                              "between 1 and 1000"]),
    ("qonly:epochs=0", ["epochs=0 is out of range"]),
    ("qonly:epochs=1e9", ["epochs='1e9' is not a valid int"]),
    ("qonly:epochs=\u0661", ["epochs='\u0661' is not a valid int"]),  # an Arabic-Indic digit: not plain decimal
    ("qonly:epochs=1_0", ["epochs='1_0' is not a valid int"]),
    ("qonly:lr=1_0.5", ["lr='1_0.5' is not a valid float"]),
    ("cnn-lstm:lr=nan", ["model 'cnn-lstm'", "lr=nan must be a finite number"]),
    ("cnn-lstm:hidden=-4", ["hidden=-4 is out of range"]),
    ("mlp-a:hidden=100000000", ["model 'mlp-a'", "hidden=100000000 is out of range"]),
    ("qonly:dropout=1.5", ["dropout=1.5 is out of range"]),
    ("retrieval-explainer:k=0", ["k=0 is out of range"]),
    ("hf-vqa:num_beams=100000,path=x/y", ["model 'hf-vqa'", "num_beams=100000 is out of range"]),
], ids=lambda v: v if isinstance(v, str) else None)
def test_absurd_model_options_are_one_line_usage_errors(capsys, tmp_path, spec, needles):
    result = run_bad(capsys, tmp_path, [Task("tiny", "val", ("accuracy",))], Tiny, model=spec)
    expect_one_line(result, *needles, code=2)
    assert not (tmp_path / "runs").exists()  # refused before any work


def test_absurd_dataset_options_are_usage_errors(capsys, tmp_path):
    result = run_bad(capsys, tmp_path, [Task("e-snli-ve:half_seed=-1", "dev", ("accuracy",))])
    expect_one_line(result, "dataset 'e-snli-ve'", "half_seed=-1 is out of range", code=2)
    result = run_bad(capsys, tmp_path, [Task("visual7w:top_n=0", "test", ("accuracy",))])
    expect_one_line(result, "top_n=0 is out of range", code=2)


def test_every_option_default_lies_within_its_bounds():
    host = make_host(builtins=True)
    for registry in (host.models, host.datasets, host.features, host.probes):
        for entry in registry:
            for key, opt in entry.obj.options.items():
                if opt.min is not None or opt.max is not None:
                    assert opt.parse(entry.name, key, str(opt.default)) == opt.default, (entry.name, key)


@pytest.mark.parametrize("out", ["/proc/x", "{tmp}/a-file/runs"])
def test_unwritable_output_folders_are_refused_before_any_work(capsys, tmp_path, out):
    write(tmp_path / "a-file", "x")
    out = out.format(tmp=tmp_path)
    argv = ["run", "--model", "const", "--suite", "bad", "--out", out, "--no-leaderboard",
            "--cache", str(tmp_path / "c.sqlite")]
    result = run_cli(capsys, argv, plugin_for([Task("tiny", "val", ("accuracy",))], Tiny))
    expect_one_line(result, f"output folder {out}", "cannot be created or written", code=2)
    argv = ["run", "--model", "const", "--suite", "bad", "--out", str(tmp_path / "runs"), "--leaderboard", out,
            "--cache", str(tmp_path / "c.sqlite")]
    result = run_cli(capsys, argv, plugin_for([Task("tiny", "val", ("accuracy",))], Tiny))
    expect_one_line(result, "cannot be created or written", code=2)
    assert not (tmp_path / "runs").exists()


def test_a_bad_second_task_keeps_the_first_tasks_rows_and_resume_finishes(capsys, tmp_path, fresh_cache):
    bad = write(tmp_path / "esnlive_dev.csv", ",pairID,Flickr30kID,hypothesis,gold_label,explanation\n"
                                              "0,p1,1.jpg,A dog.,entailment,e\n1,p2,2.jpg,A cat.,maybe,e\n")
    tasks = [Task("tiny", "val", ("accuracy",)), Task(f"e-snli-ve:path={bad}", "dev", ("accuracy",))]
    expect_one_line(run_bad(capsys, tmp_path, tasks, Tiny), str(bad), "row 2", "field 'gold_label'")
    (run,) = (tmp_path / "runs").iterdir()
    manifest = json.loads((run / "manifest.json").read_text())
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert manifest["status"] == "failed"
    assert rows and {r["dataset"] for r in rows} == {"tiny"}  # the first task's rows are kept
    write(bad, bad.read_text().replace("maybe", "neutral"))
    argv = ["run", "--model", "const", "--suite", "bad", "--out", str(tmp_path / "runs"), "--no-leaderboard",
            "--cache", str(tmp_path / "cache.sqlite"), "--resume"]
    code, out, err = run_cli(capsys, argv, plugin_for(tasks, Tiny))
    assert code == 0, err
    assert [p.name for p in (tmp_path / "runs").iterdir()] == [run.name]  # resumed in place
    again = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert [r for r in again if r["dataset"] == "tiny"] == rows
    assert {r["dataset"] for r in again} == {"tiny", f"e-snli-ve:path={bad}"}


class Hostile(ConstModel):
    """Fails on one example with an error message full of markup."""

    name = "hostile"

    def answer(self, batch):
        if any(ex.id == "val1" for ex in batch) and len(batch) == 1:
            raise RuntimeError("bad <img src=x onerror=alert(1)> | answer")
        if any(ex.id == "val1" for ex in batch):
            raise RuntimeError("retry one by one")
        return super().answer(batch)


class HostileData(ListDataset):
    name = "hostile-data"
    splits = ("val",)
    data = {"val": [Example(id=f"val{i}", question=f"<script>alert({i})</script> |?", answers=("<b>yes</b>",) * 10,
                            label="<b>yes</b>") for i in range(4)]}


def test_report_md_escapes_questions_answers_models_and_errors(capsys, tmp_path):
    class Plugin:
        @hookimpl
        def register_models(self, register):
            register(Hostile)

    host_plugin = plugin_for([Task("hostile-data", "val", ("accuracy",))], HostileData)
    argv = ["run", "--model", "hostile", "--suite", "bad", "--out", str(tmp_path / "runs"), "--no-leaderboard",
            "--cache", str(tmp_path / "c.sqlite"), "--batch-size", "1"]
    from harness.testing import use_host
    from vqa_harness_cli import main

    with use_host(make_host(host_plugin, Plugin(), builtins=True)):
        code = main(argv)
    capsys.readouterr()
    assert code == 1  # partial: one example failed
    (run,) = (tmp_path / "runs").iterdir()
    report = (run / "report.md").read_text()
    assert "onerror" in report  # the failure is reported ...
    assert "<img" not in report and "<script" not in report and "<b>" not in report  # ... as text
    assert "&lt;img" in report
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["stats"]["example_errors"] == 1


def test_render_report_escapes_every_user_field():
    from harness.report import render_report
    from harness.types import ResultRow

    evil = "<script>x</script>"
    row = ResultRow(run_id="r", model=evil, suite="s", dataset=evil, split="val", probe="p", variant="a|b",
                    metric="acc", value=0.5, n=2)
    text = render_report({"run_id": evil, "model": evil, "suite": "s`x", "model_plugin": evil}, [row],
                         [f"| q | {evil} |"], [("t", "m", evil)], [("t", "p", evil)],
                         [{"task": "t", "probe": "p", "plugin": evil, "message": evil}], [("id`1", evil, evil)])
    assert "<script" not in text and "a\\|b" in text
    assert "`s'x`" in text and "`id'1`" in text  # a backtick cannot end a code span early


def test_paths_in_writable_check_leave_nothing_behind(tmp_path):
    from vqa_harness_plugins.validation import check_writable_folder

    target = tmp_path / "a" / "b" / "c"
    check_writable_folder(target)
    assert not (tmp_path / "a").exists()
    Path(tmp_path / "d").mkdir()
    check_writable_folder(tmp_path / "d")
    assert list((tmp_path / "d").iterdir()) == []


def test_writable_check_of_one_folder_from_several_processes_at_once(tmp_path):
    """The ranks of a torchrun job check the same new folder together: a folder another
    checker created, or removed again, is not an error (it failed CI once as "File exists")."""
    from concurrent.futures import ThreadPoolExecutor

    from vqa_harness_plugins.validation import check_writable_folder

    for trial in range(20):
        target = tmp_path / f"t{trial}" / "two" / "runs"
        with ThreadPoolExecutor(max_workers=4) as pool:
            for future in [pool.submit(check_writable_folder, target) for _ in range(4)]:
                future.result()  # raises the UsageError a lost race used to give


def test_a_writable_check_that_loses_the_race_again_and_again_still_succeeds(tmp_path, monkeypatch):
    """Under load (CI beside other jobs) one of four checkers lost the create/remove race five
    times in a row: 'cannot be created or written (No such file or directory)'. A lost race is
    tried again after a short, growing pause, 20 times."""
    from harness import folders

    real, lost = folders._check_writable_once, []

    def loses_twelve_times(folder, what):
        if len(lost) < 12:
            lost.append(folder)
            raise FileNotFoundError(2, "No such file or directory")
        return real(folder, what)

    monkeypatch.setattr(folders, "_check_writable_once", loses_twelve_times)
    monkeypatch.setattr(folders.time, "sleep", lambda seconds: None)
    folders.check_writable_folder(tmp_path / "runs")
    assert len(lost) == 12


LOADERS = [  # (dataset spec with {f} for the file, split, file name)
    ("e-snli-ve:path={f}", "dev", "esnlive_dev.csv"),
    ("vqa-x:path={f}", "val", "vqaX_val.json"),
    ("vcr:path={f}", "val", "val.jsonl"),
    ("visual7w:file={f}", "test", "v7w.json"),
    ("visual-genome-qa:file={f}", "test", "question_answers.json"),
]


@pytest.mark.parametrize("spec, split, name", LOADERS, ids=[s.split(":")[0] for s, _, _ in LOADERS])
def test_every_file_loader_names_a_folder_an_empty_file_and_a_missing_file(capsys, tmp_path, spec, split, name):
    target = tmp_path / name
    target.mkdir()
    tasks = [Task(spec.format(f=target), split, ("accuracy",))]
    expect_one_line(run_bad(capsys, tmp_path, tasks), str(target), "is a folder, expected a file")
    target.rmdir()
    write(target, "")
    expect_one_line(run_bad(capsys, tmp_path, tasks), str(target), "empty file")
    target.unlink()
    expect_one_line(run_bad(capsys, tmp_path, tasks), "missing file", str(target))


class Empty(ListDataset):
    name = "empty-data"
    splits = ("val",)
    data = {"val": []}


def test_a_plugin_split_without_examples_is_one_line_naming_the_dataset(capsys, tmp_path):
    result = run_bad(capsys, tmp_path, [Task("empty-data", "val", ("accuracy",))], Empty)
    expect_one_line(result, "dataset 'empty-data' split 'val': no examples", "a dataset split needs at least one")


def test_an_empty_seeded_half_is_one_line(capsys, tmp_path):
    f = write(tmp_path / "esnlive_dev.csv", ",pairID,Flickr30kID,hypothesis,gold_label,explanation\n"
                                            "0,p1,1.jpg,A dog.,entailment,e\n")
    result = run_bad(capsys, tmp_path, [Task(f"e-snli-ve:path={f}", "dev-eval", ("accuracy",))])
    expect_one_line(result, "dataset 'e-snli-ve' split 'dev-eval': no examples", str(f))
