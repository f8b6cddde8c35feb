"""Base classes a plugin subclasses: datasets, models, probes, suites (DESIGN.md §3).

A plugin registers *classes* (datasets, models, probes) or `Suite` records through the
`register_*` hooks of `harness.hookspecs`. The core instantiates them with the user's
options, so option checking and error messages are uniform.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Sequence

from .errors import UsageError
from .types import CAPABILITIES, Answer, Example

if TYPE_CHECKING:  # pragma: no cover
    import datasets

    from .probe_context import ProbeContext
    from .types import ResultRow

__all__ = ["Option", "Configurable", "DatasetPlugin", "FeatureExtractor", "Model", "Probe", "Table", "Task", "Suite"]


@dataclass(frozen=True)
class Option:
    """A user-settable option of a plugin (`--model name:key=value`)."""

    default: Any
    help: str = ""
    #: Accepted values, when the option is a choice.
    choices: tuple[Any, ...] | None = None

    def parse(self, owner: str, key: str, raw: Any) -> Any:
        """Convert a command-line string to the default's type; one-line error if it fails."""
        value = raw
        if isinstance(raw, str) and self.default is not None and not isinstance(self.default, str):
            kind = type(self.default)
            try:
                if kind is bool:
                    if raw.lower() not in ("1", "0", "true", "false", "yes", "no"):
                        raise ValueError(raw)
                    value = raw.lower() in ("1", "true", "yes")
                else:
                    value = kind(raw)
            except ValueError:
                raise UsageError(
                    f"{owner}: option {key}={raw!r} is not a valid {kind.__name__}"
                ) from None
        if self.choices is not None and value not in self.choices:
            raise UsageError(
                f"{owner}: option {key}={value!r} must be one of {', '.join(map(str, self.choices))}"
            )
        return value


