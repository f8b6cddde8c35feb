"""What a probe sees: its task's examples, the runner, and ways to write rows and reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from .errors import UsageError
from .runstore import write_jsonl
from .types import Example, Prediction, ResultRow

if TYPE_CHECKING:  # pragma: no cover
    from .api import Model, Task
    from .runner import Runner
    from .runstore import RunDir
    from .session import Session

__all__ = ["ProbeContext"]


@dataclass
class ProbeContext:
    """Created by the harness for one (task, probe); probes use only this object."""

    run_id: str
    suite: str
    model_spec: str
    probe: str
    task: "Task"
    dataset: str
    split: str
    examples: list[Example]
    labelled: bool
    seed: int
    options: dict[str, Any]
    session: "Session"
    rundir: "RunDir"
    model: "Model | None" = None
    runner: "Runner | None" = None
    train: str = ""
    report_sections: list[str] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)
    resources: dict[str, Any] = field(default_factory=dict)

    # ----------------------------------------------------------- predictions
    def predict(
        self,
        examples: Sequence[Example],
        capability: str,
        *,
        variant: str = "",
        answers: Sequence[str] | None = None,
        show_choices: bool = False,
    ) -> list[Prediction]:
        """Model predictions (cached) for `examples`; also saved in the run directory.

        For `answer`, open-ended questions (those with human answers) reach the model
        without their multiple-choice candidates unless `show_choices` (a multiple-choice
        probe asking for an open answer to match): a dataset's MC view (VQA v1's 18
        choices, toyvqa's decoys) must not leak the answer space into an open-ended score.
        Closed-set examples (labels, no human answers: e-SNLI-VE, VCR) keep their choices.
        """
        if self.runner is None:
            raise UsageError(f"probe {self.probe!r} needs a model")
        if capability == "answer" and not show_choices:
            examples = [ex.with_(choices=()) if ex.choices and ex.answers else ex for ex in examples]
        label = f"{self.dataset}/{self.split} {self.probe}{'/' + variant if variant else ''}"
        preds = self.runner.predict(examples, capability, answers=answers, desc=label)
        path = self.rundir.predictions_path(self.dataset, self.split, self.probe, variant or capability)
        write_jsonl(path, (p.to_json() for p in preds))
        return preds

    def has(self, capability: str) -> bool:
        return self.model is not None and capability in self.model.capabilities()

    # ----------------------------------------------------------------- output
    def row(
        self,
        metric: str,
        value: float,
        n: int,
        *,
        ci: tuple[float, float] | None = None,
        variant: str = "",
        higher_is_better: bool = True,
        unit: str = "fraction",
        dataset: str | None = None,
    ) -> ResultRow:
        """A result row for this run/task/probe."""
        return ResultRow(
            run_id=self.run_id,
            model=self.model_spec,
            suite=self.suite,
            dataset=dataset or self.dataset,
            split=self.split,
            probe=self.probe,
            variant=variant,
            metric=metric,
            value=float(value),
            n=int(n),
            ci_low=None if ci is None else float(ci[0]),
            ci_high=None if ci is None else float(ci[1]),
            higher_is_better=higher_is_better,
            unit=unit,
            train=self.train,
        )

    def report(self, markdown: str) -> None:
        """Add a markdown section to the run report."""
        self.report_sections.append(markdown.rstrip() + "\n")

    def metric_unavailable(self, metric: str, reason: str) -> None:
        """A metric that could not be computed: absent from the rows, reason in the report."""
        self.missing.append((metric, reason))

    def artifact(self, name: str) -> Path:
        """A path inside the run directory for this probe's extra outputs."""
        return self.rundir.artifact_path(self.probe, name)

    def use_resource(self, name: str, value: Any) -> None:
        """Record a resource (e.g. the BERTScore model path) in the manifest."""
        self.resources[name] = value

    def load(self, dataset: str, split: str) -> list[Example]:
        """Examples of another dataset/split (e.g. a train split for a retrieval probe)."""
        return self.session.load(dataset, split)
