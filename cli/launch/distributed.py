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

from harness.errors import ExitCode, HarnessError, StopRun, UsageError, one_line
from harness.host import PluginHost
from harness.run.config import RunConfig
from harness.run.execute import execute_run
from harness.run.predictor import Predictor
from harness.run.tasks import RunOutcome
from harness.types import Example, Prediction

__all__ = ["world", "ShardPredictor", "run_distributed", "exchange", "Desynchronised", "exchange_timeout",
           "TIMEOUT_ENV"]

#: Minutes a rank waits for the others at an exchange before the run stops (a rank that hangs).
TIMEOUT_ENV = "VQA_HARNESS_EXCHANGE_TIMEOUT"
DEFAULT_TIMEOUT = datetime.timedelta(hours=12)
MAX_TIMEOUT = 525_600  # minutes: a year


class Desynchronised(StopRun):
    """The ranks' exchanges broke (a rank died, stopped or took another path): no collective
    call may follow, so every rank stops at once; the message names the rank at fault."""


def exchange(size: int, phase: str, payload: Any) -> list[Any]:
    """Every rank's `payload` (all_gather_object), tagged with the `phase` each rank is in
    ("predict": a prediction request; "end": its share of the run done). Ranks in different
    phases, or a collective that fails (a rank gone, the timeout), raise Desynchronised on
    every rank that takes part, instead of pairing unrelated calls or waiting forever."""
    import torch.distributed as dist  # heavy: imported on use

    got: list[Any] = [None] * size
    try:
        dist.all_gather_object(got, (phase, payload))
    except Exception as exc:  # gloo: a peer closed the connection, or the exchange timed out
        raise Desynchronised(f"the exchange between ranks failed ({one_line(exc)}): a rank died, hung or was "
                             "stopped (the predictions made before are in the prediction cache; re-run to go on)",
                             ExitCode.PARTIAL)
    if all(p == phase for p, _ in got):
        return [payload for _, payload in got]
    ended = [(r, body) for r, (p, body) in enumerate(got) if p == "end"]
    reason, code = next(((_named(r, body[0]), ExitCode(body[1])) for r, body in ended if body and body[0]),
                        ("", ExitCode.PARTIAL))
    reason = reason or next((f"rank {r}: {body[2]}, on this rank only" for r, body in ended if body and body[2]), "")
    if not reason:
        reason = (f"rank(s) {', '.join(str(r) for r, _ in ended)} finished their share while the others still predict "
                  "(the ranks' runs took different paths)")
    raise Desynchronised(reason + " (the predictions made before are in the prediction cache; re-run to go on)", code)


def _named(rank: int, message: str) -> str:
    """`message` prefixed with its rank, once (a rank's own failure already names it)."""
    return message if message.startswith(f"rank {rank}: ") else f"rank {rank}: {message}"


def _said(exc: Exception) -> str:
    """What a rank's failure says in one line (a HarnessError its own text)."""
    return str(exc) if isinstance(exc, HarnessError) else one_line(exc)


def _code(exc: Exception) -> ExitCode:
    return exc.exit_code if isinstance(exc, HarnessError) else ExitCode.PARTIAL


def world() -> tuple[int, int, int]:
    """(rank, world size, local rank) from the launcher's environment; (0, 1, 0) without one.
    A value that is not a whole number, a rank outside the world, or a world of several
    processes without what torch's rendezvous needs (RANK, MASTER_ADDR, MASTER_PORT), or a bad
    $VQA_HARNESS_EXCHANGE_TIMEOUT there, is one UsageError line naming the variable, before
    anything is computed."""
    size = _whole("WORLD_SIZE", 1, low=1)
    rank, local_rank = _whole("RANK", 0), _whole("LOCAL_RANK", 0)
    if size > 1:
        for variable in ("RANK", "MASTER_ADDR", "MASTER_PORT"):
            if not os.environ.get(variable, "").strip():
                raise UsageError(f"WORLD_SIZE={size} but {variable} is not set: start several processes with a "
                                 "launcher (torchrun, accelerate launch) that sets RANK, WORLD_SIZE, MASTER_ADDR "
                                 "and MASTER_PORT, or unset WORLD_SIZE")
        _whole("MASTER_PORT", 0, low=1, high=65535)
        exchange_timeout()
    if rank >= size:
        raise UsageError(f"RANK={rank} is not below WORLD_SIZE={size} (ranks are 0 to WORLD_SIZE - 1)")
    return rank, size, local_rank