class Configurable:
    """Shared option handling: class-level `options`, validated `self.config`."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: "dataset", "model" or "probe" (for messages).
    kind: ClassVar[str] = "plugin"
    options: ClassVar[Mapping[str, Option]] = {}

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            accepted = ", ".join(sorted(self.options)) or "none"
            raise UsageError(
                f"{self.kind} {self.name!r} does not accept option(s) {', '.join(unknown)}; "
                f"accepted: {accepted}"
            )
        config = {k: opt.default for k, opt in self.options.items()}
        for key, raw in options.items():
            config[key] = self.options[key].parse(f"{self.kind} {self.name!r}", key, raw)
        self.config: dict[str, Any] = config



# ---------------------------------------------------------------------------- datasets


class DatasetPlugin(Configurable):
    """A dataset: knows its splits and its files, and loads a split as Examples.

    `load` returns a `datasets.Dataset` whose rows follow `harness.types.Example.to_row`.
    `data_dir` is the user's `--data-dir` (None for embedded data).
    """

    kind = "dataset"
    splits: ClassVar[tuple[str, ...]] = ("train", "val")
    #: Splits with ground truth; others (e.g. test-dev) only export predictions.
    labelled_splits: ClassVar[tuple[str, ...] | None] = None

    def __init__(self, data_dir: Path | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.data_dir = Path(data_dir) if data_dir else None

    def load(self, split: str) -> "datasets.Dataset":  # pragma: no cover - abstract
        raise NotImplementedError

    def expected_files(self, split: str) -> list[Path]:
        """Files `load(split)` needs; listed when some are missing."""
        return []

    def is_labelled(self, split: str) -> bool:
        return self.labelled_splits is None or split in self.labelled_splits

    def fingerprint(self, split: str) -> str:
        """Changes whenever the loaded examples could change (default: name and config)."""
        return _digest({"dataset": self.name, "split": split, "config": self.config})


# -------------------------------------------------------------------- feature extractors


class FeatureExtractor(Configurable):
    """Turns images or texts into fixed-width vectors for feature-based models (the MLP probes).

    `modality` is "image" or "text". An image extractor's `encode` gets Examples (`image`
    path, `image_id`) and should return the zero vector for a blanked image
    (`harness.types.BLANK_IMAGE`); a text extractor's gets strings. `encode` returns a
    float32 array [N, D] (D fixed per instance). `check` raises `DataError` (count and
    examples) for inputs it cannot encode, before a model trains. Override
    `fingerprint_extra` when outputs depend on more than the options (e.g. a file's hash).
    """

    kind = "feature extractor"
    modality: ClassVar[str] = "image"
    #: True when `encode` opens `example.image` files (the run then checks they exist first).
    reads_image_files: ClassVar[bool] = True

    def encode(self, items: Sequence[Any]) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def check(self, items: Sequence[Any]) -> None:
        """DataError for items `encode` cannot handle (default: none)."""

    def fingerprint_extra(self) -> Any:
        return None

    def fingerprint(self) -> str:
        """Changes whenever the vectors could change."""
        return _digest({"features": self.name, "config": self.config, "extra": self.fingerprint_extra()})


# ------------------------------------------------------------------------------ models


class Model(Configurable):
    """A model implements any subset of `answer`, `score_choices`, `explain` and `fit`.

    The runner calls the capability methods with batches of Examples, under
    `torch.inference_mode`, after `setup(device)`. Override `fingerprint_extra` (or
    `fingerprint`) so the fingerprint changes whenever outputs could change.
    """

    kind = "model"
    #: True when the model decodes `example.image`; the run checks image files first.
    uses_images: ClassVar[bool] = False
    #: What the model was trained on, for tables that group by training data
    #: (e.g. Goyal Table 1: "unbalanced" or "balanced"); trainable models set it from `fit`.
    trained_on: str = ""
    #: The run's PluginHost (set by harness.run before fit and predictions), for models that
    #: resolve other plugins, e.g. feature extractors; None outside a run (the process host).
    plugin_host: Any = None

    def setup(self, device: str) -> None:
        """Move weights to `device` ("cpu", "cuda", "cuda:1"); called once before predicting."""
        self.device = device

    # Capabilities: a subclass overrides the ones it has.
    def answer(self, batch: Sequence[Example]) -> Sequence[Answer | str]:
        raise NotImplementedError

    def score_choices(self, batch: Sequence[Example]) -> Sequence[Sequence[float]]:
        raise NotImplementedError

    def explain(self, batch: Sequence[Example], answers: Sequence[str]) -> Sequence[str]:
        raise NotImplementedError

    def fit(self, train: Sequence[Example], *, seed: int) -> None:
        raise NotImplementedError

    # Introspection.
    @classmethod
    def capabilities(cls) -> frozenset[str]:
        """The capabilities this class overrides (`fit` included when trainable)."""
        found = {c for c in (*CAPABILITIES, "fit") if getattr(cls, c) is not getattr(Model, c)}
        return frozenset(found)

    @property
    def trainable(self) -> bool:
        return "fit" in self.capabilities()

    def report_notes(self) -> str:
        """Markdown the run report shows at the end (e.g. candidates outside the label space)."""
        return ""

    def fingerprint_extra(self) -> Any:
        """Extra state folded into the fingerprint (trained weights' hash, model revision)."""
        return None

    def fingerprint(self) -> str:
        """Changes whenever the model's outputs could change."""
        return _digest(
            {
                "model": self.name,
                "class": f"{type(self).__module__}.{type(self).__qualname__}",
                "config": self.config,
                "extra": self.fingerprint_extra(),
            }
        )

    def input_key(self, example: Example, capability: str, extra: str = "") -> str:
        """Hash of exactly what the model sees for one call (the prediction-cache key)."""
        seen = {
            "capability": capability,
            "question": example.question,
            "image": example.image,
            "image_id": example.image_id,
            "choices": list(example.choices) if capability == "score_choices" else [],
            "extra": extra,
        }
        return _digest(seen)


# ------------------------------------------------------------------------------ probes


class Probe(Configurable):
    """Builds dataset variants, asks the runner for predictions, returns result rows.

    `requires` lists capabilities that the model needs for this probe (any one of
    `requires_any` suffices); model-free probes (dataset audits) leave both empty.
    """

    kind = "probe"
    requires: ClassVar[tuple[str, ...]] = ()
    requires_any: ClassVar[tuple[str, ...]] = ()

    def run(self, ctx: "ProbeContext") -> list["ResultRow"]:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def tables(cls, rows: Sequence["ResultRow"]) -> "list[Table] | None":
        """Paper-style leaderboard tables for this probe's rows (from all runs), or None
        for the generic layout (rows = model and training data, columns = data/metric)."""
        return None


@dataclass(frozen=True)
class Table:
    """A rendered leaderboard table: title, header, body cells (already formatted)."""

    title: str
    headers: tuple[str, ...]
    body: tuple[tuple[str, ...], ...]
    note: str = ""


# ------------------------------------------------------------------------------ suites


@dataclass(frozen=True)
class Task:
    """One (dataset, split, probes) entry of a suite.

    `dataset` may carry options ("toyvqa:variant=balanced"); `train` names the dataset
    and split a trainable model is fitted on ("toyvqa:variant=unbalanced", "train");
    `label` names the task in tables (e.g. the test condition of Goyal Table 1).
    """

    dataset: str
    split: str
    probes: tuple[str, ...]
    train: tuple[str, str] | None = None
    label: str = ""
    probe_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Suite:
    """A named list of tasks. Suites come from plugins too."""

    name: str
    description: str
    tasks: tuple[Task, ...]


def _digest(obj: Any) -> str:
    blob = json.dumps(obj, sort_keys=True, default=str, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()[:32]
