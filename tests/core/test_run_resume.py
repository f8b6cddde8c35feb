"""Runner + run store: caching, resume after a kill, containment, identical results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_core import EchoModel, core_plugins

from harness.errors import DataError
from harness.run.tasks import check_images
from harness.testing import make_host, run_in_process
from harness.types import Example


def _rows(outcome):
    return [{k: v for k, v in r.to_json().items() if k != "run_id"} for r in outcome.rows]


@pytest.fixture(autouse=True)
def _reset_calls():
    EchoModel.calls.clear()
    EchoModel.stop_after = 0
    yield
    EchoModel.stop_after = 0


def test_run_writes_run_directory(tmp_path):
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    out = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path, batch_size=7)
    assert out.exit_code == 0
    run = out.rundir.path
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["seed"] == 0 and manifest["device"] == "cpu"
    assert manifest["versions"]["vqa-harness"]
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    overall = [r for r in rows if r["metric"] == "vqa_accuracy"][0]
    # 40 questions: ids with i % 4 == 0 answer "yellow" (0), others exact (1.0 each, since
    # 8 of 10 humans agree) -> 30/40
    assert overall["value"] == pytest.approx(0.75) and overall["n"] == 40
    assert overall["ci_low"] <= 0.75 <= overall["ci_high"]
    assert (run / "report.md").read_text().startswith("# Run ")
    preds = (run / "predictions" / "tiny" / "val" / "default" / "accuracy" / "answer.jsonl").read_text().splitlines()
    assert len(preds) == 40


def test_rerun_uses_cache_without_model_calls(tmp_path):
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    first = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path)
    assert first.model_calls == 40
    second = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path)
    assert second.model_calls == 0
    assert _rows(first) == _rows(second)


def test_kill_and_resume_loses_nothing_and_repeats_no_call(tmp_path):
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    reference = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path / "ref", batch_size=5)
    EchoModel.calls.clear()
    EchoModel.stop_after = 13  # killed at the start of the 4th call (15 predictions done)
    with pytest.raises(KeyboardInterrupt):
        run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path / "b", batch_size=5)
    assert len(EchoModel.calls) == 15
    killed_run = sorted((tmp_path / "b" / "runs").iterdir())[0]
    assert json.loads((killed_run / "manifest.json").read_text())["status"] == "interrupted"
    EchoModel.stop_after = 0
    # Resume with another batch size: scores must not depend on it.
    resumed = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path / "b",
                             batch_size=3, resume=True)
    assert resumed.rundir.path == killed_run
    assert resumed.model_calls == 25
    assert len(EchoModel.calls) == len(set(EchoModel.calls)) == 40  # no call repeated
    assert _rows(resumed) == _rows(reference)
    assert json.loads((killed_run / "manifest.json").read_text())["status"] == "complete"
    assert not [w for w in resumed.warnings if "--resume" in w]


def test_resume_with_nothing_to_continue_says_it_is_a_new_run(tmp_path):
    """A relative --out given from another folder, a moved or deleted run: before, --resume
    started a new run without a word, and the unfinished one stayed unfinished."""
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    outcome = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path, resume=True)
    assert outcome.exit_code == 0
    assert f"--resume: no unfinished run with these settings in {tmp_path / 'runs'}; this is a new run" in \
        outcome.warnings


@pytest.mark.parametrize("content", [b"[]", b'{"status": "\xff"}', b"{not json", b'"text"'])
def test_resume_passes_over_folders_whose_manifest_is_not_a_run_manifest(content, tmp_path):
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    odd = tmp_path / "runs" / "99999999-odd"  # sorted first: read before any real run folder
    odd.mkdir(parents=True)
    (odd / "manifest.json").write_bytes(content)
    outcome = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path, resume=True)
    assert outcome.exit_code == 0 and outcome.rundir.path != odd


def test_failing_example_is_contained_and_named(tmp_path):
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    out = run_in_process(host, model="echo:fail_on=q5", suite="tiny-suite", tmp_path=tmp_path, batch_size=8)
    assert out.exit_code == 1 and out.example_errors == 1
    report = (out.rundir.path / "report.md").read_text()
    assert "q5" in report and "plugin echo-model:echo: RuntimeError: boom on purpose" in report
    overall = [r for r in out.rows if r.metric == "vqa_accuracy"][0]
    assert overall.value == pytest.approx(29 / 40)  # q5 was correct; now scored 0


def test_missing_images_stop_an_image_model_before_it_starts(tmp_path):
    from harness.errors import DataError

    plugins, names = core_plugins()
    EchoModel.uses_images = True
    try:
        host = make_host(*plugins, names=names)
        with pytest.raises(DataError, match=r"40 image file\(s\) missing on disk"):
            run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path)
    finally:
        EchoModel.uses_images = False
    assert EchoModel.calls == []


def test_resume_finds_the_run_whatever_folder_the_data_dir_was_given_from(tmp_path, monkeypatch):
    """`--data-dir data` from the project folder, resumed as `--data-dir /project/data` (or
    the other way round) from another folder: the same data, the same run. Before, the
    identity held the text as given, and the resume started a new run."""
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    (tmp_path / "project" / "data").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "project")
    EchoModel.stop_after = 13
    with pytest.raises(KeyboardInterrupt):
        run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path, batch_size=5, data_dir=Path("data"))
    (stopped,) = (tmp_path / "runs").iterdir()
    EchoModel.stop_after = 0
    monkeypatch.chdir(tmp_path)
    resumed = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path, resume=True,
                             data_dir=tmp_path / "project" / "data")
    assert resumed.rundir.path == stopped and resumed.model_calls == 25


def test_missing_images_say_where_they_were_looked_for(tmp_path):
    # Before: always "set --data-dir to the folder that holds them", also for images under the
    # --data-dir given and for images an installed distribution ships.
    def message(image, data_dir=None):
        with pytest.raises(DataError) as err:
            check_images("t", [Example(id="q", question="?", image=str(image))], data_dir)
        return str(err.value)

    assert message(tmp_path / "data" / "a.png", tmp_path / "data").endswith(
        f"(looked for under --data-dir {tmp_path / 'data'}: are the images there?)")
    assert message(tmp_path / "a.png").endswith("(this model needs images; set --data-dir to the folder that holds them)")
    assert message(tmp_path / "a.png", tmp_path / "data").endswith("set --data-dir to the folder that holds them)")
    shipped = Path(pytest.__file__).parent / "no-such-image.png"
    assert message(shipped).endswith(f"(they belong to the installed pytest {pytest.__version__}: reinstall it)")
