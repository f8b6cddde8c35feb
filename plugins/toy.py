"""Plugin `toy`: the embedded toy VQA world, `toyvqa` (no download; docs/toyvqa.md).

Every paper's toy suite runs on it; `harness run --suite toy` gathers them all.
"""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .datasets.toyvqa import ToyVQA


@hookimpl
def register_datasets(register) -> None:
    """Register `toyvqa`."""
    register(ToyVQA)
