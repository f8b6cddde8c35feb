"""Multi-process runs on torch.distributed (torchrun), with results identical to one process.

    torchrun --nproc_per_node=2 -m vqa_harness_cli run --model hf-vqa:path=... --suite vqa-accuracy

Every rank runs the suite's probes (they are deterministic), but its runner (`ShardPredictor`)
sends to the model only the rank's share of each prediction request: the distinct inputs of
the request, dealt round-robin. Each rank writes its predictions into the prediction cache as
usual, then the ranks exchange them (`all_gather_object`, gloo: works across nodes even when
they do not share a cache file) so that every probe sees every prediction. Finally rank 0
replays the run through the ordinary `harness.run.execute.execute_run`; every prediction is then a
cache hit (failed examples are retried), and rank 0 alone writes the run directory and the
leaderboard. Other ranks write nothing but predictions.

`accelerate launch -m vqa_harness_cli run ...` works too: it sets the same environment
variables (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator, Sequence

from harness.errors import ExitCode, HarnessError, StopRun, UsageError
from harness.host import PluginHost
from harness.run.config import RunConfig
from harness.run.execute import execute_run
from harness.run.predictor import Predictor
from harness.run.tasks import RunOutcome
from harness.types import Example, Prediction

__all__ = ["world", "ShardPredictor", "run_distributed"]


def world() -> tuple[int, int, int]:
    """(rank, world size, local rank) from the launcher's environment; (0, 1, 0) without one.
    A value that is not a whole number, a rank outside the world, or a world of several
    processes without what torch's rendezvous needs (RANK, MASTER_ADDR, MASTER_PORT) is one
    UsageError line naming the variable, before anything is computed."""
    size = _whole("WORLD_SIZE", 1, low=1)
    rank, local_rank = _whole("RANK", 0), _whole("LOCAL_RANK", 0)
    if size > 1:
        for variable in ("RANK", "MASTER_ADDR", "MASTER_PORT"):
            if not os.environ.get(variable, "").strip():
                raise UsageError(f"WORLD_SIZE={size} but {variable} is not set: start several processes with a "
                                 "launcher (torchrun, accelerate launch) that sets RANK, WORLD_SIZE, MASTER_ADDR "
                                 "and MASTER_PORT, or unset WORLD_SIZE")
        _whole("MASTER_PORT", 0, low=1, high=65535)
    if rank >= size:
        raise UsageError(f"RANK={rank} is not below WORLD_SIZE={size} (ranks are 0 to WORLD_SIZE - 1)")
    return rank, size, local_rank


def _whole(variable: str, default: int, *, low: int = 0, high: int | None = None) -> int:
    """The launcher's `$variable` as a whole number (`default` when unset)."""
    text = os.environ.get(variable)
    if text is None:
        return default
    value = text.strip()
    if not (value.isascii() and value.isdigit()) or int(value) < low or (high is not None and int(value) > high):
        bounds = f" from {low} to {high}" if high is not None else (f" of at least {low}" if low else "")
        raise UsageError(f"{variable}={text!r}: expected a whole number{bounds} (set by a launcher such as "
                         "torchrun; unset it to run in one process)")
    return int(value)


