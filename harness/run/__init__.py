"""`harness run`: one model through one suite, as a pipeline (docs/architecture.md).

- `config`: the typed run configuration;
- `plan`: resolve every name and check the data before anything is computed (the data
  themselves are `harness.data`: the session that loads them lazily, the checks);
- `execute`: the pipeline, top to bottom, and the run folder's summary files;
- `tasks`: per task, fit the model and run each probe inside a containment boundary;
- `context`: what a probe sees of the run (`harness.api.ProbeContext`);
- `predictor`: batches examples through a model capability, with the prediction cache;
- `signals`: SIGINT and SIGTERM stop a run like Ctrl-C, worker processes included.

How the command line launches several models (in processes, over torchrun ranks) is
`vqa_harness_cli.launch`, above the engine.
"""

from __future__ import annotations

from .config import RunConfig
from .execute import execute_run
from .tasks import ProbeFailure, RunOutcome

__all__ = ["RunConfig", "RunOutcome", "ProbeFailure", "execute_run"]