def exchange_timeout() -> datetime.timedelta:
    """How long a rank waits for the others at an exchange: $VQA_HARNESS_EXCHANGE_TIMEOUT
    minutes (a whole number from 1 to MAX_TIMEOUT, a year; torch's clock overflows near 10^12
    minutes), 12 hours when unset. A rank that hangs (a stuck GPU, a model that never returns)
    otherwise holds every other rank's GPU that long. Used only where the harness makes the
    process group; a group the caller made keeps its own timeout."""
    if not os.environ.get(TIMEOUT_ENV, "").strip():
        return DEFAULT_TIMEOUT
    return datetime.timedelta(minutes=_whole(TIMEOUT_ENV, 0, low=1, high=MAX_TIMEOUT, about=(
        "minutes a rank waits for the others at an exchange; unset, 12 hours")))


def _whole(variable: str, default: int, *, low: int = 0, high: int | None = None,
           about: str = "set by a launcher such as torchrun; unset it to run in one process") -> int:
    """`$variable` as a whole number (`default` when unset); `about` ends the error line."""
    text = os.environ.get(variable)
    if text is None:
        return default
    value = text.strip()
    if not (value.isascii() and value.isdigit()) or int(value) < low or (high is not None and int(value) > high):
        bounds = f" from {low} to {high}" if high is not None else (f" of at least {low}" if low else "")
        raise UsageError(f"{variable}={text!r}: expected a whole number{bounds} ({about})")
    return int(value)


