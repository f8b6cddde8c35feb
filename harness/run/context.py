"""`TaskContext`: the harness's `harness.api.ProbeContext` for one task and probe (probes see
only the protocol's attributes and methods)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..api import FeatureExtractor, Model, Task
from ..cache.artifacts import ArtifactStore
from ..data.session import Session, missing_files
from ..digest import source_digest
from ..errors import PluginError, UsageError
from ..features import resolve_features
from ..inputs import model_views, remove_inputs
from ..rundir import ProbeFiles
from ..types import Example, Prediction, ResultRow
from .predictor import Predictor

__all__ = ["TaskContext"]


@dataclass
class TaskContext:
    """Created by the harness for one (task, probe); see `harness.api.ProbeContext`."""

    run_id: str
    suite: str
    model_spec: str
    probe: str
    task: Task
    examples: list[Example]
    labelled: bool
    seed: int
    options: Mapping[str, Any]
    session: Session
    files: ProbeFiles
    model: Model | None = None
    predictor: Predictor | None = None
    train: str = ""
    device: str = "cpu"
    # For `memo`: identity of the task's (limited) data and of the probe's code, and the
    # probe's `cache_settings` (asked when `memo` is first used, inside the probe's run).
    data_fingerprint: str = ""
    probe_module: str = ""
    probe_settings: Callable[[], Mapping[str, Any]] = dict
    report_sections: list[str] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)
    resources: dict[str, Any] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    # For the probe-output cache: files handed out or written (predictions, artifacts), and
    # other data the probe read ("spec/split" -> fingerprint).
    touched: list[Path] = field(default_factory=list)
    reads: dict[str, str] = field(default_factory=dict)

    @property
    def dataset(self) -> str:
        return self.task.dataset

    @property
    def split(self) -> str:
        return self.task.split

    @property
    def label(self) -> str:
        return self.task.label

    @property
    def model_inputs(self) -> frozenset[str] | None:
        return None if self.model is None else type(self.model).inputs

    def train_examples(self) -> tuple[list[Example], str] | None:
        source = self.task.train_source(self.session.dataset(self.dataset).splits)
        if source is None or missing_files(self.session, *source):  # test files only, say
            return None
        return self.examples_of(*source), f"{source[0]}/{source[1]}"

    def examples_of(self, dataset: str, split: str) -> list[Example]:
        self.reads[f"{dataset}/{split}"] = self.session.fingerprint(dataset, split)
        return self.session.load(dataset, split)

    def dataset_summary(self) -> Mapping[str, Any]:
        return self.session.dataset(self.dataset).summary(self.split)

    def ablate(self, examples: Sequence[Example], remove: str | Sequence[str]) -> list[Example]:
        derived = getattr(self.session.dataset(self.dataset), "derived_meta", None) or {}
        return remove_inputs(examples, remove, derived)

    def memo(self, name: str, key: Any, build: Callable[[], Any]) -> Any:
        """A model-independent JSON value computed once and shared by every model and run:
        keyed by the probe, `name`, `key`, the task's data, split and training data, the
        probe's code and its `cache_settings`. A key that is not JSON is a PluginError: the
        digest would fall back on `str` (a set's order, an object's address), so the value
        would be computed again in every process instead of shared. What `build` read with
        `examples_of` is stored with the value and counts as read whenever it is used, reused
        ones included (a reference row for that dataset stays the probe's: harness.run.rows)."""
        try:
            json.dumps(key, sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise PluginError(f"probe {self.probe!r}: ctx.memo({name!r}, key, ...): the key is not JSON ({exc}); "
                              "give str, numbers, booleans, None, lists and dicts with string keys") from None
        source = self.task.train_source(self.session.dataset(self.dataset).splits)
        train = self.session.fingerprint(*source) if source is not None else ""
        full = {"probe": self.probe, "name": name, "key": key, "data": self.data_fingerprint, "train": train,
                "dataset": self.dataset, "split": self.split, "code": source_digest([self.probe_module])}
        settings = dict(self.probe_settings())
        if settings:  # keys of probes without settings stay as they were
            full["settings"] = settings

        def tracked() -> dict[str, Any]:
            before = set(self.reads)
            value = build()
            return {"value": value, "reads": sorted(set(self.reads) - before)}

        stored = ArtifactStore().json("probe-memo-reads", full, tracked)
        for read in stored["reads"]:
            if read not in self.reads:
                spec, _, split = read.rpartition("/")
                self.reads[read] = self.session.fingerprint(spec, split)
        return stored["value"]

    def predict(self, examples: Sequence[Example], capability: str, *, variant: str = "",
                answers: Sequence[str] | None = None,
                show_choices: bool = False) -> list[Prediction]:
        """Model predictions (cached) for `examples`; also saved in the run directory. The
        model gets `harness.inputs.model_view` of each: its inputs, never the ground truth;
        an open-ended question without its multiple-choice view unless `show_choices` (a
        multiple-choice probe asking for an open answer to match)."""
        if self.predictor is None:
            raise UsageError(f"probe {self.probe!r} needs a model")
        examples = model_views(examples, capability, self.session.dataset(self.dataset), show_choices=show_choices)
        label = f"{self.dataset}/{self.split} {self.probe}{'/' + variant if variant else ''}"
        preds = self.predictor.predict(examples, capability, answers=answers, desc=label)
        path = self.files.write_predictions(variant or capability, (p.to_json() for p in preds))
        self.touched.append(path)
        return preds

    def has(self, capability: str) -> bool:
        return self.model is not None and capability in self.model.capabilities()

    def features(self, spec: str, modality: str) -> FeatureExtractor:
        return resolve_features(spec, modality, owner=f"probe {self.probe!r}", host=self.session.host)

    def row(self, metric: str, value: float, n: int, *, ci: tuple[float, float] | None = None,
            variant: str = "", higher_is_better: bool | None = True, unit: str = "fraction",
            dataset: str | None = None) -> ResultRow:
        """A result row for this run/task/probe."""
        return ResultRow(run_id=self.run_id, model=self.model_spec, suite=self.suite,
                         dataset=dataset or self.dataset, split=self.split, probe=self.probe,
                         variant=variant, metric=metric, value=float(value), n=int(n),
                         ci_low=None if ci is None else float(ci[0]),
                         ci_high=None if ci is None else float(ci[1]),
                         higher_is_better=higher_is_better, unit=unit, train=self.train)

    def tag(self, name: str, value: str) -> None:
        self.tags[str(name)] = str(value)

    def report(self, markdown: str) -> None:
        self.report_sections.append(markdown.rstrip() + "\n")

    def metric_unavailable(self, metric: str, reason: str) -> None:
        self.missing.append((metric, reason))

    def artifact(self, name: str) -> Path:
        path = self.files.artifact(name)
        self.touched.append(path)
        return path

    def use_resource(self, name: str, value: Any) -> None:
        self.resources[name] = value
