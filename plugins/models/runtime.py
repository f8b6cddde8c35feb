"""Where and how the torch models train: threads, the device, seeded randomness.

Training runs on the run's device (`Model.setup(device)` is called before `fit`). On the CPU
it is deterministic: one torch thread (`TRAINING_THREADS`), and only kernels chosen not to
depend on the CPU model (`reproducible_cpu`), and square roots correctly rounded
(`exact_sqrt`). Measured on two x86-64 machines: identical seed-0 bits for every trained toy
model (MCB: the runs made there; docs/models.md, "On a second CPU"). On CUDA the cheap
deterministic settings are on while training (cuDNN deterministic, no autotuning; shuffling
stays on seeded CPU generators), but GPU kernels (atomic adds in `index_add_` and
`scatter_add_` backward passes, cuBLAS) may still differ in the last bits from run to run,
and always differ from the CPU's: weights trained on a GPU are cached under their own key
(`device_kind`), never mixed with the CPU's. docs/models.md, "Training".
"""

from __future__ import annotations

import contextlib
import functools
from typing import TYPE_CHECKING, Any, Iterator, Sequence

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["TRAINING_THREADS", "reproducible_cpu", "threads_key", "exact_sqrt", "adam", "device_kind", "to_device", "training_device", "seeded"]

#: Training always runs on one torch thread: the same bits whatever the thread settings, and
#: on 2 shared cores one thread was also the fastest (docs/benchmarks.md). Inference uses the
#: `threads` option (the kernels below give the same bits with 1 or N threads).
TRAINING_THREADS = 1


@contextlib.contextmanager
def reproducible_cpu(threads: int) -> Iterator[None]:
    """For a block: torch's CPU thread count (0: leave it), and only kernels whose results do
    not depend on the machine; everything restored after.

    oneDNN (convolutions, LSTM) and NNPACK choose their blocking, and so their summation
    order, from the CPU's cache sizes and model: with them a machine of another CPU model
    trained other weights (README figures moved by 0.8 and 1.9 points). Without them torch
    runs convolutions as im2col + matrix products, and matrix products go to MKL, whose
    `MKL_CBWR=COMPATIBLE` branch (set in `harness.NUMERICS_ENV`) computes the same bits on
    Intel and AMD CPUs. The other ops used are deterministic for a given thread count
    (LSTM, embedding bag, scatter_add, index_select; not `x[index]` in a backward pass), so
    `torch.use_deterministic_algorithms` is not needed (it also costs a 1.5 s import).
    Tested in separate processes by tests/models/test_reproducibility.py; the cost is in
    docs/benchmarks.md ("Machine-independent numerics").
    """
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    old_threads = torch.get_num_threads()
    # set_flags, not the `flags()` context managers: mkldnn.flags() also switches oneDNN's
    # TF32 setting, which makes torch print a warning about Intel GPUs in every run.
    old_mkldnn = torch.backends.mkldnn.set_flags(False, _fp32_precision=None)[0]
    old_nnpack = torch.backends.nnpack.set_flags(False)[0]
    try:
        if threads > 0 and threads != old_threads:
            torch.set_num_threads(threads)
        yield
    finally:
        torch.backends.mkldnn.set_flags(old_mkldnn, _fp32_precision=None)
        torch.backends.nnpack.set_flags(old_nnpack)
        if torch.get_num_threads() != old_threads:
            torch.set_num_threads(old_threads)


def threads_key(threads: int) -> dict[str, int]:
    """The part of a prediction fingerprint that the `threads` option decides: nothing for one
    thread (the default), else the count. MKL's COMPATIBLE branch gives the same bits on every
    machine for a given thread count, but 1 and 2 threads may differ in the last bits, so
    predictions made with another count are other cache entries."""
    return {} if threads == 1 else {"threads": threads}


def exact_sqrt(x: "torch.Tensor") -> "torch.Tensor":
    """The correctly rounded square root, in `x`'s dtype, on every machine (differentiable).

    torch's CPU `sqrt` is not correctly rounded: it is MKL's vector math, accurate to about one
    unit in the last place, and its bits differ between Intel and AMD CPUs (float32: 15% of
    inputs off by one unit here; float64: 1.3% of a million inputs here). On the CPU the root
    is numpy's, whose `sqrt` is the IEEE-754 operation (correctly rounded on every x86-64 CPU),
    in float64; a float32 input is rounded back from it (the float64 root of a float32 rounds
    to its correctly rounded float32 root). On CUDA torch's `sqrt` is the IEEE operation."""
    wide = x.double()  # x itself when it is float64
    root = _numpy_sqrt().apply(wide) if x.device.type == "cpu" else wide.sqrt()
    return root.to(x.dtype)  # root itself when x is float64


@functools.cache
def _numpy_sqrt() -> type:
    import numpy as np  # imported with torch, on use
    import torch  # heavy, as above

    class NumpySqrt(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):  # type: ignore[override]
            with np.errstate(invalid="ignore"):  # a negative input gives NaN, as torch's sqrt does
                y = torch.from_numpy(np.asarray(np.sqrt(x.detach().numpy())))  # asarray: 0-d stays an array
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):  # type: ignore[override]
            (y,) = ctx.saved_tensors
            return grad / (2 * y)  # torch's own sqrt backward

    return NumpySqrt


def adam(params: Any, lr: float) -> "torch.optim.Optimizer":
    """Adam with the same bits on every CPU: the fused kernel, whose square root is exact (the
    default per-tensor Adam calls torch's float32 `sqrt`, see `exact_sqrt`). Chosen by where
    the parameters are, not by the run's device: the fused kernel exists for CPU and CUDA
    tensors; elsewhere the default Adam runs."""
    import torch  # heavy, as above

    params = list(params)
    fused = all(p.device.type in ("cpu", "cuda") for p in params) or None
    return torch.optim.Adam(params, lr=lr, fused=fused)


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
    caller's state after: the CPU's, and on CUDA also the device's. Only those are seeded
    (`torch.manual_seed` would seed every GPU, which nothing restores). numpy's and `random`'s
    are not touched."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    devices: list[int] = []
    if device_kind(device) == "cuda":
        index = torch.device(device).index
        devices = [torch.cuda.current_device() if index is None else index]
    with torch.random.fork_rng(devices=devices):
        torch.random.default_generator.manual_seed(seed)
        for index in devices:  # CUDA started by fork_rng: its generators exist
            torch.cuda.default_generators[index].manual_seed(seed)
        yield
