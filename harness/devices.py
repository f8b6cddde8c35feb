"""Devices and threads: which torch device a run uses, whether the machine has an NVIDIA
driver (asked without importing torch), and torch's CPU threads while a model computes."""

from __future__ import annotations

import contextlib
import os
import shutil
from typing import Iterator

from .api import Model
from .errors import UsageError

__all__ = ["resolve_device", "has_nvidia_driver", "model_threads"]


def resolve_device(device: str) -> str:
    """`auto` -> "cuda" when available, else "cpu" (without importing torch when the machine
    has no NVIDIA driver: a cached re-run never imports it); validates `cuda[:i]`."""
    if device == "cpu" or (device == "auto" and not has_nvidia_driver()):
        return "cpu"
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise UsageError(f"--device {device}: CUDA is not available on this machine")
        index = device.partition(":")[2]
        if index and (not index.isdigit() or int(index) >= torch.cuda.device_count()):
            raise UsageError(f"--device {device}: only {torch.cuda.device_count()} CUDA device(s)")
        return device
    raise UsageError(f"--device {device!r}: expected auto, cpu, cuda or cuda:<index>")


@contextlib.contextmanager
def model_threads(model: Model) -> Iterator[None]:
    """Pin torch's CPU threads while the harness calls `model` (fit, predictions), when the
    model has a `threads` option (0: leave torch's default). Small models lose far more to
    OpenMP threads waiting on each other than they gain (docs/benchmarks.md)."""
    threads = model.config.get("threads") if "threads" in model.options else None
    if not threads:
        yield
        return
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    old = torch.get_num_threads()
    torch.set_num_threads(int(threads))
    try:
        yield
    finally:
        torch.set_num_threads(old)


def has_nvidia_driver() -> bool:
    """Whether the machine has an NVIDIA driver (no torch import, no CUDA initialisation)."""
    return os.path.exists("/proc/driver/nvidia/version") or shutil.which("nvidia-smi") is not None
