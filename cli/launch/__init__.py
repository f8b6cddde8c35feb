"""How `harness run` launches the engine (`harness.run.execute_run`, one model in one process)
for several models: one after the other, side by side in processes (`parallel`, `--jobs`), or
sharded over torchrun ranks (`distributed`); `models` chooses and prints a summary per model."""

from __future__ import annotations

from .models import run_models

__all__ = ["run_models"]
