"""Probe outputs reused by key: a re-run restores them; any change to what they depend on
(data, options, model, code) computes them again."""

from __future__ import annotations

import json
import os

from helpers_core import EchoModel, core_plugins, run_rows, run_stats, tiny_examples

from harness.api import Probe
from harness.cache.artifacts import ArtifactStore, cache_status, clear_cache
from harness.paths import cache_dir
from harness.testing import dataset_plugin, hookimpl, make_host, run_in_process
from harness.types import Suite, Task


def test_a_rerun_restores_rows_reports_and_files(tmp_path):
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    first = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path)
    EchoModel.calls.clear()
    again = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path)
    assert run_stats(first)["probe_outputs_reused"] == 0 and run_stats(again)["probe_outputs_reused"] == 1
    assert again.model_calls == 0 and EchoModel.calls == []
    assert run_rows(first) == run_rows(again) and {r.run_id for r in again.rows} == {again.rundir.run_id}
    rel = "predictions/tiny/val/default/accuracy/answer.jsonl"
    assert (first.rundir.path / rel).read_bytes() == (again.rundir.path / rel).read_bytes()
    # Report text that names the run folder names the new one.
    report = (again.rundir.path / "report.md").read_text()
    assert str(first.rundir.path) not in report


def test_changed_data_or_options_compute_again(tmp_path):
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path)
    other = dataset_plugin("tiny", {"train": tiny_examples(10, "q"), "val": tiny_examples(41)}, suite="tiny-suite")
    changed = run_in_process(make_host(plugins[0], other, plugins[2], names=names), model="echo", suite="tiny-suite",
                             tmp_path=tmp_path)
    assert run_stats(changed)["probe_outputs_reused"] == 0
    seeded = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path, seed=1)
    assert run_stats(seeded)["probe_outputs_reused"] == 0


def test_a_task_told_apart_only_by_its_label_gets_its_own_output_and_files(tmp_path):
    """The label names the task's folder (and a probe may read it): an output stored for one
    label is never restored into another's run, nor its files into another task's folder."""
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    base = host.suites["tiny-suite"]

    def labelled(label):
        tasks = tuple(Task(t.dataset, t.split, t.probes, ("tiny", "train"), label) for t in base.tasks)
        return Suite(name=f"tiny-{label}", description=label, tasks=tasks)

    first = run_in_process(host, model="echo", suite=labelled("first"), tmp_path=tmp_path)
    second = run_in_process(host, model="echo", suite=labelled("second"), tmp_path=tmp_path)
    assert run_stats(second)["probe_outputs_reused"] == 0
    for outcome, label in ((first, "first"), (second, "second")):
        files = [p.relative_to(outcome.rundir.path).as_posix() for p in outcome.rundir.path.rglob("*.jsonl")
                 if "predictions" in p.parts]
        assert files and all(f"/{label}-" in f for f in files), files
    again = run_in_process(host, model="echo", suite=labelled("second"), tmp_path=tmp_path)
    assert run_stats(again)["probe_outputs_reused"] == 1


def test_artifacts_are_keyed_by_everything_given(tmp_path):
    store = ArtifactStore(tmp_path / "artifacts")
    calls = []

    def build():
        calls.append(1)
        return {"n": len(calls)}

    assert store.json("kind-a", {"data": "x", "opt": 1}, build) == {"n": 1}
    assert store.json("kind-a", {"data": "x", "opt": 1}, build) == {"n": 1}  # built once
    assert store.json("kind-a", {"data": "x", "opt": 2}, build) == {"n": 2}  # a changed option
    assert store.json("kind-a", {"data": "y", "opt": 1}, build) == {"n": 3}  # changed input
    found = {s.kind: s.entries for s in cache_status(tmp_path)}
    assert found == {"kind-a": 3}
    assert [s.kind for s in clear_cache(["kind-a"], tmp_path)] == ["kind-a"] and cache_status(tmp_path) == []


def test_cache_command_shows_and_clears(tmp_path, monkeypatch, capsys):
    from vqa_harness_cli import main

    monkeypatch.setenv("VQA_HARNESS_CACHE", str(tmp_path / "cache"))
    ArtifactStore().json("demo", {"k": 1}, lambda: [1, 2, 3])
    assert main(["cache", "status"]) == 0
    out = capsys.readouterr().out
    assert "demo" in out and str(tmp_path / "cache") in out
    assert main(["cache", "clear", "nope", "--yes"]) == 2
    assert "no cache kind 'nope'" in capsys.readouterr().err
    assert main(["cache", "clear", "demo", "--yes"]) == 0
    assert not (tmp_path / "cache" / "artifacts" / "demo").exists()


