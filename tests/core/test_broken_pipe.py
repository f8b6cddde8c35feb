"""A reader that has gone (`harness run ... | head`): the command's output is dropped, the
run goes on and keeps its exit code (vqa_harness_cli.pipes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HELPER = Path(__file__).resolve().with_name("helpers_signals.py")


#: An ASCII stdout (as some site profiles set): click then writes through a text stream of its
#: own over sys.stdout.buffer, not through sys.stdout.
ASCII = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": ""}


def _harness_with_stdout_closed(tmp_path: Path, *args: str, env: dict[str, str] | None = None
                                ) -> subprocess.CompletedProcess:
    """`harness ARGS` (in-test plugins) whose stdout is a pipe nobody reads: closed before
    the command writes anything, so its first line meets a broken pipe."""
    env = {**os.environ, **(env or {}),
           "PYTHONPATH": os.pathsep.join([str(HELPER.parent), os.environ.get("PYTHONPATH", "")])}
    read, write = os.pipe()
    os.close(read)
    try:
        # restore_signals (the default): SIGPIPE as a fresh process has it, whatever this one inherited;
        # Python then ignores it, so the write raises BrokenPipeError as on any machine.
        return subprocess.run([sys.executable, "-c", "import sys, helpers_signals; "
                               "sys.exit(helpers_signals.cli(sys.argv[1:]))", *args],
                              env=env, stdout=write, stderr=subprocess.PIPE, text=True, timeout=300,
                              restore_signals=True)
    finally:
        os.close(write)


def test_a_run_whose_output_nobody_reads_runs_every_model(tmp_path: Path) -> None:
    """Before, the first line written (the first model's summary) ended the command with
    exit 1 and no message; the second model never ran."""
    done = _harness_with_stdout_closed(
        tmp_path, "run", "--model", "echo", "--model", "echo:fail_on=none", "--suite", "tiny-suite",
        "--out", str(tmp_path / "runs"), "--cache", str(tmp_path / "cache.sqlite"), "--no-leaderboard",
        "--device", "cpu", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    statuses = [json.loads((run / "manifest.json").read_text(encoding="utf-8"))["status"]
                for run in (tmp_path / "runs").iterdir()]
    assert statuses == ["complete", "complete"]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("env", [{}, ASCII], ids=["locale as set", "ascii"])
def test_a_listing_whose_output_nobody_reads_exits_0(tmp_path: Path, env: dict[str, str]) -> None:
    """With an ASCII stdout, the listing exited 1 without a word: click's own text stream
    over the binary one met the broken pipe outside the wrapper."""
    done = _harness_with_stdout_closed(tmp_path, "list", "suites", env=env)
    assert (done.returncode, done.stderr) == (0, "")
