"""Command-line edges of scripts/ and benchmarks/ (review of the benchmark scripts, findings
7-12): bad input gives one line and a non-zero exit, never a traceback or a silent success;
--help is help; outputs are what the docstrings say."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script(relative: str):
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cli(relative: str, *args: str, cwd: Path, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / relative), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, **kw)


def _run_folder(root: Path, run_id: str, manifest: dict, rows: list[dict]) -> Path:
    folder = root / run_id
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"run_id": run_id, "status": "complete", **manifest}))
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


# --- scripts/readme_figures.py (finding 7) ---------------------------------------------------

README = "# x\n\n<!-- figures:start -->\n| prior | 29.98 | 21.37 |\n<!-- figures:end -->\ntail\n"


def _toy_rows(model: str, with_decoys: bool) -> list[dict]:
    rows = [{"model": model, "probe": "balanced-accuracy", "metric": "vqa_accuracy",
             "dataset": f"toyvqa:variant={v}", "train": f"toyvqa:variant={v}/train", "value": value}
            for v, value in (("unbalanced", 0.5), ("balanced", 0.25))]
    if with_decoys:
        rows += [{"model": model, "probe": "decoys", "variant": "iou+qou", "metric": metric, "value": value}
                 for metric, value in (("mc_accuracy", 0.4), ("mc_accuracy/QA", 0.3))]
    return rows


@pytest.fixture
def readme_script(tmp_path, monkeypatch):
    module = _script("scripts/readme_figures.py")
    monkeypatch.setattr(module, "ROOT", tmp_path)  # README.md of tmp_path, never the project's
    (tmp_path / "README.md").write_text(README, encoding="utf-8")
    return module


@pytest.mark.parametrize("models", [(), ("prior", "qonly")], ids=["no-runs", "cnn-lstm-missing"])
def test_readme_write_refuses_runs_that_miss_figures(readme_script, tmp_path, capsys, models):
    runs = tmp_path / "runs"
    runs.mkdir()
    for i, model in enumerate(models):
        _run_folder(runs, f"2026010{i}-{model}-toy", {"model": model, "suite": "toy"}, _toy_rows(model, False))
    _run_folder(runs, "20260109-cnn-lstm-goyal", {"model": "cnn-lstm", "suite": "goyal"},
                _toy_rows("cnn-lstm", True))  # not a toy run: does not count
    with pytest.raises(SystemExit) as exc:
        readme_script.main([str(runs), "--write"])
    assert "README.md not written" in str(exc.value) and "cnn-lstm BB" in str(exc.value)
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == README
    assert capsys.readouterr().out == ""


def test_readme_write_with_every_figure(readme_script, tmp_path):
    runs = tmp_path / "runs"
    for i, model in enumerate(("prior", "qonly", "cnn-lstm")):
        _run_folder(runs, f"2026010{i}-{model}-toy", {"model": model, "suite": "toy"},
                    _toy_rows(model, model == "cnn-lstm"))
    assert readme_script.main([str(runs), "--write"]) == 0
    text = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "| cnn-lstm (image + question) | 50.00 | 25.00 |" in text and "target 40.0%" in text
    assert text.endswith("<!-- figures:end -->\ntail\n") and "29.98" not in text


def test_readme_missing_runs_folder_is_one_line(readme_script, tmp_path):
    with pytest.raises(SystemExit, match="is not a folder"):
        readme_script.main([str(tmp_path / "nowhere"), "--write"])
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == README


# --- scripts/uninstalled_env.py (finding 8) --------------------------------------------------

def test_uninstalled_env_help_is_help_and_writes_nothing(tmp_path):
    done = _cli("scripts/uninstalled_env.py", "--help", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("usage:")
    assert list(tmp_path.iterdir()) == []


def test_uninstalled_env_writes_the_folder(tmp_path):
    done = _cli("scripts/uninstalled_env.py", "env", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "env" / "vqa_harness_cli").resolve() == ROOT / "cli"
    (dist,) = (tmp_path / "env").glob("vqa_harness-*.dist-info")
    assert "[vqa_harness]" in (dist / "entry_points.txt").read_text()


NO_TOMLLIB = """import runpy, sys
sys.modules["tomllib"] = sys.modules["tomli"] = None  # as on Python 3.10 without tomli
sys.argv = [sys.argv[1], "env"]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_uninstalled_env_without_tomllib_says_so_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-c", NO_TOMLLIB, str(ROOT / "scripts/uninstalled_env.py")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [done.stderr.strip()] and "tomli" in done.stderr
    assert list(tmp_path.iterdir()) == []


