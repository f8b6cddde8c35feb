"""Records shared by every part: examples, predictions, result rows, suites and their tasks
(docs/architecture.md)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Mapping, Sequence

from .project import SCHEMA_VERSION

__all__ = ["Example", "Answer", "Prediction", "ResultRow", "EXAMPLE_COLUMNS", "BLANK_IMAGE",
           "CAPABILITIES", "CANDIDATE_IMAGES", "UNITS", "Task", "Suite"]

#: Sentinel image path: a constant mid-gray image (modality ablations blank the image with it).
BLANK_IMAGE = "blank://gray"
#: What a model can do; the runner checks before running a probe.
CAPABILITIES = ("answer", "score_choices", "explain", "score_images")
#: `Example.meta` key of the candidate images a `score_images` call ranks: a list of
#: [image_id, image path] pairs (Goyal et al. 2017 §5: the K nearest neighbours of the
#: example's image, the complementary image among them).
CANDIDATE_IMAGES = "candidate_images"
#: Units a result value can have. Proportions are fractions in [0, 1] everywhere in the
#: run store; the leaderboard displays them as percentages.
UNITS = ("fraction", "bits", "score", "count", "correlation")


@dataclass(frozen=True)
class Example:
    """One row of a dataset (a `datasets.Dataset` holds many, with these columns). `answers`
    are the human answers (10 for VQA); `label` is the classification target (entailment
    label) or the multiple-choice target text; `choices` are multiple-choice candidates;
    `pair_id` is the id of the complementary question (balanced VQA); `meta` holds
    dataset-specific extras (stored as a JSON string in Arrow)."""

    id: str
    question: str
    image_id: str = ""
    image: str = ""
    answers: tuple[str, ...] = ()
    answer_type: str = ""
    question_type: str = ""
    choices: tuple[str, ...] = ()
    label: str = ""
    explanations: tuple[str, ...] = ()
    pair_id: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)

    def to_row(self) -> dict[str, Any]:
        """The Arrow row: lists for sequences, `meta` as canonical JSON."""
        row = {f.name: getattr(self, f.name) for f in fields(self)}
        for key in ("answers", "choices", "explanations"):
            row[key] = list(row[key])
        row["meta"] = json.dumps(dict(self.meta), sort_keys=True, ensure_ascii=False)
        return row

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "Example":
        """Inverse of `to_row`; tolerant of missing optional columns."""
        meta = row.get("meta") or {}
        if isinstance(meta, str):
            meta = json.loads(meta) if meta else {}
        ident = str(row["id"])  # first: no id is a KeyError (a damaged cache entry: artifacts)
        text = {k: row.get(k) or "" for k in ("question", "image", "answer_type", "question_type")}
        lists = {k: tuple(row.get(k) or ()) for k in ("answers", "choices", "explanations")}
        return cls(id=ident, image_id=str(row.get("image_id") or ""), meta=meta,
                   label=row.get("label") or "", pair_id=str(row.get("pair_id") or ""),
                   **text, **lists)

    def with_(self, **changes: Any) -> "Example":
        """A copy with some fields changed (probes build variants this way). Hot path (probes
        make hundreds of thousands of variants): the copy skips `dataclasses.replace`'s
        re-validation, so only field names are checked here."""
        unknown = changes.keys() - _EXAMPLE_FIELDS
        if unknown:
            raise TypeError(f"Example has no field(s) {', '.join(sorted(unknown))}")
        new = object.__new__(Example)
        new.__dict__.update(self.__dict__, **changes)
        return new


EXAMPLE_COLUMNS = tuple(f.name for f in fields(Example))
_EXAMPLE_FIELDS = frozenset(EXAMPLE_COLUMNS)


@dataclass(frozen=True)
class Answer:
    """What a model's `answer` capability returns for one example. `scores` optionally maps
    candidate answers to scores (probabilities or logits, higher is better); probes that rank
    by answer confidence use it."""

    text: str
    scores: Mapping[str, float] | None = None


@dataclass(frozen=True)
class Prediction:
    """One cached model output for one example and one capability."""

    example_id: str
    capability: str
    answer: str | None = None
    answer_scores: Mapping[str, float] | None = None
    #: One score per candidate: `example.choices` (score_choices) or the candidate images
    #: in `example.meta[CANDIDATE_IMAGES]` (score_images).
    choice_scores: tuple[float, ...] | None = None
    explanation: str | None = None
    #: "plugin <name>: <message>" when the model raised on this example.
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> dict[str, Any]:  # not asdict: its deep copy dominated writing predictions
        out: dict[str, Any] = {"example_id": self.example_id, "capability": self.capability}
        if self.answer is not None:
            out["answer"] = self.answer
        if self.answer_scores is not None:
            out["answer_scores"] = dict(self.answer_scores)
        if self.choice_scores is not None:
            out["choice_scores"] = list(self.choice_scores)
        if self.explanation is not None:
            out["explanation"] = self.explanation
        if self.error is not None:
            out["error"] = self.error
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Prediction":
        cs = data.get("choice_scores")
        return cls(example_id=data["example_id"], capability=data["capability"],
                   answer=data.get("answer"), answer_scores=data.get("answer_scores"),
                   choice_scores=tuple(cs) if cs is not None else None,
                   explanation=data.get("explanation"), error=data.get("error"))


@dataclass(frozen=True)
class ResultRow:
    """The one standard result schema; the leaderboard reads nothing else. `value`, `ci_low`,
    `ci_high` are on the metric's natural scale given by `unit`; proportions (accuracies,
    rates, recall) are fractions in [0, 1], never percentages. `n` is the number of items the
    value averages over. A metric that cannot be computed is absent (with a reason in the run
    report), never zero."""

    run_id: str
    model: str
    suite: str
    dataset: str
    split: str
    probe: str
    variant: str
    metric: str
    value: float
    n: int
    ci_low: float | None = None
    ci_high: float | None = None
    #: True: higher is better; False: lower is better; None: no better direction (model-free
    #: rows, counts, chance levels, accuracies under an ablated input: docs/leaderboard.md).
    higher_is_better: bool | None = True
    #: One of UNITS; "fraction" values lie in [0, 1].
    unit: str = "fraction"
    #: What a trainable model was fitted on ("toyvqa:variant=unbalanced/train"), or the
    #: training data a pretrained model declares; "" when not applicable.
    train: str = ""
    schema_version: int = SCHEMA_VERSION

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ResultRow":
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def as_answer(value: Any) -> Answer:
    """Accept a plain string or an `Answer` from a model's `answer` capability."""
    if isinstance(value, Answer):
        if not isinstance(value.text, str):  # str(None) would be scored as the answer "None"
            raise TypeError(f"answer text must be a str, got {type(value.text).__name__}")
        return value
    if isinstance(value, str):
        return Answer(value)
    if isinstance(value, Sequence) and len(value) == 2 and isinstance(value[0], str):
        return Answer(value[0], dict(value[1]) if value[1] is not None else None)
    raise TypeError(f"answer must be a str or harness.types.Answer, got {type(value).__name__}")


