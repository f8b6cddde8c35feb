"""Run `harness ...` (or any Python child) in a child process and measure it: wall seconds,
peak memory, CPU seconds, output.

Shared by the benchmark scripts that time whole commands (main_job.py, vqa2_suite_scale.py,
real_suites_scale.py); `best_of` times a call in this process (strict_json.py, image_stamps.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["run_harness", "run_python", "Measured", "uptime", "best_of", "positive_int"]


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (one line from argparse otherwise)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def best_of(repeat: int, fn) -> float:
    """The fastest of `repeat` timings of `fn()`, in seconds (in this process)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


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


#: A small Python process between the benchmark and the measured command. Linux counts the
#: resident set of the process a child was forked from (and, for vfork/posix_spawn, that
#: process's peak) in the child's `ru_maxrss`: a benchmark that had generated 214k questions
#: in memory made a 265 MB warm run read 950 MB. This process is fresh and small; it forks
#: the command, reaps it with `wait4` and writes its usage and exit code (-N when signal N
#: killed it) to the file named in argv[1]. It costs one more Python start-up (about 40 ms).
_REAPER = """
import json, os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
_, status, usage = os.wait4(pid, 0)
code = os.waitstatus_to_exitcode(status)  # -N: killed by signal N
with open(sys.argv[1], "w") as fh:
    json.dump({"maxrss_kb": usage.ru_maxrss, "cpu": usage.ru_utime + usage.ru_stime, "code": code}, fh)
sys.exit(code & 0xFF)
"""


def run_python(args: list[str], cwd: Path, cache: Path, *, check: bool = True) -> Measured:
    """`python ARGS` run in `cwd` with `VQA_HARNESS_CACHE=cache`, measured. With `check`,
    exits with the output when the command failed (exit codes 0 and 1 — a run with some
    failed examples — are results).

    The peak is the one `wait4` reports for the command: the largest resident set of the
    command and of the processes it waited for (e.g. a Java metric process), not their sum;
    the command is forked from a small reaper process (`_REAPER`), so the benchmark's own
    memory is not counted in it."""
    env = {**os.environ, "VQA_HARNESS_CACHE": str(cache), "TQDM_DISABLE": "1"}
    fd, report = tempfile.mkstemp(prefix="harness-proc-", suffix=".json")
    os.close(fd)
    try:
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _REAPER, report, *args], cwd=cwd, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wall = time.perf_counter() - start
        usage = json.loads(Path(report).read_text() or "{}")
    finally:
        os.unlink(report)
    code = usage.get("code", proc.returncode)  # the command's own, a signal as -N (not the reaper's)
    if check and (code not in (0, 1) or not usage):
        raise SystemExit(f"python {' '.join(args)} failed ({code}):\n{proc.stdout[-3000:]}")
    return Measured(wall, usage.get("maxrss_kb", 0) / 1024, usage.get("cpu", 0.0), proc.stdout, code)


def run_harness(args: list[str], cwd: Path, cache: Path) -> tuple[float, float, str, int]:
    """(wall seconds, peak resident MB, combined output, exit code) of `harness ARGS` run in
    `cwd` with `VQA_HARNESS_CACHE=cache`; exits with the output when the command failed
    (exit codes 0 and 1 — a run with some failed examples — are results)."""
    try:
        m = run_python(["-m", "vqa_harness_cli", *args], cwd, cache)
    except SystemExit as exc:
        raise SystemExit(str(exc).replace(f"python -m vqa_harness_cli {' '.join(args)}", f"harness {' '.join(args)}", 1)) from None
    return m.wall, m.peak_mb, m.output, m.code
