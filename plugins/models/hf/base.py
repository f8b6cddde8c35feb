"""What `hf-vqa` and `hf-vlm` share: options, loading once per process, the fingerprint,
per-instance capabilities, and the DataLoader streaming path (`predict_stream`)."""

from __future__ import annotations

import logging
from typing import Any, Callable, ClassVar, Iterator, Sequence

from harness.api import Model, Option
from harness.errors import PluginError, ResourceError, UsageError
from harness.types import Answer, Example, Prediction, as_answer

from .families import load_processor
from .loading import (
    DOWNLOAD_OPTION,
    DTYPES,
    ModelSource,
    precision,
    read_config,
    resolve_source,
    torch_dtype,
    weights_digest,
)
from .pipeline import Backoff, Prepared, autocast, stream, to_device

__all__ = ["HFModelBase", "COMMON_OPTIONS", "OUT_OF_LABELS"]

log = logging.getLogger(__name__)

#: `score_choices` value of a candidate a classifier cannot output (not in `id2label`): very
#: low but finite, so sorting and sums stay defined (same convention as the baselines).
OUT_OF_LABELS = -1e9

COMMON_OPTIONS = {
    "path": Option("", "local model folder (save_pretrained output) or hub id found in the HF cache"),
    "revision": Option("", "hub revision (branch, tag or commit) when path is a hub id"),
    "download": DOWNLOAD_OPTION,
    "dtype": Option("auto", "weight dtype; auto = float32 on CPU, the checkpoint's dtype on CUDA", DTYPES),
    "autocast": Option(True, "bf16 autocast on CUDA (ignored on CPU)"),
    "image_size": Option(0, "images are resized to image_size x image_size (0: the processor's size)",
                         min=0, max=4096),
    "max_length": Option(0, "maximum question tokens (0: the model's limit, at most 40)", min=0, max=4096),
    "num_workers": Option(0, "DataLoader workers (stream path) / decoding threads (runner path)", min=0, max=256),
    "bucket": Option(False, "batch questions of similar length together (stream path)"),
    "trust_remote_code": Option(False, "run the model repository's own Python code (only if you trust it)"),
}

# One loaded model per process: `vqa_harness_cli.launch.distributed` and repeated instantiation with the
# same options (e.g. a second model spec in one CLI call) reuse the weights.
_LOADED: dict[tuple, tuple[Any, Any]] = {}


class _Capabilities:
    """`Model.capabilities` that also works per instance (a classifier cannot `explain`)."""

    def __get__(self, obj: Any, cls: type) -> Callable[[], frozenset[str]]:
        if obj is None:
            return lambda: Model.capabilities.__func__(cls)  # type: ignore[attr-defined]
        return obj.instance_capabilities


