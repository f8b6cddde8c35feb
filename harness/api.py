"""The plugin contract: the classes a plugin subclasses and registers through the `register_*`
hooks of `harness.hookspecs`, and `ProbeContext`, all a probe sees of the run
(docs/architecture.md, "Contracts")."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Sequence

from .context import FeatureExtractor, FeatureResolver, ProbeContext
from .cache.contents import file_content
from .digest import digest, file_stamps
from .display import ChartSpec, Degenerate, Display, Evidence
from .inputs import ANSWER_FACTORS
from .layouts import Layout
from .options import Configurable, Option
from .types import BLANK_IMAGE, CANDIDATE_IMAGES, CAPABILITIES, Answer, Example, ResultRow, Suite, Task

if TYPE_CHECKING:  # pragma: no cover
    import datasets

__all__ = ["ANSWER_FACTORS", "Option", "Configurable", "DatasetPlugin", "FeatureExtractor", "FeatureResolver",
           "Model", "Probe", "ProbeContext", "Layout", "Display", "Evidence", "ChartSpec", "Degenerate", "Publisher",
           "Task", "Suite"]


class DatasetPlugin(Configurable):
    """A dataset: `load(split)` returns a list of `harness.types.Example` or a `datasets.Dataset`
    whose rows follow `Example.to_row`; `data_dir` is the user's `--data-dir` (None for embedded
    data). A `load(split, limit=None)` that accepts `limit` gets `--limit` N: it returns the
    split's first N examples, doing heavy per-example work (decoy generation) for those only and
    giving each what a full load gives it (the session slices the result to N anyway)."""

    kind = "dataset"
    splits: ClassVar[tuple[str, ...]] = ("train", "val")
    #: Splits with ground truth; others (e.g. test-dev) only export predictions.
    labelled_splits: ClassVar[tuple[str, ...] | None] = None
    #: Where the data is officially released (name and page, as text; nothing is ever
    #: downloaded): `harness data status` prints it. "" when the plugin does not say.
    release: ClassVar[str] = ""
    #: The Example fields its examples can fill ("answers", "label", "choices",
    #: "explanations", "pair_id", ...); None: not declared. A suite file pairing it with a
    #: probe that `needs` a field outside this set is refused on load (docs/suites.md).
    provides: ClassVar[frozenset[str] | None] = None
    #: `meta` keys computed from an input ({"question": ("template",)}): ablations remove them
    #: with it, as `question_type` with the question and `image_id` with the image (harness.inputs).
    derived_meta: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    #: `meta` keys that are model inputs (a task tag a prompt depends on, OCR tokens, VCR's
    #: rationale choices). A model is given these and `CANDIDATE_IMAGES` only: every other key
    #: (a target, decoy sets, generation notes) stays with the probes (harness.inputs.model_view).
    input_meta: ClassVar[tuple[str, ...]] = ()
    #: The `ANSWER_FACTORS` that decide the answers ({"color", "object"}: easy-VQA); rows of a
    #: probe assuming otherwise (`Probe.assumes`) lose their better direction, and the run says so.
    answers_depend_on: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, data_dir: Path | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.data_dir = Path(data_dir) if data_dir else None

    def load(self, split: str) -> "list[Example] | datasets.Dataset":  # pragma: no cover - abstract
        raise NotImplementedError

    def expected_files(self, split: str) -> list[Path]:
        """Files `load(split)` needs; listed when some are missing."""
        return []

    def image_folders(self) -> list[Path]:
        """Folders of the examples' image files under the current options (for `harness data
        status`; nothing is read)."""
        return []

    def is_labelled(self, split: str) -> bool:
        return self.labelled_splits is None or split in self.labelled_splits

    def summary(self, split: str) -> Mapping[str, Any]:
        """What loading `split` counted (problems in the files, generation statistics), for
        probes to report; {} when there is nothing to say or the split was not loaded."""
        return {}

    def accepted(self, split: str) -> Mapping[str, Any]:
        """What options that relax the checks let through in `split` (records dropped or kept
        against the usual rules): JSON-able counts and a one-line `note`. The run asks at the
        end of each task that used `split`, records it in the manifest's `data_counts` and
        shows the note in report.md; {} (the default) when nothing was accepted. The split
        may not have been loaded in this process (a re-run restores cached probe outputs):
        load it, as `summary` does, when the counts come from loading."""
        return {}

    def fingerprint(self, split: str) -> str:
        """Changes whenever the loaded examples could change. The default covers the name,
        the options and the size and modification time of `expected_files(split)`, each file
        inside `data_dir` named relative to it (`file_stamps(paths, root=self.data_dir)`: the
        folder moved or copied with `cp -a`, `rsync -a` or `mv` keeps the fingerprint); a
        dataset whose content depends on more (generated data, image files) overrides it. The
        run adds a third-party plugin's distribution and version (harness.data.session)."""
        return digest({"dataset": self.name, "split": split, "config": self.config,
                       "files": file_stamps(self.expected_files(split), root=self.data_dir)})


class Model(Configurable):
    """A model implements any subset of `answer`, `score_choices`, `explain`, `score_images`
    and `fit`; the runner calls them with batches of Examples, under `torch.inference_mode`,
    after `setup(device)`. Override `fingerprint_extra` (or `fingerprint`) so the fingerprint
    changes whenever outputs could change."""

    kind = "model"
    #: True when the model decodes `example.image`; the run checks image files first.
    uses_images: ClassVar[bool] = False
    #: The inputs the model reads, when it reads only some of "image", "question" and
    #: "choices" (a modality ablation such as MLP-A); None: everything its capability gets.
    #: Probes that blank inputs themselves skip those ablations for such a model.
    inputs: ClassVar[frozenset[str] | None] = None
    #: What a pretrained model was trained on, for tables that group by training data (e.g.
    #: Goyal Table 1: "unbalanced" or "balanced"); the run reads it (`trained_on=` overrides it)
    #: and keeps the training data of models it trains itself (it never sets it).
    trained_on: ClassVar[str] = ""

    def __init__(self, *, feature_resolver: FeatureResolver | None = None, **options: Any) -> None:
        """`feature_resolver` (given by the harness when it builds the model for a run)
        resolves feature-extractor specs among the run's registered extractors; None outside
        a run (feature-based models then use the process's plugins)."""
        super().__init__(**options)
        self.feature_resolver = feature_resolver

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

    def score_images(self, batch: Sequence[Example], answers: Sequence[str]) -> Sequence[Sequence[float]]:
        """Counter-example scores (Goyal et al. 2017 §5): for each example (question Q on
        image I), the answer A to explain (`answers[i]`) and the candidate images in
        `example.meta[CANDIDATE_IMAGES]` ([image_id, path] pairs), one score per candidate,
        in that order; higher means a better counter-example (Q makes sense there and its
        answer is not A)."""
        raise NotImplementedError

    def fit(self, train: Sequence[Example], *, seed: int) -> None:
        raise NotImplementedError

    @classmethod
    def capabilities(cls) -> frozenset[str]:
        """The capabilities this class overrides (`fit` included when trainable)."""
        found = {c for c in (*CAPABILITIES, "fit") if getattr(cls, c) is not getattr(Model, c)}
        return frozenset(found)

    @property
    def trainable(self) -> bool:
        return "fit" in self.capabilities()

    def fit_key(self, train_fingerprint: str, seed: int) -> Any:
        """Optional: what determines the fitted model's predictions completely besides the
        training data (named by its fingerprint) and the seed — config, code version, anything
        `fingerprint_extra` adds that is known before the fit (a thread count). A model that
        returns a value (not None) lets the harness defer `fit` until a prediction is needed:
        a re-run whose outputs are all cached then loads no data and trains nothing. None
        (the default): `fit` is called at once."""
        return None

    def check_example_ids(self, ids: "frozenset[str]") -> None:
        """Optional, for answers tied to ids (a results file): before any work, the id of every
        example of the evaluated splits (whatever `--limit`); raise `DataError` for ids the
        data does not have. Only an override makes the run load the splits for it."""

    def check_examples(self, examples: Sequence[Example]) -> None:
        """Optional: before a probe runs the model on a task (outputs not cached), every example
        of the task's split as a model is given it (`harness.inputs.model_view`, choices shown,
        inputs not blanked); raise `DataError` (count and examples) for inputs the model cannot
        take at all (image ids missing from a feature file), so the run stops with one line
        instead of scoring such examples 0."""

    def parameter_count(self) -> int | None:
        """Number of parameters when known (leaderboard metadata, recorded in the manifest per
        training data after each task), else None. Must not load or train anything."""
        return None

    def report_notes(self) -> str:
        """Markdown the run report shows at the end (e.g. candidates outside the label space)."""
        return ""

    def usage(self) -> Mapping[str, Any]:
        """What the model used in this process (requests, tokens; flat JSON values): the run
        writes it into the manifest (`usage`) and report.md after every task. {}: nothing."""
        return {}

    def fingerprint_extra(self) -> Any:
        """Extra state folded into the fingerprint (trained weights' hash, model revision)."""
        return None

    def fingerprint(self) -> str:
        """Changes whenever the model's outputs could change."""
        return digest({"model": self.name, "class": f"{type(self).__module__}.{type(self).__qualname__}",
                       "config": self.fingerprint_config(), "extra": self.fingerprint_extra()})

    def input_key(self, example: Example, capability: str, extra: str = "") -> str:
        """Hash of exactly what the model sees for one call (the prediction-cache key): the
        inputs `harness.inputs.model_view` leaves, `extra` (the answer to explain) and each image
        file by its bytes for a model that decodes images (`file_content`: a file rewritten is
        another input, one moved with its folder the same), by none of it for one that does not."""
        def image(path: str) -> str:  # "" and BLANK_IMAGE are kept; a file it cannot read, by its path
            if path in ("", BLANK_IMAGE):
                return path
            return (file_content(path) or path) if self.uses_images else "file"

        seen = {"capability": capability, "question": example.question, "image": image(example.image),
                "image_id": example.image_id, "extra": extra, "choices": list(example.choices)}
        if capability == "score_images" or CANDIDATE_IMAGES in example.meta:  # absent: keys as they were
            seen["candidates"] = [[*c[:-1], image(c[-1])] for c in example.meta.get(CANDIDATE_IMAGES, ())]
        inputs = {k: v for k, v in example.meta.items() if k != CANDIDATE_IMAGES}
        if inputs:  # the dataset's `input_meta` (harness.inputs.model_view); absent: keys as they were
            seen["meta"] = inputs
        return digest(seen)


class Probe(Configurable):
    """Builds dataset variants, asks the context for predictions, returns result rows.

    `requires` lists capabilities that the model needs for this probe (any one of
    `requires_any` suffices); model-free probes (dataset audits) leave both empty.
    """

    kind = "probe"
    requires: ClassVar[tuple[str, ...]] = ()
    requires_any: ClassVar[tuple[str, ...]] = ()
    #: Example fields the probe cannot do without (e.g. ("pair_id",)); checked against a
    #: dataset's `provides` when a suite file is loaded.
    needs: ClassVar[tuple[str, ...]] = ()
    #: True for a probe whose output never depends on the model (a dataset audit): its
    #: output is computed once and shared by every model. A probe that may use the model
    #: when it can (e.g. an optional ranker) is not model-free.
    model_free: ClassVar[bool] = False
    #: The few rows that say most, for run reports: (metric, variant) pairs, variant "*"
    #: for any. Empty: the first rows without a breakdown ("/" in the metric).
    headline: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: Artifacts that stand in for the probe's rows where it can compute none (a split without
    #: answers): file name (`ctx.artifact(name)`) -> what it is ("evaluation-server results
    #: file"); `harness run` prints the path of each one written on a task without rows.
    announce: ClassVar[Mapping[str, str]] = {}
    #: Row variant -> the `ANSWER_FACTORS` entry its rows assume does not decide the answers
    #: ({"color_min_common": "color"}: a near colour keeps the answer); on a dataset declaring
    #: it (`answers_depend_on`) the run says so and those rows lose their better direction.
    assumes: ClassVar[Mapping[str, str]] = {}

    def cache_settings(self) -> Mapping[str, Any]:
        """What besides its options changes this probe's output (a resource chosen by an
        environment variable, the files of a model it scores with): JSON-able, part of the key
        under which a re-run restores the output instead of running the probe, and of the key
        of its `ctx.memo` values. Default {}."""
        return {}

    def run(self, ctx: ProbeContext) -> list[ResultRow]:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def layouts(cls) -> Sequence[Layout]:
        """Paper-style table layouts for this probe's rows (data; written into every run
        folder for the leaderboard). Empty: the generic layout (rows = model and training
        data, columns = data/metric)."""
        return ()

    @classmethod
    def display(cls) -> Display:
        """How the leaderboard names and shows this probe (data, written into every run folder
        with the layouts): readable title and metric names, docs link, why some metrics have
        no interval, image-reliance evidence, charts (harness.display)."""
        return Display()


class Publisher(Configurable):
    """Turns run folders into published output (the leaderboard): reads only run folders."""

    kind = "publisher"

    def publish(self, inputs: Sequence[Path], out: Path, *, latest_only: bool = True,
                progress: Callable[[str], None] | None = None) -> list[Path]:  # pragma: no cover
        """Write the output for the runs found in `inputs` into `out`; the paths written."""
        raise NotImplementedError

    def summary(self) -> str:
        """After `publish` on this instance: text for the terminal at the end of `harness run`
        (the answer at a glance and where the output is); '' for none."""
        return ""
