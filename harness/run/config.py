"""What one `harness run` of one model is asked to do: the typed run configuration."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..digest import digest
from ..paths import DEFAULT_RUNS
from ..seeding import check_seed
from ..suites import task_data
from ..types import Suite

__all__ = ["RunConfig"]


@dataclass(frozen=True)
class RunConfig:
    """One model through one suite, as the command line gave it."""

    #: The model spec, `NAME[:key=value,...]`.
    model: str
    #: A registered suite's name, `toy`, or a `Suite` (the command line reads suite files
    #: into one: vqa_harness_cli.suitefiles).
    suite: str | Suite
    data_dir: Path | None = None
    #: Evaluate every task on this split instead of the suite's.
    split: str | None = None
    #: The first N examples of each split.
    limit: int | None = None
    batch_size: int = 32
    #: `auto`, `cpu`, `cuda` or `cuda:<index>`.
    device: str = "auto"
    seed: int = 0
    #: The folder that holds run folders.
    out: Path = DEFAULT_RUNS
    #: Continue the newest incomplete run with the same configuration.
    resume: bool = False
    #: A prediction cache file of the run's own (default: the harness cache's); the probe
    #: outputs computed with it are kept beside it (`PredictionCache.outputs_root`).
    cache_path: Path | None = None
    #: Restore probe outputs from the cache when their key matches (harness.cache.outputs).
    reuse_outputs: bool = True
    progress: bool = True
    argv: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_seed(self.seed)

    @property
    def suite_name(self) -> str:
        return self.suite.name if isinstance(self.suite, Suite) else self.suite

    def digest(self, model_spec: str, suite: Suite) -> str:
        """Identity of a run for --resume, from the resolved `suite` (its tasks, and the hash of
        the suite file's bytes the run parsed: an edited file is another run); batch size and
        device are excluded on purpose (results must not depend on them)."""
        tasks = [task_data(t) for t in suite.tasks]
        return digest({"model": model_spec, "suite": suite.name, "suite_file": suite.file_sha256, "tasks": tasks,
                       # Absolute: `--data-dir data` from the project and its full path from elsewhere are one run.
                       "data_dir": os.path.abspath(self.data_dir) if self.data_dir else "", "split": self.split,
                       "limit": self.limit,
                       "seed": self.seed}, 16)