# --- benchmarks/paper_models.py (finding 9) --------------------------------------------------

def test_paper_models_help_and_bad_paths(tmp_path):
    done = _cli("benchmarks/paper_models.py", "--help", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("usage:")
    done = _cli("benchmarks/paper_models.py", str(tmp_path / "nonexistent"), cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip() == f"error: no such file or folder: {tmp_path / 'nonexistent'}"
    done = _cli("benchmarks/paper_models.py", str(tmp_path), cwd=tmp_path)  # a folder of run folders
    assert done.returncode == 1 and "none of the 1 paths given is a run folder" in done.stderr
    assert "Traceback" not in done.stderr


def test_paper_models_prints_the_run_folders_given(tmp_path, capsys):
    row = {"dataset": "toyvqa", "train": "toyvqa/train", "probe": "accuracy", "metric": "vqa_accuracy",
           "variant": "", "value": 0.5, "ci_low": 0.4, "ci_high": 0.6}
    run = _run_folder(tmp_path, "20260101-qonly-toy", {"model": "qonly", "suite": "toy", "seed": 0}, [row])
    (tmp_path / "notes.txt").write_text("not a run folder")  # skipped, as a glob may match it
    assert _script("benchmarks/paper_models.py").main([str(run), str(tmp_path / "notes.txt")]) == 0
    out = capsys.readouterr().out
    assert "qonly on toy (seed 0)" in out and "vqa_accuracy toyvqa (train toyvqa/train): 50.00 [40.0, 60.0]" in out


# --- benchmarks/main_job.py (finding 10) -----------------------------------------------------

@pytest.fixture
def main_job(monkeypatch):
    module = _script("benchmarks/main_job.py")
    calls = []

    def fake_run(args, workdir, cache):  # no harness process: the folder handling only
        calls.append((args, workdir, cache))
        return {"wall": 1.0, "peak_mb": 1.0, "per_model": {}, "exit": 0}

    monkeypatch.setattr(module, "_run", fake_run)
    monkeypatch.setattr(module, "uptime", lambda: "load")
    module.calls = calls
    return module


@pytest.mark.parametrize("content", ["work", "cache", "notes.txt"])
def test_main_job_refuses_a_keep_folder_that_is_not_empty(main_job, tmp_path, content):
    keep = tmp_path / "keep"
    keep.mkdir()
    if content.endswith(".txt"):
        (keep / content).write_text("x")
    else:  # what an earlier --keep run left
        (keep / content).mkdir()
    with pytest.raises(SystemExit, match=r"--keep .* is not empty"):
        main_job.main(["--keep", str(keep), "--skip-small"])
    assert main_job.calls == [] and [p.name for p in keep.iterdir()] == [content]


def test_main_job_keep_new_or_empty_folder_is_used(main_job, tmp_path):
    for keep in (tmp_path / "new", tmp_path / "empty"):
        (tmp_path / "empty").mkdir(exist_ok=True)
        assert main_job.main(["--keep", str(keep), "--skip-small"]) == 0
        assert (keep / "work").is_dir()
    assert len(main_job.calls) == 4
    (tmp_path / "file").write_text("x")
    with pytest.raises(SystemExit, match="is not a folder"):
        main_job.main(["--keep", str(tmp_path / "file")])


# --- benchmarks/cross_machine.py (finding 11) ------------------------------------------------

def _bb_run(root: Path, run_id: str, suite: str, value: float) -> None:
    row = {"model": "m", "suite": suite, "dataset": "toyvqa:variant=balanced", "split": "val",
           "probe": "balanced-accuracy", "variant": "", "metric": "vqa_accuracy",
           "train": "toyvqa:variant=balanced/train", "value": value, "unit": "fraction"}
    _run_folder(root, run_id, {"model": "m", "suite": suite, "seed": 0}, [row])


def test_cross_machine_a_later_here_folder_wins(tmp_path, capsys):
    """The review's case: here1 holds a toy run (10%) and a later balanced-vqa run (20%) with
    the same row, here2 a newer toy run (30%); here2's row is the one compared."""
    _bb_run(tmp_path / "there", "20260101-000000-m-toy", "toy", 0.3)
    _bb_run(tmp_path / "here1", "20260101-000001-m-toy", "toy", 0.1)
    _bb_run(tmp_path / "here1", "20260101-000002-m-bal", "balanced-vqa", 0.2)
    _bb_run(tmp_path / "here2", "20260101-000003-m-toy", "toy", 0.3)
    module = _script("benchmarks/cross_machine.py")
    here = [str(tmp_path / "here1"), str(tmp_path / "here2")]
    assert module.main([str(tmp_path / "there"), *here]) == 0
    assert "30.00  30.00 [30.00, 30.00]  identical" in capsys.readouterr().out
    _bb_run(tmp_path / "here3", "20250101-000000-m-toy", "toy", 0.1)  # an older run, in a later folder
    assert set(module.load([tmp_path / "here2", tmp_path / "here3"]).values()) == {0.1}
    assert set(module.load([tmp_path / "here1"]).values()) == {0.2}  # one folder: the later run id


def test_cross_machine_within_one_folder_the_later_run_id_wins(tmp_path):
    _bb_run(tmp_path / "here" / "b", "20260101-000001-m-toy", "toy", 0.1)  # path order is not run-id order
    _bb_run(tmp_path / "here" / "a", "20260101-000002-m-bal", "balanced-vqa", 0.2)
    assert set(_script("benchmarks/cross_machine.py").load([tmp_path / "here"]).values()) == {0.2}


# --- scripts/numerics_fingerprint.py (finding 12) --------------------------------------------

def test_numerics_fingerprint_stdout_is_only_the_json(monkeypatch, capsys):
    module = _script("scripts/numerics_fingerprint.py")

    def train(epochs):  # what the trainer does between the digests: progress lines on stdout
        print(f"train cnn-lstm: epoch 1/{epochs}, loss 1.000", flush=True)
        return {"epochs": epochs}

    monkeypatch.setattr(module, "ops", lambda: {"mm_small": "0123456789"})
    monkeypatch.setattr(module, "train", train)
    monkeypatch.setattr(sys, "argv", ["numerics_fingerprint.py", "--epochs", "2"])
    module.main()
    out, err = capsys.readouterr()
    assert json.loads(out)["training"] == {"epochs": 2}  # the whole of stdout, as `> out.json` keeps it
    assert "train cnn-lstm: epoch 1/2" in err


def test_a_measured_command_is_not_charged_the_benchmarks_own_memory(tmp_path) -> None:
    """benchmarks/harness_proc.py: Linux counts the resident set of the process a child is
    forked from in the child's ru_maxrss; a benchmark holding generated data made a 265 MB
    warm run read 950 MB. The command is forked from a small reaper now."""
    sys.path.insert(0, str(ROOT / "benchmarks"))  # a dataclass module must be importable by name
    try:
        import harness_proc as proc
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    ballast = bytearray(400 * 2**20)  # the benchmark's own data, resident
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1
    small = proc.run_python(["-c", "pass"], tmp_path, tmp_path / "cache")
    big = proc.run_python(["-c", "b = bytearray(200 * 2**20); b[::4096] = b'x' * len(b[::4096])"], tmp_path,
                          tmp_path / "cache")
    del ballast
    assert small.code == 0 and small.peak_mb < 150, small.peak_mb
    assert 200 < big.peak_mb < 350, big.peak_mb  # the command's own peak is still seen
    failed = proc.run_python(["-c", "import sys; print('boom'); sys.exit(3)"], tmp_path, tmp_path / "c", check=False)
    assert failed.code == 3 and "boom" in failed.output
    killed = proc.run_python(["-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"], tmp_path,
                             tmp_path / "c", check=False)
    assert killed.code == -9  # the signal, as wait4 says it, not the reaper's exit status
