"""`harness run`: one model through one suite, as a pipeline (docs/architecture.md).

- `config`: the typed run configuration;
- `plan`: resolve every name and check the data before anything is computed (the data
  themselves are `harness.data`: the session that loads them lazily, the checks);
- `execute`: the pipeline, top to bottom, and the run folder's summary files;
- `tasks`: per task, fit the model and run each probe inside a containment boundary;
- `context`: what a probe sees of the run (`harness.api.ProbeContext`);
- `predictor`: batches examples through a model capability, with the prediction cache;
- `models`: several models of one command (`parallel`: side by side in processes;
  `distributed`: sharded over torchrun ranks);
- `signals`: SIGINT and SIGTERM stop a run like Ctrl-C, worker processes included.
"""

from __future__ import annotations

from .config import RunConfig
from .execute import execute_run
from .models import run_models
from .tasks import ProbeFailure, RunOutcome

__all__ = ["RunConfig", "RunOutcome", "ProbeFailure", "execute_run", "run_models"]