@dataclass(frozen=True)
class Task:
    """One (dataset, split, probes) entry of a suite. `dataset` may carry options
    ("toyvqa:variant=balanced"); `train` names the dataset and split a trainable model is
    fitted on ("toyvqa:variant=unbalanced", "train"); `label` names the task in tables (e.g.
    the test condition of Goyal Table 1)."""

    dataset: str
    split: str
    probes: tuple[str, ...]
    train: tuple[str, str] | None = None
    label: str = ""
    probe_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """The task as reports and messages name it: `dataset/split [label]`."""
        return f"{self.dataset}/{self.split}" + (f" [{self.label}]" if self.label else "")

    def train_source(self, splits: Sequence[str]) -> tuple[str, str] | None:
        """The one rule for a task's training data, given its dataset's splits: the task's
        `train` source, else the dataset's `train` split when the task evaluates another
        split of it, else None."""
        if self.train is not None:
            return self.train
        return (self.dataset, "train") if "train" in splits and self.split != "train" else None


@dataclass(frozen=True)
class Suite:
    """A named list of tasks, from a plugin, a suite file or a program. `toy` marks a suite
    that runs on the embedded toy data only: its tasks join the `toy` suite, the offline demo
    that runs every probe."""

    name: str
    description: str
    tasks: tuple[Task, ...]
    toy: bool = False
    #: Run the tasks whose files are present and skip the others (one line each); fail only
    #: when none is present (e-ViL's independent datasets). False: every file is required.
    partial: bool = False
    #: SHA-256 of the suite file's bytes this suite was parsed from ("" for a registered
    #: suite): the run's identity and manifest use it, never a second read of the file.
    file_sha256: str = field(default="", compare=False)
    #: The suite file's absolute path ("" for a registered suite), for the manifest.
    file: str = field(default="", compare=False)
