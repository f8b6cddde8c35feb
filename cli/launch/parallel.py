"""Several models of one `harness run` at once, one process per model (`--jobs`).

Each model's run is independent (its own run folder, its own fit and predictions), so
models run in worker processes, as many at a time as `--jobs` allows. Workers are forked
from the command's process, so they share its plugin host (plugins registered in-process,
as `harness.testing` does, included) and run the ordinary `harness.run.execute.execute_run`:
results are those of a sequential run. Model-independent work both need (toy data, decoy
sets, perturbations) is built once: the cache's builders hold a lock while they build
(harness.cache.locks), so the second worker waits for the first and reads what it wrote.

Models that train on images start first, then other trainable ones: they usually take
longest, and the machine stays busy while they train. Outcomes are handed back in
the order the models were given. An expected failure (HarnessError) of one model lets the
models already running finish (their outcomes are still handed back), starts no other,
and is raised once they have. A model is handed to a process only when one is free.

A signal (Ctrl-C, SIGTERM) stops every running model, each recording it in its manifest,
and waits for the workers to exit (vqa_harness_cli.launch.signals): no worker outlives the command.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterator, Sequence

from harness.devices import has_nvidia_driver
from harness.errors import HarnessError, PluginError, Stopped
from harness.host import PluginHost
from harness.run import stops
from harness.run.config import RunConfig
from harness.run.tasks import RunOutcome

from . import signals

__all__ = ["default_jobs", "expected_cost", "run_parallel"]


def default_jobs(n_models: int, device: str) -> int:
    """`--jobs auto`: one process per model up to the machine's cores; one at a time on a
    GPU (models would compete for its memory: `--device cuda...`, or `auto` on a machine
    with an NVIDIA driver, checked without importing torch, which must not touch CUDA
    before the workers fork) or where processes cannot be forked."""
    gpu = device.startswith("cuda") or (device == "auto" and has_nvidia_driver())
    if n_models < 2 or gpu or not _can_fork():
        return 1
    return max(1, min(n_models, _cores()))


def expected_cost(model_class: type) -> int:
    """A rank of how long a model's run takes: 2 trains on images, 1 trains, 0 neither."""
    trains = "fit" in model_class.capabilities()
    return int(trains) + int(trains and bool(getattr(model_class, "uses_images", False)))


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _can_fork() -> bool:
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


# The host and the run function reach the forked workers through these module globals
# (inherited by fork, never pickled).
_HOST: PluginHost | None = None
_EXECUTE: Callable[[RunConfig, PluginHost], RunOutcome] | None = None
#: Per model (in the given order), shared with the workers: the pid of the worker running it
#: while it runs, 0 before, -1 once its run has ended in any way the worker saw.
_RUNNING: Any = None


def _work(index: int, config: RunConfig) -> RunOutcome:
    assert _HOST is not None and _EXECUTE is not None
    # Several processes' progress bars (runner, training) would overwrite each other.
    os.environ["TQDM_DISABLE"] = "1"
    _RUNNING[index] = os.getpid()
    try:
        with signals.worker_run():
            return _EXECUTE(config, _HOST)
    finally:
        _RUNNING[index] = -1


def _ended_abruptly(configs: Sequence[RunConfig], running: Sequence[int]) -> PluginError:
    """The line for a broken pool, once its workers are gone: it names the models whose worker
    died in their run (the others were stopped by the pool and marked `terminated`); every
    model that was running when no worker can be named (one died before its run began)."""
    died = [i for i in running if _RUNNING[i] > 0] or sorted(running)
    models = ", ".join(repr(configs[i].model) for i in died)
    which = f"process running model {models}" if len(died) == 1 else f"processes running models {models}"
    return PluginError(f"the {which} ended abruptly (killed, out of memory?); what it computed is saved: "
                       "re-run with --resume")


def run_parallel(configs: Sequence[RunConfig], host: PluginHost, jobs: int, *,
                 cost: Sequence[int], execute: Callable[[RunConfig, PluginHost], RunOutcome],
                 started: Callable[[str], None],
                 warn: Callable[[str], None] | None = None) -> Iterator[RunOutcome]:
    """Outcomes of `execute(config, host)` for every config, in the given order, computed
    by up to `jobs` forked processes, the highest `cost` (an expected-cost rank) first.

    A model is handed to the pool only when a process is free, so after a failure or an
    interrupt nothing queued starts. A worker that dies (killed, out of memory) is a
    PluginError naming the model; after an expected failure, another model's is passed to
    `warn` and the first one raised, with the models never started as its `not_started`; a signal (Ctrl-C, SIGTERM) stops the running models, which
    record their state (`--resume` continues them), and is raised once the workers have exited."""
    global _HOST, _EXECUTE, _RUNNING
    _HOST, _EXECUTE = host, execute
    _RUNNING = multiprocessing.get_context("fork").RawArray("q", len(configs))
    waiting = sorted(range(len(configs)), key=lambda i: -cost[i])  # stable: the given order on ties
    running: dict[Future, int] = {}
    outcomes: dict[int, RunOutcome] = {}
    failure: HarnessError | None = None
    shown = 0
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"),
                               initializer=signals.worker_started)
    stop: int | None = None
    try:
        started(f"running {len(configs)} models in {jobs} processes (--jobs {jobs})")
        while waiting or running:
            while waiting and failure is None and len(running) < jobs:
                i = waiting.pop(0)
                running[pool.submit(_work, i, configs[i])] = i
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in sorted(finished, key=running.__getitem__):  # failures at once: in the given order
                i = running.pop(future)
                try:
                    outcomes[i] = future.result()
                except HarnessError as exc:
                    if failure is not None and warn is not None:  # not lost behind the first one's line
                        warn(f"error: {configs[i].model}: {exc}")
                    if failure is None:
                        failure, exc.model = exc, configs[i].model  # type: ignore[attr-defined]
                except BrokenProcessPool:  # which worker died: known once the pool has stopped the others
                    pool.shutdown(wait=True, cancel_futures=True)
                    raise _ended_abruptly(configs, [i, *running.values()]) from None
            # Hand back, in the given order, every outcome whose turn has come.
            while shown < len(configs) and (shown in outcomes or (failure is not None and shown in waiting)):
                if shown in outcomes:
                    yield outcomes.pop(shown)
                shown += 1
        for i in sorted(outcomes):  # after a failure: the models that finished
            yield outcomes[i]
        if failure is not None:
            failure.not_started = [configs[i].model for i in sorted(waiting)]  # type: ignore[attr-defined]
            raise failure
    except KeyboardInterrupt as exc:  # Stopped: this process was signalled, or a worker was
        stop = exc.signum if isinstance(exc, Stopped) else signal.SIGINT
        raise
    finally:
        # However this generator ends (a signal may also arrive while the caller prints a
        # summary), a signal received is passed on: each running model records it, and
        # `shutdown` waits for every worker to exit.
        stop = stop or stops.pending()
        if stop is not None:
            signals.forward(list(getattr(pool, "_processes", {}) or {}), stop)
        pool.shutdown(wait=True, cancel_futures=True)
        _HOST = _EXECUTE = _RUNNING = None
