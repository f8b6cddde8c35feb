"""What one `harness run` of one model is asked to do: the typed run configuration."""

from __future__ import annotations

import operator
import os
from dataclasses import dataclass
from pathlib import Path

from ..digest import digest
from ..errors import UsageError
from ..paths import DEFAULT_RUNS
from ..seeding import check_seed
from ..suites import task_data
from ..types import Suite

__all__ = ["RunConfig"]


@dataclass(frozen=True)
class RunConfig:
    """One model through one suite, as the command line gave it."""

    model: str  #: the model spec, `NAME[:key=value,...]`
    #: A registered suite's name, `toy`, or a `Suite` (vqa_harness_cli.suitefiles reads files).
    suite: str | Suite
    data_dir: Path | None = None
    split: str | None = None  #: evaluate every task on this split instead of the suite's
    limit: int | None = None  #: the first N examples of each split
    batch_size: int = 32
    device: str = "auto"  #: `auto`, `cpu`, `cuda` or `cuda:<index>`
    seed: int = 0
    out: Path = DEFAULT_RUNS  #: the folder that holds run folders
    resume: bool = False  #: continue the newest incomplete run with the same configuration
    #: A prediction cache file of the run's own (default: the harness cache's); probe outputs
    #: computed with it are kept beside it (`PredictionCache.outputs_root`).
    cache_path: Path | None = None
    reuse_outputs: bool = True  #: restore probe outputs whose key matches (harness.cache.outputs)
    progress: bool = True
    argv: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_seed(self.seed)
        # a leading `~` is the home folder, as the folder checks and `harness.specs.Place` read it
        # (out="~/runs" was checked as the home folder's and written into a folder named '~')
        for name in ("data_dir", "out", "cache_path"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, Path(getattr(self, name)).expanduser())
        # a program's wrong type is one line here, not an AttributeError deep inside the run
        for name, kinds, what in (("model", str, "a model spec (text)"),
                                  ("suite", (str, Suite), "a suite name or a Suite"),
                                  ("device", str, "a device name (text)"),
                                  ("split", (str, type(None)), "a split name or None")):
            if not isinstance(getattr(self, name), kinds):
                raise UsageError(f"{name} {getattr(self, name)!r}: expected {what}")
        # as `--limit` and `--batch-size` take them: limit=-1 sliced off the last example, 0 scored
        # none; batch_size=2.5 failed every example; a numpy integer is a whole number
        for name in ("limit", "batch_size"):
            value = getattr(self, name)
            if value is None and name == "limit":
                continue
            number = None if isinstance(value, bool) or not hasattr(value, "__index__") else operator.index(value)
            if number is None or number < 1:
                end = ", or None for every example" if name == "limit" else ""
                raise UsageError(f"{name} {value!r} must be an integer of at least 1{end}")
            object.__setattr__(self, name, number)

    @property
    def suite_name(self) -> str:
        return self.suite.name if isinstance(self.suite, Suite) else self.suite

    def digest(self, model_spec: str, suite: Suite) -> str:
        """Identity of a run for --resume, from the resolved `suite` (its tasks, and the hash of
        the suite file's bytes: an edited file is another run) and `data_dir` made absolute;
        batch size and device are excluded on purpose (results must not depend on them)."""
        data_dir = os.path.abspath(self.data_dir) if self.data_dir else ""
        return digest({"model": model_spec, "suite": suite.name, "suite_file": suite.file_sha256,
                       "tasks": [task_data(t) for t in suite.tasks], "data_dir": data_dir,
                       "split": self.split, "limit": self.limit, "seed": self.seed}, 16)
