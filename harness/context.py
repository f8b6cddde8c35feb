"""What a probe may use while it runs (`ProbeContext`), and the feature extractors it hands
out: the part of the plugin contract (harness.api, which re-exports all three) that the run
implements (harness/run/context.py). docs/architecture.md, "Contracts"."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping, Protocol, Sequence

from .digest import digest
from .options import Configurable
from .types import Example, Prediction, ResultRow

__all__ = ["FeatureExtractor", "FeatureResolver", "ProbeContext"]


class FeatureExtractor(Configurable):
    """Turns images or texts into fixed-width vectors for feature-based models (the MLP probes).
    `modality` is "image" or "text". An image extractor's `encode` gets Examples (`image`
    path, `image_id`) and should return the zero vector for a blanked image
    (`harness.types.BLANK_IMAGE`); a text extractor's gets strings. `encode` returns a
    float32 array [N, D] (D fixed per instance). `check` raises `DataError` (count and
    examples) for inputs it cannot encode, before a model trains. Override
    `fingerprint_extra` when outputs depend on more than the options (e.g. a file's hash)."""

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
        return digest({"features": self.name, "config": self.fingerprint_config(), "extra": self.fingerprint_extra()})


class FeatureResolver(Protocol):
    """Resolves a feature-extractor spec (`NAME[:key=value]` or a .npz/.npy path) to an
    instance encoding `modality` ("image" or "text"); errors name `owner`."""

    def __call__(self, spec: str, modality: str, *, owner: str) -> FeatureExtractor: ...


class ProbeContext(Protocol):
    """Everything a probe may use while it runs one task (the harness implements it): attributes
    describe the task; methods get predictions and write output. Probes should not reach for
    anything else, so the runner, caching and data loading can change freely."""

    run_id: str
    suite: str
    model_spec: str
    probe: str
    dataset: str
    split: str
    #: The suite task's label (e.g. Goyal's "UB"), "" when it has none.
    label: str
    #: What the model was trained on ("toyvqa:variant=unbalanced/train"), "" if untrained.
    train: str
    examples: list[Example]
    labelled: bool
    seed: int
    options: Mapping[str, Any]
    #: torch device of the run ("cpu", "cuda", "cuda:1"), for probes that compute on it.
    device: str
    #: The model's `inputs` (None: all of them, or no model).
    model_inputs: frozenset[str] | None

    def train_examples(self) -> "tuple[list[Example], str] | None":
        """The task's training data (`Task.train_source`) and its label; None when it has none
        or its files are not on disk (a model the harness does not train needs none)."""

    def examples_of(self, dataset: str, split: str) -> list[Example]:
        """Examples of another dataset spec / split (loaded once per run)."""

    def dataset_summary(self) -> Mapping[str, Any]:
        """The task dataset's `DatasetPlugin.summary` for this split."""

    def ablate(self, examples: Sequence[Example], remove: "str | Sequence[str]") -> list[Example]:
        """`examples` without an input ("image", "question" or both) and what the dataset
        derived from it (harness.inputs: question type, image id, `derived_meta`)."""

    def has(self, capability: str) -> bool:
        """Whether the model has `capability` ("answer", "score_choices", "explain", "score_images")."""

    def predict(self, examples: Sequence[Example], capability: str, *, variant: str = "",
                answers: Sequence[str] | None = None, show_choices: bool = False) -> list[Prediction]:
        """Model predictions (cached) for `examples`, also saved in the run directory.
        `answers`: the answer per example that `explain` justifies / `score_images` explains."""

    def features(self, spec: str, modality: str) -> FeatureExtractor:
        """A registered feature extractor from its spec."""

    def memo(self, name: str, key: Any, build: Callable[[], Any]) -> Any:
        """A model-independent JSON value (decoy sets, perturbations, reference scores) computed
        once by `build()` and shared by every model and run: keyed by the probe, `name`, `key`, the
        task's data, the probe's code and its `cache_settings` (harness.cache.artifacts)."""

    def row(self, metric: str, value: float, n: int, *, ci: tuple[float, float] | None = None,
            variant: str = "", higher_is_better: bool | None = True, unit: str = "fraction",
            dataset: str | None = None) -> ResultRow:
        """A result row of this run, task and probe (`higher_is_better=None`: no better
        direction, for model-free rows, counts, chance levels and ablated-input accuracies)."""

    def tag(self, name: str, value: str) -> None:
        """Attach a tag to every row of this task and probe (tables group by tags)."""

    def report(self, markdown: str) -> None:
        """Add a markdown section to the run report."""

    def metric_unavailable(self, metric: str, reason: str) -> None:
        """A metric that could not be computed: absent from the rows, reason in the report."""

    def artifact(self, name: str) -> Path:
        """A path inside the run directory for this probe's extra outputs."""

    def use_resource(self, name: str, value: Any) -> None:
        """Record a resource (e.g. the BERTScore model path) in the manifest."""
