"""`harness run`: one model through one suite, as a pipeline (docs/architecture.md).

- `config`: the typed run configuration;
- `plan`: resolve every name and check the data before anything is computed (the data
  themselves are `harness.data`: the session that loads them lazily, the checks);
- `execute`: the pipeline, top to bottom, and the run folder's summary files;
- `tasks`: per task, fit the model and run each probe inside a containment boundary;
- `context`: what a probe sees of the run (`harness.api.ProbeContext`);
- `predictor`: batches examples through a model capability, with the prediction cache;
- `stops`: a stop request (a signal the command line received) recorded and raised as
  `harness.errors.Stopped` where the run can record it; the engine installs no handler.

How the command line launches several models (in processes, over torchrun ranks) and
turns SIGINT and SIGTERM into stop requests is `vqa_harness_cli.launch`, above the engine.
"""

from __future__ import annotations

from .config import RunConfig
from .execute import execute_run
from .tasks import ProbeFailure, RunOutcome

__all__ = ["RunConfig", "RunOutcome", "ProbeFailure", "execute_run"]