class ShardPredictor(Predictor):
    """A Predictor that computes only this rank's share of each request, then gathers the rest."""
    def __init__(self, *args: Any, rank: int, world_size: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rank, self.world_size = rank, world_size

    def predict(self, examples: Sequence[Example], capability: str, *, answers: Sequence[str] | None = None,
                desc: str = "") -> list[Prediction]:
        """Same contract as Predictor.predict; collective: every rank must make the same calls."""
        if capability not in self.model.capabilities():
            raise UsageError(f"model {self.model.name!r} has no {capability!r} capability")
        stop: StopRun | None = None
        owned: dict[str, Prediction] = {}
        try:  # everything this rank does alone: a failure here must reach the others, not desynchronise them
            extras = list(answers) if answers is not None else [""] * len(examples)
            keys = [self.model.input_key(ex, capability, extra) for ex, extra in zip(examples, extras)]
            first: dict[str, int] = {}
            for i, key in enumerate(keys):
                first.setdefault(key, i)
            mine = list(first)[self.rank :: self.world_size]
            owned = self.cache.get_many(self.fingerprint, mine)
            self.stats.cache_hits += len(owned)
            todo = [first[k] for k in mine if k not in owned]
            if todo:
                owned.update(self._run_missing(examples, extras, keys, todo, capability, desc))
        except Exception as exc:  # the model cannot go on here, the disk is full, a bug: every rank stops
            stop = StopRun(f"rank {self.rank}: {_said(exc)}", _code(exc))
            stop.__cause__ = exc
        shards = exchange(self.world_size, "predict", owned if stop is None else ("stop", str(stop), int(stop.exit_code)))
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


def _bind_defaults_first() -> None:
    """Import the torch modules whose functions take `group=dist.group.WORLD` as a default
    value (torch.distributed.nn's ten collectives, zero_redundancy_optimizer._broadcast_object,
    ShardedGradScaler) before the process group exists: Python evaluates a default once, at
    import, so they hold None.

    Imported after it (transformers imports torch.distributed.nn while it loads a model), they
    hold the group itself: destroy_process_group then frees nothing, the group's gloo threads
    (gloo_tcp_loop, pt_gloo_runloop) run on into interpreter exit, where C++ threads still
    running can abort the process. Seen once in the two-process test: rank 1 aborted as it left
    ("terminate called without an active exception", SIGABRT) while rank 0 replayed the run,
    and torchrun stopped the run at its end. A module outside torch that did the same would
    need the same treatment."""
    try:  # heavy: torch modules, imported only where a process group is made
        import torch.distributed.nn  # noqa: F401
    except ImportError:  # a torch build without it: it holds nothing
        pass
    try:  # heavy: as above
        import torch.distributed.optim  # noqa: F401
    except ImportError:  # as above
        pass
    try:  # heavy: as above
        import torch.distributed.fsdp.sharded_grad_scaler  # noqa: F401
    except ImportError:  # as above
        pass


@contextlib.contextmanager
def _process_group(timeout: datetime.timedelta) -> Iterator[None]:
    import torch.distributed as dist  # heavy: imported on use

    created = False
    if not dist.is_initialized():
        _bind_defaults_first()
        # Only Python objects are exchanged, so gloo is right on CPU and GPU nodes alike.
        dist.init_process_group("gloo", timeout=timeout)
        created = True
    try:
        yield
    finally:
        if created:
            dist.destroy_process_group()


def run_distributed(config: RunConfig, host: PluginHost, *,
                    timeout: datetime.timedelta | None = None) -> RunOutcome | None:
    """Run `config` sharded over the launcher's ranks; a rank waits `timeout` for the others at
    an exchange (None: `exchange_timeout()`).

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
    with _process_group(timeout if timeout is not None else exchange_timeout()):
        import torch.distributed as dist  # heavy: imported on use

        def shard_predictor(model: Any, **kwargs: Any) -> ShardPredictor:
            kwargs["progress"] = kwargs.get("progress", True) and rank == 0
            return ShardPredictor(model, rank=rank, world_size=size, **kwargs)

        failed: HarnessError | None = None
        with tempfile.TemporaryDirectory(prefix=f"harness-rank{rank}-") as scratch:
            # Phase 1: all ranks, scratch run directories (deleted), real prediction cache.
            sharded = replace(config, out=Path(scratch), device=device, resume=False, reuse_outputs=False)
            note = ""
            try:
                fails = execute_run(sharded, host, predictor_factory=shard_predictor).probe_failures
                note = f"probe {fails[0].probe} failed on {fails[0].task}: {fails[0].message}" if fails else ""
            except HarnessError as exc:  # a spent budget, an endpoint gone: every rank must hear it
                failed = exc
            except Exception as exc:  # a rank's own failure outside the exchanges: said, not a hang
                failed = StopRun(f"rank {rank}: {_said(exc)}", _code(exc))
                failed.__cause__ = exc
        if isinstance(failed, Desynchronised):  # the exchanges are broken: no collective call may follow
            if rank == 0:
                raise failed
            return None
        try:  # also the barrier: no rank waits for one that stopped
            said = exchange(size, "end", (str(failed), int(failed.exit_code), "") if failed else ("", 0, note))
        except Desynchronised as exc:
            if rank == 0:
                raise exc from failed
            return None
        dist.barrier()  # every rank has its copy before rank 0 may raise and leave
        if rank != 0:
            return None
        stopped = next(((r, s) for r, s in enumerate(said) if s[0]), None)
        if stopped is not None:
            if failed is not None:
                raise failed
            where, (message, code, _) = stopped
            raise StopRun(f"{_named(where, message)} (the predictions made before are in the prediction cache; "
                          "re-run to go on)", ExitCode(code))
        # Phase 2: rank 0 replays the run; every successful prediction is a cache hit.
        return execute_run(replace(config, device=device), host)
