"""Where and how the torch models train: threads, the device, seeded randomness.

Training runs on the run's device (`Model.setup(device)` is called before `fit`). On the CPU
it is deterministic and bit-identical on every machine: one torch thread
(`TRAINING_THREADS`), ops whose CPU kernels are deterministic. On CUDA the cheap
deterministic settings are on while training (cuDNN deterministic, no autotuning; shuffling
stays on seeded CPU generators), but GPU kernels (atomic adds in `index_add_` and
`scatter_add_` backward passes, cuBLAS) may still differ in the last bits from run to run,
and always differ from the CPU's: weights trained on a GPU are cached under their own key
(`device_kind`), never mixed with the CPU's. docs/models.md, "Training".
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Iterator, Sequence

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["TRAINING_THREADS", "torch_threads", "device_kind", "to_device", "training_device", "seeded"]

#: Training always runs on one torch thread: the same bits on every machine and whatever the
#: thread settings (oneDNN's multi-threaded convolution backward accumulates in a
#: thread-count-dependent order), and on 2 shared cores one thread was also the fastest
#: (docs/benchmarks.md). Inference uses the `threads` option (convolution forward, LSTM,
#: embedding bag and MKL matrix products under strict CNR give the same bits with 1 or N).
TRAINING_THREADS = 1


@contextlib.contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """Set torch's CPU thread count for a block (0: leave it), then restore it.

    The ops used are deterministic on CPU for a given thread count (convolution, LSTM,
    embedding bag, scatter_add, index_select; not `x[index]` in a backward pass), so
    `torch.use_deterministic_algorithms` is not needed (it also costs a 1.5 s import).
    Tested in separate processes by tests/models/test_reproducibility.py.
    """
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    old_threads = torch.get_num_threads()
    try:
        if threads > 0 and threads != old_threads:
            torch.set_num_threads(threads)
        yield
    finally:
        if torch.get_num_threads() != old_threads:
            torch.set_num_threads(old_threads)


def device_kind(device: str | None) -> str:
    """"cpu" for None or "cpu", else the device type ("cuda" for "cuda:1"): the part of the
    device that can change trained weights (cache keys hold it when it is not "cpu")."""
    if not device:
        return "cpu"
    return str(device).split(":", 1)[0]


def to_device(tensors: Sequence["torch.Tensor"], device: str) -> list["torch.Tensor"]:
    """The tensors on `device`; on the CPU the very same tensors (no op at all)."""
    if device_kind(device) == "cpu":
        return list(tensors)
    return [t.to(device) for t in tensors]


@contextlib.contextmanager
def training_device(device: str) -> Iterator[None]:
    """On CUDA, cuDNN's deterministic algorithms and no autotuning for a block (restored
    after); on the CPU nothing changes."""
    if device_kind(device) != "cuda":
        yield
        return
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    old = torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = True, False
    try:
        yield
    finally:
        torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = old


@contextlib.contextmanager
def seeded(seed: int, device: str) -> Iterator[None]:
    """Seed torch's global generators (weight init, dropout) for a block and restore the
    caller's state after: the CPU's, and on CUDA also the device's."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    devices: list[int] = []
    if device_kind(device) == "cuda":
        index = torch.device(device).index
        devices = [torch.cuda.current_device() if index is None else index]
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        yield