def test_cache_sizes_count_a_file_once_and_say_what_run_folders_still_hold(tmp_path, monkeypatch, capsys):
    """Stored probe outputs are hard links to run folders' files (and a run's identical
    prediction files are links to one file): `cache status` counted every link at full size,
    and `cache clear` said it removed bytes that stay on disk while a run folder links them."""
    from vqa_harness_cli import main

    monkeypatch.setenv("VQA_HARNESS_CACHE", str(tmp_path / "cache"))
    store = ArtifactStore()

    def build(folder):
        (folder / "a.jsonl").write_bytes(b"x" * 3000)
        os.link(folder / "a.jsonl", folder / "b.jsonl")  # the same file twice: 3,000 bytes on disk
        (folder / "own.jsonl").write_bytes(b"y" * 1000)

    store.entry("demo", {"k": 1}, build)
    (entry,) = (e for e in (tmp_path / "cache" / "artifacts" / "demo").iterdir() if e.is_dir())
    run_file = tmp_path / "run" / "answer.jsonl"
    run_file.parent.mkdir()
    os.link(next(entry.rglob("a.jsonl")), run_file)  # a run folder's file, linked into the cache
    (status,) = cache_status()
    assert status.bytes < 5000 and status.bytes >= 4000 and status.shared == 3000
    assert main(["cache", "clear", "demo", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "2.9 KB of it is still linked from run folders" in out
    assert run_file.read_bytes() == b"x" * 3000


class _EnvProbe(Probe):
    """A probe whose output depends on an environment variable, and says so."""

    name = "env-probe"
    model_free = True

    def cache_settings(self):
        return {"knob": os.environ.get("TEST_KNOB", "")}

    def run(self, ctx):
        return [ctx.row("knob", float(os.environ.get("TEST_KNOB", "0")), 1, unit="count", higher_is_better=None)]


class _MemoProbe(_EnvProbe):
    """The same value, memoized: model-independent, shared by every run (`ctx.memo`)."""

    name = "memo-probe"

    def run(self, ctx):
        value = ctx.memo("knob", {}, lambda: float(os.environ.get("TEST_KNOB", "0")))
        return [ctx.row("knob", value, 1, unit="count", higher_is_better=None)]


class _EnvPlugin:
    @hookimpl
    def register_probes(self, register):
        register(_EnvProbe)
        register(_MemoProbe)


def test_a_setting_outside_the_options_is_part_of_the_key(tmp_path, monkeypatch):
    """`Probe.cache_settings`: the output of another setting (here an environment variable,
    as BERTScore's layer) is never restored; the same setting is."""
    plugins, names = core_plugins()
    host = make_host(*plugins, _EnvPlugin(), names=[*names, "env"])
    suite = Suite("env-suite", "one env-dependent probe", (Task("tiny", "val", ("env-probe",)),))

    def knob(value):
        monkeypatch.setenv("TEST_KNOB", value)
        outcome = run_in_process(host, model="echo", suite=suite, tmp_path=tmp_path)
        return [r.value for r in outcome.rows if r.metric == "knob"], run_stats(outcome)["probe_outputs_reused"]

    assert knob("3") == ([3.0], 0)
    assert knob("6") == ([6.0], 0)  # before, the 3 was restored
    assert knob("3") == ([3.0], 1)


def test_a_setting_outside_the_options_is_part_of_the_memo_key(tmp_path, monkeypatch, fresh_cache):
    """`ctx.memo` (the GT row's BERTScore, quality-mode perturbations) is keyed by the
    probe's `cache_settings` too: with outputs not reused, the memo alone must not restore
    the value another setting gave."""
    plugins, names = core_plugins()
    host = make_host(*plugins, _EnvPlugin(), names=[*names, "env"])
    suite = Suite("memo-suite", "one memoizing probe", (Task("tiny", "val", ("memo-probe",)),))

    def knob(value):
        monkeypatch.setenv("TEST_KNOB", value)
        outcome = run_in_process(host, model="echo", suite=suite, tmp_path=tmp_path, reuse_outputs=False)
        return [r.value for r in outcome.rows if r.metric == "knob"]

    assert knob("3") == [3.0]
    assert knob("6") == [6.0]  # before, the memo gave 3 again


def test_bertscore_settings_follow_the_variables_and_the_weights(tmp_path, monkeypatch):
    from vqa_harness_plugins.nlp import bertscore_settings

    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"1")
    monkeypatch.setenv("VQA_HARNESS_BERTSCORE_MODEL", str(folder))
    monkeypatch.delenv("VQA_HARNESS_BERTSCORE_LAYERS", raising=False)
    base = bertscore_settings()
    monkeypatch.setenv("VQA_HARNESS_BERTSCORE_LAYERS", "3")
    assert bertscore_settings() != base and bertscore_settings(layers=False) == bertscore_settings(layers=False)
    assert bertscore_settings(layers=False)["env"] == {"VQA_HARNESS_BERTSCORE_MODEL": str(folder)}
    before = bertscore_settings()
    (folder / "model.safetensors").write_bytes(b"22")
    assert bertscore_settings() != before


def test_cache_clear_removes_only_the_harness_folders(tmp_path, monkeypatch, capsys):
    """`$VQA_HARNESS_CACHE` set to a project folder by mistake: `cache clear` must not take
    its run folders or anything else the harness did not make (no CACHEDIR.TAG)."""
    from vqa_harness_cli import main

    root = tmp_path / "project"
    (root / "results" / "runs" / "r1").mkdir(parents=True)
    (root / "results" / "runs" / "r1" / "results.jsonl").write_text("{}\n")
    (root / "mystuff").mkdir()
    monkeypatch.setenv("VQA_HARNESS_CACHE", str(root))
    ArtifactStore().json("demo", {"k": 1}, lambda: [1])
    cache_dir("predictions")
    assert {s.kind for s in cache_status()} == {"demo", "predictions"}
    assert main(["cache", "status"]) == 0
    assert "not the harness's (no CACHEDIR.TAG; never cleared): mystuff, results" in capsys.readouterr().out
    assert main(["cache", "clear", "results", "--yes"]) == 2
    assert main(["cache", "clear", "--yes"]) == 0
    assert (root / "results" / "runs" / "r1" / "results.jsonl").is_file() and (root / "mystuff").is_dir()
    assert not (root / "artifacts" / "demo").exists() and not (root / "predictions").exists()


def test_a_stored_output_with_a_row_that_is_not_a_number_is_computed_again(tmp_path):
    """A damaged entry (a value edited to "abc" or NaN) is removed and the probe runs again,
    instead of a traceback in the report or a NaN published."""
    plugins, names = core_plugins()
    host = make_host(*plugins, names=names)
    first = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path)
    for bad in ('"abc"', "NaN"):
        (entry,) = tmp_path.rglob("output.json")  # the one stored probe output
        data = json.loads(entry.read_text())
        data["rows"][0]["value"] = "__BAD__"
        entry.write_text(json.dumps(data).replace('"__BAD__"', bad))
        again = run_in_process(host, model="echo", suite="tiny-suite", tmp_path=tmp_path)
        assert again.exit_code == 0 and run_stats(again)["probe_outputs_reused"] == 0
        assert run_rows(again) == run_rows(first)


