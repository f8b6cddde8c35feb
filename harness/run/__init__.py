"""`harness run`: one model through one suite, as a pipeline (`execute`: plan, open, tasks,
write; docs/architecture.md, "What `harness run` does"). How the command line launches
several models and turns signals into stop requests is `vqa_harness_cli.launch`."""

from __future__ import annotations

from .config import RunConfig
from .execute import execute_run
from .tasks import ProbeFailure, RunOutcome

__all__ = ["RunConfig", "RunOutcome", "ProbeFailure", "execute_run"]
