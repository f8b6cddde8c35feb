"""Run `harness ...` (or any Python child) in a child process and measure it: wall seconds,
peak memory, CPU seconds, output.

Shared by the benchmark scripts that time whole commands (main_job.py, vqa2_suite_scale.py,
real_suites_scale.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["run_harness", "run_python", "Measured", "uptime"]


def uptime() -> str:
    """The machine's load, to print beside every figure."""
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:  # pragma: no cover
        return "(uptime unavailable)"


@dataclass(frozen=True)
class Measured:
    """One child process: wall seconds, peak resident MB, user + system CPU seconds,
    combined stdout/stderr and exit code."""

    wall: float
    peak_mb: float
    cpu: float
    output: str
    code: int


def run_python(args: list[str], cwd: Path, cache: Path, *, check: bool = True) -> Measured:
    """`python ARGS` run in `cwd` with `VQA_HARNESS_CACHE=cache`, measured. With `check`,
    exits with the output when the command failed (exit codes 0 and 1 — a run with some
    failed examples — are results).

    The peak is the one `wait4` reports for the child: the largest resident set of the
    child and of the processes it waited for (e.g. a Java metric process), not their sum."""
    env = {**os.environ, "VQA_HARNESS_CACHE": str(cache), "TQDM_DISABLE": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = proc.stdout.read()
    proc.stdout.close()
    # Reap the child ourselves: wait4 gives this process's own peak resident set (KB on Linux).
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if check and code not in (0, 1):
        raise SystemExit(f"python {' '.join(args)} failed ({code}):\n{output[-3000:]}")
    return Measured(wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime, output, code)


def run_harness(args: list[str], cwd: Path, cache: Path) -> tuple[float, float, str, int]:
    """(wall seconds, peak resident MB, combined output, exit code) of `harness ARGS` run in
    `cwd` with `VQA_HARNESS_CACHE=cache`; exits with the output when the command failed
    (exit codes 0 and 1 — a run with some failed examples — are results)."""
    try:
        m = run_python(["-m", "vqa_harness_cli", *args], cwd, cache)
    except SystemExit as exc:
        raise SystemExit(str(exc).replace(f"python -m vqa_harness_cli {' '.join(args)}", f"harness {' '.join(args)}", 1))
    return m.wall, m.peak_mb, m.output, m.code