class HFModelBase(Model):
    """Loading, device placement, fingerprint and streaming for transformers models."""

    uses_images = True  # the run checks image files before the model starts

    options: ClassVar[dict[str, Option]] = COMMON_OPTIONS
    capabilities = _Capabilities()  # type: ignore[assignment]

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.source: ModelSource = resolve_source(f"model {self.name!r}", self.config["path"], self.config["revision"],
                                                  download=bool(self.config["download"]))
        self.device = "cpu"
        self.net: Any = None
        self.processor: Any = None
        self.backoff = Backoff()
        #: Counters a probe or the CLI may report (e.g. candidates outside the label space).
        self.notes: dict[str, int] = {}

    # -------------------------------------------------------------- loading
    def instance_capabilities(self) -> frozenset[str]:
        """Capabilities of this model instance (override when some depend on the checkpoint)."""
        return Model.capabilities.__func__(type(self))  # type: ignore[attr-defined]

    def _auto_classes(self) -> Sequence[Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def setup(self, device: str) -> None:
        """Load processor and weights (once per process) and move them to `device`."""
        self.device = device
        key = (type(self).__name__, str(self.source.folder), self.config["dtype"], device,
               self.config["trust_remote_code"])
        if key not in _LOADED:
            _LOADED.clear()  # keep one model in memory
            _LOADED[key] = self._load(device)
        self.net, self.processor = _LOADED[key]
        self._after_load()

    def _load(self, device: str) -> tuple[Any, Any]:
        trust = bool(self.config["trust_remote_code"])
        folder = str(self.source.folder)
        try:
            # Per-family processor handling (video processors without torchvision): families.py.
            processor = load_processor(folder, read_config(self.source.folder).get("model_type"), trust)
        except Exception as exc:
            raise ResourceError(f"model {self.name!r}: could not load the processor from {folder}: {_first_line(exc)}") from None
        last: Exception | None = None
        for auto in self._auto_classes():
            try:
                net = auto.from_pretrained(folder, dtype=torch_dtype(self.config["dtype"], device),
                                           trust_remote_code=trust)
                break
            except ValueError as exc:  # unrecognized configuration for this auto class
                last = exc
            except Exception as exc:
                raise ResourceError(f"model {self.name!r}: could not load weights from {folder}: {_first_line(exc)}") from None
        else:
            raise UsageError(f"model {self.name!r}: {folder} is not a model this adapter supports: {_first_line(last)}")
        net.eval().to(device)
        return net, processor

    def _after_load(self) -> None:
        """Hook: read labels, token ids, image size once weights are loaded."""

    def _require_loaded(self) -> None:
        if self.net is None:
            raise PluginError(f"model {self.name!r}: setup(device) was not called before predicting")

    def fingerprint_extra(self) -> Any:
        """Weights identity, numeric regime (device/dtype/autocast) and library version."""
        import transformers  # heavy: imported on use

        return {
            "weights": weights_digest(self.source),
            "precision": precision(self.device, self.config["dtype"], self.config["autocast"]),
            "transformers": transformers.__version__,
        }

    # ------------------------------------------------------------- running
    def _autocast(self):
        return autocast(self.device, bool(self.config["autocast"]))

    def _on_device(self, prepared: Prepared) -> dict[str, Any]:
        return to_device(prepared.inputs, self.device)

    def predict_stream(
        self,
        examples: Sequence[Example],
        capability: str,
        *,
        answers: Sequence[str] | None = None,
        batch_size: int = 32,
    ) -> Iterator[tuple[list[int], list[Prediction]]]:
        """DataLoader path: yield (indices, predictions) batch by batch, in any batch order.

        Workers (`num_workers`) decode and preprocess; pinned memory and non-blocking copies on
        CUDA; `bucket` batches by question length. An example whose image fails to decode gets
        an error prediction naming its path; the others in its batch are unaffected.
        """
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        self._require_loaded()
        if capability not in self.capabilities():
            raise UsageError(f"model {self.name!r} has no {capability!r} capability")
        extras = list(answers) if answers is not None else [""] * len(examples)
        by_id = {id(ex): i for i, ex in enumerate(examples)}

        def prepare(batch: Sequence[Example]) -> Prepared:
            idx = [by_id[id(ex)] for ex in batch]
            return self._prepare(batch, capability, [extras[i] for i in idx])

        for indices, prepared in stream(examples, prepare, batch_size=batch_size, device=self.device,
                                        num_workers=int(self.config["num_workers"]), bucket=bool(self.config["bucket"])):
            preds: list[Prediction] = []
            ok_batch = [examples[indices[r]] for r in prepared.rows]
            with torch.inference_mode():
                outputs = self._forward(prepared, capability, ok_batch, [extras[indices[r]] for r in prepared.rows]) if ok_batch else []
            by_row = dict(zip(prepared.rows, outputs))
            for pos, i in enumerate(indices):
                ex = examples[i]
                if pos in prepared.errors:
                    error = f"plugin {self.name}: DataError: {prepared.errors[pos]}"
                    preds.append(Prediction(ex.id, capability, error=error))
                else:
                    preds.append(_to_prediction(ex, capability, by_row[pos], extras[i]))
            yield indices, preds

    def _run(self, batch: Sequence[Example], capability: str, extras: Sequence[str]) -> list[Any]:
        """Runner path: preprocess in this process (decoding threads), then forward."""
        self._require_loaded()
        prepared = self._prepare(batch, capability, extras, threads=int(self.config["num_workers"]))
        prepared.raise_first_error()
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        with torch.inference_mode():  # the runner already does this; direct callers may not
            return self._forward(prepared, capability, batch, extras)

    def _prepare(self, batch: Sequence[Example], capability: str, extras: Sequence[str], threads: int = 0) -> Prepared:  # pragma: no cover
        raise NotImplementedError

    def _forward(self, prepared: Prepared, capability: str, batch: Sequence[Example], extras: Sequence[str]) -> list[Any]:  # pragma: no cover
        raise NotImplementedError


def _to_prediction(ex: Example, capability: str, value: Any, extra: str) -> Prediction:
    if capability == "answer":
        ans: Answer = as_answer(value)
        scores = {str(k): float(v) for k, v in ans.scores.items()} if ans.scores else None
        return Prediction(ex.id, capability, answer=ans.text, answer_scores=scores)
    if capability == "score_choices":
        return Prediction(ex.id, capability, choice_scores=tuple(float(s) for s in value))
    return Prediction(ex.id, capability, answer=extra, explanation=str(value))


def _first_line(exc: BaseException | None) -> str:
    """The message's first line; one that ends in ":" ("... from one of:") introduces the
    lines after it, which are then joined to it (at most 400 characters)."""
    text = str(exc or "").strip()
    if not text:
        return type(exc).__name__
    first = text.splitlines()[0].strip()
    if not first.endswith(":"):
        return first
    joined = " ".join(text.split())
    return joined if len(joined) <= 400 else joined[:399] + "…"