class _PathProbe(Probe):
    """Writes a file of the run folder and names it in its report section (as the
    counterfactual probe names its local explanations)."""

    name = "path-probe"
    model_free = True

    def run(self, ctx):
        ctx.report(self.section(ctx))
        return [ctx.row("one", 1.0, 1, unit="count", higher_is_better=None)]

    def section(self, ctx):
        path = ctx.artifact("notes.txt")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n", encoding="utf-8")
        return f"Notes: `{path}`."


class _UndecodedPathProbe(_PathProbe):
    """Names a data file outside the run folder whose path Python could not decode (an ASCII
    file-name encoding keeps "é" of /data/résultats as the surrogates \\udcc3\\udca9)."""

    name = "undecoded-probe"

    def section(self, ctx):
        return "Data: `/data/r\udcc3\udca9sultats/q.json`, `/data/o\udce9`."


def _report_runs(tmp_path, probe, *folders):
    """`probe` alone as a suite, run by the echo model once into each of `folders` (under
    `tmp_path`), all with one prediction and probe-output cache."""
    class _Plugin:
        @hookimpl
        def register_probes(self, register):
            register(probe)

    plugins, names = core_plugins()
    host = make_host(*plugins, _Plugin(), names=[*names, probe.name])
    suite = Suite(f"{probe.name}-suite", "one probe", (Task("tiny", "val", (probe.name,)),))
    return [run_in_process(host, model="echo", suite=suite, tmp_path=tmp_path / folder,
                           cache_path=tmp_path / "cache.sqlite") for folder in folders]


def test_a_restored_report_names_the_new_run_folder_when_the_path_is_not_ascii(tmp_path):
    """The stored report replaces the run folder with a placeholder; a folder with a
    non-ASCII name ("é") was not replaced (it was looked for in its \\u00e9 escape), so the
    report of a later run named the first run's folder."""
    first, again = _report_runs(tmp_path, _PathProbe, "résultats 1", "résultats 2")
    assert run_stats(again)["probe_outputs_reused"] == 1
    report = (again.rundir.path / "report.md").read_text(encoding="utf-8")
    assert str(first.rundir.path) not in report
    assert "Notes: `artifacts/path-probe/tiny/val/default/notes.txt`." in report


def test_a_stored_output_whose_report_names_an_undecoded_path_is_kept(tmp_path):
    """Storing the output wrote its JSON as strict UTF-8: the lone surrogates raised
    UnicodeEncodeError outside the probe's containment, after the probe had run."""
    first, again = _report_runs(tmp_path, _UndecodedPathProbe, "one", "two")
    assert first.exit_code == 0 and run_stats(again)["probe_outputs_reused"] == 1
    for outcome in (first, again):  # computed, then restored: the same text
        report = (outcome.rundir.path / "report.md").read_text(encoding="utf-8")
        assert "Data: `/data/résultats/q.json`, `/data/o\ufffd`." in report


def test_the_report_names_the_run_s_files_relative_to_the_run_folder(tmp_path):
    """A run folder moved elsewhere (or the run made with a relative --out, read from another
    folder): before, the report named its files by the path they had when the run wrote it."""
    (outcome,) = _report_runs(tmp_path, _PathProbe, "here")
    moved = tmp_path / "elsewhere"
    outcome.rundir.path.rename(moved)
    report = (moved / "report.md").read_text(encoding="utf-8")
    assert str(tmp_path / "here") not in report
    named = report.split("Notes: `", 1)[1].split("`", 1)[0]
    assert (moved / named).is_file()
