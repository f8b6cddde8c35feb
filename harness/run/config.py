"""What one `harness run` of one model is asked to do: the typed run configuration."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..digest import digest
from ..manifest import suite_file_digest
from ..paths import DEFAULT_RUNS
from ..seeding import check_seed

__all__ = ["RunConfig"]


@dataclass(frozen=True)
class RunConfig:
    """One model through one suite, as the command line gave it."""

    #: The model spec, `NAME[:key=value,...]`.
    model: str
    #: A registered suite, `toy`, or a suite file.
    suite: str
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

    def digest(self, model_spec: str, suite_sha256: str | None = None) -> str:
        """Identity of a run for --resume; batch size and device are excluded on purpose
        (results must not depend on them). `suite_sha256`: the suite file's hash from the
        bytes the run parsed (`Suite.file_sha256`); None reads the file."""
        sha = suite_file_digest(self.suite) if suite_sha256 is None else suite_sha256
        return digest({"model": model_spec, "suite": self.suite, "suite_file": sha,
                       "data_dir": str(self.data_dir or ""), "split": self.split, "limit": self.limit,
                       "seed": self.seed}, 16)