class ShardPredictor(Predictor):
    """A Predictor that computes only this rank's share of each request, then gathers the rest."""
    def __init__(self, *args: Any, rank: int, world_size: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rank, self.world_size = rank, world_size

    def predict(self, examples: Sequence[Example], capability: str, *, answers: Sequence[str] | None = None,
                desc: str = "") -> list[Prediction]:
        """Same contract as Predictor.predict; collective: every rank must make the same calls."""
        import torch.distributed as dist  # heavy: imported on use

        if capability not in self.model.capabilities():
            raise UsageError(f"model {self.model.name!r} has no {capability!r} capability")
        extras = list(answers) if answers is not None else [""] * len(examples)
        keys = [self.model.input_key(ex, capability, extra) for ex, extra in zip(examples, extras)]
        first: dict[str, int] = {}
        for i, key in enumerate(keys):
            first.setdefault(key, i)
        mine = list(first)[self.rank :: self.world_size]
        owned = self.cache.get_many(self.fingerprint, mine)
        self.stats.cache_hits += len(owned)
        todo = [first[k] for k in mine if k not in owned]
        stop: StopRun | None = None
        if todo:
            try:
                owned.update(self._run_missing(examples, extras, keys, todo, capability, desc))
            except StopRun as exc:  # the model cannot go on here: the other ranks must stop too, not wait
                stop = exc
        shards: list[Any] = [None] * self.world_size
        dist.all_gather_object(shards, owned if stop is None else ("stop", str(stop), int(stop.exit_code)))
        halted = next((s for s in shards if isinstance(s, tuple)), None)
        if halted is not None:
            if stop is not None:
                raise stop
            raise StopRun(halted[1], ExitCode(halted[2]))
        results: dict[str, Prediction] = {}
        for shard in shards:
            results.update(shard or {})
        if self.rank == 0:
            # Rank 0 scores from its cache; with one cache per node it lacks the others' rows.
            self.cache.put_many(self.fingerprint, {k: p for k, p in results.items() if k not in owned})
        return [Prediction(**{**results[k].__dict__, "example_id": ex.id}) for ex, k in zip(examples, keys)]


@contextlib.contextmanager
def _process_group(timeout_hours: float) -> Iterator[None]:
    import torch.distributed as dist  # heavy: imported on use

    created = False
    if not dist.is_initialized():
        # Only Python objects are exchanged, so gloo is right on CPU and GPU nodes alike.
        dist.init_process_group("gloo", timeout=datetime.timedelta(hours=timeout_hours))
        created = True
    try:
        yield
    finally:
        if created:
            dist.destroy_process_group()


def run_distributed(config: RunConfig, host: PluginHost, *, timeout_hours: float = 12.0) -> RunOutcome | None:
    """Run `config` sharded over the launcher's ranks.

    Returns rank 0's RunOutcome (None on other ranks). With WORLD_SIZE=1 this is a plain run.
    """
    rank, size, local_rank = world()
    if size == 1:
        return execute_run(config, host)
    device = config.device
    if device in ("auto", "cuda"):
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        if torch.cuda.is_available():
            device = f"cuda:{local_rank % torch.cuda.device_count()}"
        elif device == "auto":
            device = "cpu"
    with _process_group(timeout_hours):
        import torch.distributed as dist  # heavy: imported on use

        def shard_predictor(model: Any, **kwargs: Any) -> ShardPredictor:
            kwargs["progress"] = kwargs.get("progress", True) and rank == 0
            return ShardPredictor(model, rank=rank, world_size=size, **kwargs)

        failed: HarnessError | None = None
        with tempfile.TemporaryDirectory(prefix=f"harness-rank{rank}-") as scratch:
            # Phase 1: all ranks, scratch run directories (deleted), real prediction cache.
            sharded = replace(config, out=Path(scratch), device=device, resume=False, reuse_outputs=False)
            try:
                execute_run(sharded, host, predictor_factory=shard_predictor)
            except HarnessError as exc:  # a spent budget, an endpoint gone: every rank must hear it
                failed = exc
        # Also the barrier: no rank waits for one that stopped.
        said: list[Any] = [None] * size
        dist.all_gather_object(said, None if failed is None else (str(failed), int(failed.exit_code)))
        dist.barrier()  # every rank has its copy before rank 0 may raise and leave
        if rank != 0:
            return None
        stopped = next(((r, s) for r, s in enumerate(said) if s is not None), None)
        if stopped is not None:
            if failed is not None:
                raise failed
            where, (message, code) = stopped
            raise StopRun(f"rank {where}: {message} (the predictions made before are in the prediction cache; "
                          "re-run to go on)", ExitCode(code))
        # Phase 2: rank 0 replays the run; every successful prediction is a cache hit.
        return execute_run(replace(config, device=device), host)
