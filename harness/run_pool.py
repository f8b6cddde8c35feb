"""Several models of one `harness run` at once, one process per model (`--jobs`).

Each model's run is independent (its own run folder, its own fit and predictions), so
models run in worker processes, as many at a time as `--jobs` allows. Workers are forked
from the command's process, so they share its plugin host (plugins registered in-process,
as `harness.testing` does, included) and run the ordinary `harness.run.execute_run`:
results are those of a sequential run. Model-independent work both need (toy data, decoy
sets, perturbations) is built once: the cache's builders hold a lock while they build
(harness.locks), so the second worker waits for the first and reads what it wrote.

Models that train on images start first, then other trainable ones: they usually take
longest, and the machine stays busy while they train. Outcomes are handed back in
the order the models were given. An expected failure (HarnessError) of one model lets the
models already running finish (their outcomes are still handed back), starts no other,
and is raised once they have.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from .errors import HarnessError

if TYPE_CHECKING:  # pragma: no cover
    from .plugins import PluginHost
    from .run import RunConfig
    from .run_tasks import RunOutcome

__all__ = ["default_jobs", "expected_cost", "run_parallel"]


def default_jobs(n_models: int, device: str) -> int:
    """`--jobs auto`: one process per model up to the machine's cores; one at a time on a
    GPU (models would compete for its memory) or where processes cannot be forked."""
    if n_models < 2 or device.startswith("cuda") or not _can_fork():
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
_HOST: "PluginHost | None" = None
_EXECUTE: "Callable[[RunConfig, PluginHost], RunOutcome] | None" = None


def _work(config: "RunConfig") -> "RunOutcome":
    assert _HOST is not None and _EXECUTE is not None
    # Several processes' progress bars (runner, training) would overwrite each other.
    os.environ["TQDM_DISABLE"] = "1"
    return _EXECUTE(config, _HOST)


def run_parallel(configs: Sequence["RunConfig"], host: "PluginHost", jobs: int, *,
                 cost: Sequence[int], execute: Callable[["RunConfig", "PluginHost"], "RunOutcome"],
                 started: Callable[[str], None]) -> Iterator["RunOutcome"]:
    """Outcomes of `execute(config, host)` for every config, in the given order, computed
    by up to `jobs` forked processes, the highest `cost` (an expected-cost rank) first."""
    global _HOST, _EXECUTE
    _HOST, _EXECUTE = host, execute
    order = sorted(range(len(configs)), key=lambda i: -cost[i])  # stable: the given order on ties
    futures: dict[int, Future] = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        try:
            for i in order:
                futures[i] = pool.submit(_work, configs[i])
            started(f"running {len(configs)} models in {jobs} processes (--jobs {jobs})")
            failure: HarnessError | None = None
            for i in range(len(configs)):
                try:
                    outcome = futures[i].result()
                except HarnessError as exc:
                    if failure is None:
                        failure = exc
                        for f in futures.values():
                            f.cancel()  # not started yet: never starts
                    continue
                except Exception:
                    if futures[i].cancelled():
                        continue
                    raise
                yield outcome
            if failure is not None:
                raise failure
        finally:
            for f in futures.values():
                f.cancel()
            _HOST = _EXECUTE = None
