"""Run `harness ...` in a child process and measure it: wall seconds, peak memory, output.

Shared by the benchmark scripts that time whole commands (main_job.py, vqa2_suite_scale.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["run_harness", "uptime"]


def uptime() -> str:
    """The machine's load, to print beside every figure."""
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:  # pragma: no cover
        return "(uptime unavailable)"


def run_harness(args: list[str], cwd: Path, cache: Path) -> tuple[float, float, str, int]:
    """(wall seconds, peak resident MB, combined output, exit code) of `harness ARGS` run in
    `cwd` with `VQA_HARNESS_CACHE=cache`; exits with the output when the command failed
    (exit codes 0 and 1 — a run with some failed examples — are results)."""
    env = {**os.environ, "VQA_HARNESS_CACHE": str(cache), "TQDM_DISABLE": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "harness.cli", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = proc.stdout.read()
    proc.stdout.close()
    # Reap the child ourselves: wait4 gives this process's own peak resident set (KB on Linux).
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"harness {' '.join(args)} failed ({code}):\n{output[-3000:]}")
    return wall, usage.ru_maxrss / 1024, output, code
