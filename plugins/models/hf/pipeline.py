"""Batched inference machinery shared by `hf-vqa` and `hf-vlm`.

- `decode`: images are decoded (and resized to one fixed size, which is what makes a
  classifier's outputs independent of batch composition: no padding, no pixel masks) in a
  thread pool or DataLoader workers; a file that fails to decode becomes a DataError naming
  its path for that example only.
- `stream`: a DataLoader over a list of examples whose workers decode and preprocess, with
  pinned memory on CUDA and optional length bucketing (questions of similar length batched
  together, less padding); outputs come back in input order.
- `Backoff`: runs a forward pass over a prepared batch in chunks; on CUDA out-of-memory it
  halves the chunk and retries, keeps the smaller size, and records the event.
- `to_device` (non-blocking copies from pinned memory) and `autocast` (bf16 on CUDA).
"""

from __future__ import annotations

import contextlib
import gc
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from harness.errors import DataError, ResourceError
from harness.images import load_image
from harness.threads import thread_map
from harness.types import Example

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

__all__ = [
    "decode",
    "Prepared",
    "batch_indices",
    "stream",
    "slice_inputs",
    "to_device",
    "autocast",
    "Backoff",
    "is_oom",
]

log = logging.getLogger(__name__)


def _decode_one(path: str, size: int) -> "Image.Image | DataError":
    try:
        return load_image(path, (size, size) if size else None)
    except DataError as exc:
        return exc


def decode(examples: Sequence[Example], size: int, threads: int = 0) -> list["Image.Image | DataError"]:
    """Decode each example's image as RGB size x size; a failure is returned, not raised."""
    paths = [ex.image for ex in examples]
    # PIL releases the GIL while decoding, so threads overlap well with little overhead
    # (`thread_map`: a Ctrl-C during a batch's decoding cannot wedge the pool).
    return thread_map(lambda p: _decode_one(p, size), paths, threads=threads)


@dataclass
class Prepared:
    """A preprocessed batch: model inputs for the examples that decoded, errors for the rest.

    `rows[i]` is the position (in the batch) of the i-th row of `inputs`.
    """

    rows: list[int]
    inputs: dict[str, Any]
    errors: dict[int, DataError] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def raise_first_error(self) -> None:
        """For the runner path: one bad image fails the batch; the runner then isolates it."""
        if self.errors:
            raise next(iter(self.errors.values()))

    def pin_memory(self) -> "Prepared":
        """Called by DataLoader(pin_memory=True) in its pinning thread."""
        self.inputs = {k: v.pin_memory() if hasattr(v, "pin_memory") else v for k, v in self.inputs.items()}
        return self


def batch_indices(examples: Sequence[Example], batch_size: int, bucket: bool = False) -> list[list[int]]:
    """Index batches in input order, or sorted by question length when `bucket` is set.

    Bucketing only changes which examples share a batch; a batch-invariant model gives the
    same outputs either way (tested), with less padding.
    """
    order = list(range(len(examples)))
    if bucket:
        order.sort(key=lambda i: (len(examples[i].question), i))
    return [order[s : s + batch_size] for s in range(0, len(order), batch_size)]


class _Items:
    """Map-style dataset of examples for the DataLoader (plain class: picklable, torch-free)."""

    def __init__(self, examples: Sequence[Example]) -> None:
        self.examples = list(examples)

    def __len__(self) -> int:
        return len(self.examples)

    def __getitem__(self, i: int) -> tuple[int, Example]:
        return i, self.examples[i]


def stream(
    examples: Sequence[Example],
    prepare: Callable[[Sequence[Example]], Prepared],
    *,
    batch_size: int,
    device: str = "cpu",
    num_workers: int = 0,
    bucket: bool = False,
) -> Iterator[tuple[list[int], Prepared]]:
    """Yield (indices into `examples`, prepared batch) with decoding in DataLoader workers."""
    from torch.utils.data import DataLoader  # heavy: torch, imported where it is used

    def collate(items: list[tuple[int, Example]]) -> tuple[list[int], Prepared]:
        return [i for i, _ in items], prepare([ex for _, ex in items])

    loader = DataLoader(
        _Items(examples),
        batch_sampler=batch_indices(examples, batch_size, bucket),
        collate_fn=collate,
        num_workers=num_workers,
        pin_memory=device.startswith("cuda"),
        prefetch_factor=4 if num_workers > 0 else None,
    )
    yield from loader


def slice_inputs(inputs: dict[str, Any], start: int, stop: int) -> dict[str, Any]:
    """Rows start:stop of every batched tensor (all inputs are batch-first)."""
    return {k: v[start:stop] if hasattr(v, "shape") and v.ndim > 0 else v for k, v in inputs.items()}


def to_device(inputs: dict[str, Any], device: str) -> dict[str, Any]:
    """Move tensors to `device`; non-blocking from pinned memory on CUDA."""
    if device == "cpu":
        return inputs
    return {k: v.to(device, non_blocking=True) if hasattr(v, "to") else v for k, v in inputs.items()}


def autocast(device: str, enabled: bool) -> contextlib.AbstractContextManager:
    """bf16 autocast on CUDA when enabled (and supported); a no-op elsewhere."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    if enabled and device.startswith("cuda") and torch.cuda.is_bf16_supported():
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def is_oom(exc: BaseException) -> bool:
    """True for CUDA out-of-memory (the typed error, or the message older builds raise)."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(exc, oom_type):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


@dataclass
class Backoff:
    """Runs `fn(start, stop)` over rows in chunks, halving the chunk on CUDA OOM.

    The reduced size sticks (later batches start there); `events` records each halving as
    (old size, new size) so the run can report it.
    """

    limit: int | None = None
    events: list[tuple[int, int]] = field(default_factory=list)

    def run(self, n: int, fn: Callable[[int, int], list[Any]]) -> list[Any]:
        """Concatenated outputs of `fn` over rows 0..n in chunks of at most `limit`."""
        out: list[Any] = []
        start = 0
        while start < n:
            size = min(self.limit or n, n - start)
            try:
                out.extend(fn(start, start + size))
            except Exception as exc:
                if not is_oom(exc):
                    raise
                _free_cuda()
                if size == 1:
                    raise ResourceError(
                        "CUDA out of memory with a batch of 1; use a smaller dtype (dtype=bfloat16), "
                        "smaller image_size, or a bigger GPU"
                    ) from None
                new = max(1, size // 2)
                self.events.append((size, new))
                log.warning("CUDA out of memory on a batch of %d; retrying with %d", size, new)
                self.limit = new
                continue
            start += size
        return out


def _free_cuda() -> None:
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
