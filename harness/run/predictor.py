"""The predictor: batches examples through a model capability. Only inputs missing from the
prediction cache reach the model, and each finished batch is committed to it at once (an
interrupted run loses nothing). A batch that raises is retried one example at a time; an
example that still raises, or whose output breaks the contract (one output per example, one
score per choice) or is `unkeepable`, is a failed example naming the model plugin, never a
cache entry, and the run goes on. `StopRun` (endpoint gone, budget spent) stops the run."""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..api import Model
from ..cache.predictions import PredictionCache
from ..devices import model_threads
from ..digest import digest
from ..errors import FitError, HarnessError, StopRun, UsageError, printable
from ..folders import storage_error
from ..jsonio import surrogate_in
from ..paths import tqdm_disabled
from ..types import CANDIDATE_IMAGES, Example, Prediction, as_answer
from . import stops

__all__ = ["Predictor", "PredictorStats", "ANSWER_TAKING", "guarded_fit", "unkeepable", "MAX_TEXT", "MAX_SCORES"]

#: Capabilities that take one answer per example besides the examples.
ANSWER_TAKING = ("explain", "score_images")
#: Characters of one answer or explanation (a VQA answer is a few words, an explanation a
#: sentence or two; a long generation fits many times over).
MAX_TEXT = 100_000
#: Entries of one answer-score distribution (VQA classifiers score about 3,000 answers).
MAX_SCORES = 100_000


@dataclass
class PredictorStats:
    """What the runner did (tests assert on `model_calls`; the report shows the rest)."""

    model_calls: int = 0  # examples sent to the model
    cache_hits: int = 0
    errors: int = 0
    seconds: float = 0.0
    fit_seconds: float = 0.0  #: in fits the harness deferred until a prediction needed them
    #: The first failed examples: (example id, what asked it: `desc` of `Predictor.predict`, error).
    error_examples: list[tuple[str, str, str]] = field(default_factory=list)


class Predictor:
    """Runs one model over lists of examples, one capability at a time."""

    def __init__(self, model: Model, *, cache: PredictionCache, batch_size: int = 32,
                 progress: bool = True, plugin_label: str | None = None, release: str = "") -> None:
        if batch_size < 1:
            raise UsageError("--batch-size must be at least 1")
        self.model = model
        self.cache = cache
        self._asking = ""  #: `desc` of the `predict` call under way
        self.batch_size = batch_size
        self.progress = progress and not tqdm_disabled()
        self.plugin_label = plugin_label or model.name
        #: A third-party model's distribution and version, folded into the fingerprint: a new
        #: release is asked again even when its `fingerprint()` is unchanged ("" for built-ins).
        self.release = release
        self.stats = PredictorStats()
        self._fingerprint: str | None = None
        self._pending_fit: Callable[[], None] | None = None

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = self.model.fingerprint()
        return digest([self._fingerprint, self.release]) if self.release else self._fingerprint

    def refresh_fingerprint(self) -> None:
        """Call after `fit`: trained weights change the fingerprint."""
        self._fingerprint = None
        self._pending_fit = None

    def defer_fit(self, fit: Callable[[], None], fingerprint: str) -> None:
        """Use `fingerprint` for the fitted model now, and call `fit` only before the first
        prediction that is not cached (see `Model.fit_key`)."""
        self._fingerprint, self._pending_fit = fingerprint, fit

    def ensure_fitted(self) -> None:
        """Run a deferred `fit` (once). A fit that fails ends the run (FitError): every later
        prediction would come from an untrained model, scored as if it were the real one."""
        if self._pending_fit is not None:
            fit, self._pending_fit = self._pending_fit, None
            start = time.perf_counter()
            try:
                guarded_fit(fit, self.plugin_label)
            finally:
                self.stats.fit_seconds += time.perf_counter() - start

    def predict(self, examples: Sequence[Example], capability: str, *,
                answers: Sequence[str] | None = None, desc: str = "") -> list[Prediction]:
        """One prediction per example, in order; cached inputs are not sent to the model."""
        if capability not in self.model.capabilities():
            raise UsageError(f"model {self.model.name!r} has no {capability!r} capability")
        if capability in ANSWER_TAKING and (answers is None or len(answers) != len(examples)):
            raise HarnessError(f"{capability} needs one answer per example (to justify / to explain)")
        extras = list(answers) if answers is not None else [""] * len(examples)
        keys = [self.model.input_key(ex, capability, extra) for ex, extra in zip(examples, extras)]
        cached = self.cache.get_many(self.fingerprint, keys)
        self.stats.cache_hits += sum(1 for k in keys if k in cached)
        todo: dict[str, int] = {}  # each distinct missing input once, at its first index
        for i, key in enumerate(keys):
            if key not in cached:
                todo.setdefault(key, i)
        results: dict[str, Prediction] = dict(cached)
        self._asking = desc or capability  # named with each failed example (report.md)
        if todo:
            results.update(self._run_missing(examples, extras, keys, list(todo.values()),
                                             capability, desc))
        return [Prediction(**{**results[key].__dict__, "example_id": ex.id})
                for ex, key in zip(examples, keys)]

    def _run_missing(self, examples, extras, keys, indices, capability, desc) -> dict[str, Prediction]:
        with stops.deferred():  # a signal inside torch's first import would leave it half-initialised for good
            import torch  # heavy: torch takes seconds to import; only code that computes needs it
        stops.raise_pending()
        with model_threads(self.model):
            self.ensure_fitted()
        bar = None
        if self.progress:
            from tqdm.auto import tqdm  # heavy: tqdm takes about 40 ms; only progress bars need it

            bar = tqdm(total=len(indices), desc=desc or capability, unit="ex", dynamic_ncols=True, leave=False,
                       disable=None)  # None: no bar when stderr is not a terminal
        done: dict[str, Prediction] = {}
        start = time.perf_counter()
        try:
            stream = getattr(self.model, "predict_stream", None)
            if callable(stream):
                # The model runs its own DataLoader (workers decode while the model computes);
                # each yielded batch is committed at once, like the plain path.
                indices = self._run_stream(stream, examples, extras, keys, indices, capability, done, bar)
            with torch.inference_mode(), model_threads(self.model):
                for b in range(0, len(indices), self.batch_size):
                    idx = indices[b : b + self.batch_size]
                    batch = [examples[i] for i in idx]
                    preds = self._call_contained(batch, [extras[i] for i in idx], capability)
                    fresh = {keys[i]: p for i, p in zip(idx, preds)}
                    self.cache.put_many(self.fingerprint, fresh)  # durable before moving on
                    done.update(fresh)
                    if bar is not None:
                        bar.update(len(idx))
        finally:
            self.stats.seconds += time.perf_counter() - start
            if bar is not None:
                bar.close()
        return done

    def _run_stream(self, stream, examples, extras, keys, indices, capability, done, bar) -> list[int]:
        """Feed `indices` through the model's `predict_stream`; returns the indices left over
        (all of them if the stream itself broke, so the plain batched path retries them)."""
        subset = [_private(examples[i]) for i in indices]
        sub_extras = [extras[i] for i in indices] if capability in ANSWER_TAKING else None
        try:
            for positions, preds in stream(subset, capability, answers=sub_extras, batch_size=self.batch_size):
                fresh = {}
                for pos, pred in zip(positions, preds):
                    i = indices[pos]
                    problem = unkeepable(pred) if pred.error is None else ""
                    if problem:
                        pred = Prediction(pred.example_id, capability,
                                          error=f"plugin {self.plugin_label}: ValueError: {problem}")
                    if pred.error is None:
                        self.stats.model_calls += 1
                    else:  # the model's own error text
                        pred = dataclasses.replace(pred, error=printable(pred.error))
                        self._count_error(examples[i], pred.error)
                    fresh[keys[i]] = pred
                self.cache.put_many(self.fingerprint, fresh)
                done.update(fresh)
                if bar is not None:
                    bar.update(len(positions))
        except (KeyboardInterrupt, StopRun):
            raise
        except BaseException as exc:  # fall back to the plain path for whatever is not done; say so
            stops.raise_swallowed()  # the error a stop became is that stop
            left = sum(1 for i in indices if keys[i] not in done)
            print(f"warning: plugin {self.plugin_label}: predict_stream failed "
                  f"({type(exc).__name__}: {_first_line(exc)}); {left} example(s) go through the "
                  "batched path", file=sys.stderr)
        return [i for i in indices if keys[i] not in done]

    def _count_error(self, example: Example, error: str) -> None:
        self.stats.errors += 1
        if len(self.stats.error_examples) < 50:
            self.stats.error_examples.append((example.id, self._asking, error))

    def _call_contained(self, batch, extras, capability) -> list[Prediction]:
        """`_call`, contained: model code that raises (SystemExit and other BaseExceptions a
        library aborts with included; not Ctrl-C or StopRun) fails its examples only."""
        try:
            return self._call(batch, extras, capability)
        except (KeyboardInterrupt, StopRun):
            raise
        except BaseException:
            stops.raise_swallowed()  # not retried one by one: the run was asked to stop
            if len(batch) == 1:
                return [self._failed(batch[0], capability)]
        out = []  # isolate the failing example(s): retry one at a time
        for ex, extra in zip(batch, extras):
            try:
                out.extend(self._call([ex], [extra], capability))
            except (KeyboardInterrupt, StopRun):
                raise
            except BaseException:
                out.append(self._failed(ex, capability))
        return out

    def _failed(self, example: Example, capability: str) -> Prediction:
        stops.raise_swallowed()  # a stop turned into another error by the model's code is that stop
        exc = sys.exc_info()[1]
        error = f"plugin {self.plugin_label}: {type(exc).__name__}: {_first_line(exc)}"
        error = printable(error.rstrip(": "))
        self._count_error(example, error)
        return Prediction(example_id=example.id, capability=capability, error=error)

    def _call(self, batch: list[Example], extras: list[str], capability: str) -> list[Prediction]:
        self.stats.model_calls += len(batch)
        batch = [_private(ex) for ex in batch]  # what the model changes in them stays with it
        if capability not in ("answer", "score_choices", *ANSWER_TAKING):
            raise UsageError(f"unknown capability {capability!r}")
        method = getattr(self.model, capability)
        raw = list(method(batch, extras) if capability in ANSWER_TAKING else method(batch))
        if len(raw) != len(batch):
            raise ValueError(f"{capability} returned {len(raw)} outputs for a batch of "
                             f"{len(batch)}")
        if capability == "explain":  # a non-string explanation is scored as empty (and counted)
            return [_kept(Prediction(ex.id, capability, answer=extra,
                                     explanation=e if isinstance(e, str) else ""))
                    for ex, extra, e in zip(batch, extras, raw)]
        preds = []
        for ex, value in zip(batch, raw):
            if capability == "answer":
                ans = as_answer(value)
                scores = {str(k): float(v) for k, v in ans.scores.items()} if ans.scores else None
                preds.append(_kept(Prediction(ex.id, capability, answer=str(ans.text), answer_scores=scores)))
                continue
            scores = [float(s) for s in value]
            if capability == "score_choices":
                wanted, what = len(ex.choices), "choices"
            else:
                wanted, what = len(ex.meta.get(CANDIDATE_IMAGES, ())), "candidate images"
            if len(scores) != wanted:
                raise ValueError(f"{capability} returned {len(scores)} scores for {wanted} {what} "
                                 f"(example {ex.id})")
            if any(math.isnan(s) for s in scores):
                raise ValueError(f"{capability} returned NaN (example {ex.id})")
            preds.append(Prediction(ex.id, capability, choice_scores=tuple(scores)))
        return preds


def unkeepable(pred: Prediction) -> str:
    """Why `pred` cannot be kept as one prediction ("" when it can): more than `MAX_TEXT`
    characters of answer or explanation, more than `MAX_SCORES` answer scores (or labels of
    more than 10 * MAX_TEXT characters together), text holding a lone surrogate (which no
    UTF-8 file can hold), or answer scores holding NaN. Sizes first: the text is then scanned
    only within the caps."""
    scores = pred.answer_scores or {}
    texts = (("answer", pred.answer), ("explanation", pred.explanation))
    for name, text in texts:
        if text is not None and len(text) > MAX_TEXT:
            return (f"{name} of {len(text):,} characters is longer than one prediction may hold ({MAX_TEXT:,}; "
                    f"example {pred.example_id})")
    if len(scores) > MAX_SCORES or sum(len(k) for k in scores) > MAX_TEXT * 10:
        return (f"answer scores of {len(scores):,} answers are more than one prediction may hold ({MAX_SCORES:,}; "
                f"example {pred.example_id})")
    for name, text in (*texts, *(("answer scores", k) for k in scores)):
        found = surrogate_in(text) if text is not None else ""
        if found:
            return f"{name} holds a lone surrogate ({found}), not Unicode text (example {pred.example_id})"
    if any(isinstance(v, float) and math.isnan(v) for v in scores.values()):
        return f"answer scores hold NaN (example {pred.example_id})"
    return ""


def _private(example: Example) -> Example:
    """A copy of `example` for the model, its `meta` (shared with every probe of the run)
    copied: what a model changes in what it is given (sorting the candidate images in place,
    adding a key) no probe or later call sees."""
    return example.with_(meta=_copied(example.meta) if example.meta else {})


def _copied(value: Any) -> Any:
    """`value` with its mappings and lists copied at every level (a read-only mapping, which
    `copy.deepcopy` cannot copy, becomes a dict); other objects are shared, as nothing changes
    them in place."""
    if isinstance(value, Mapping):
        return {k: _copied(v) for k, v in value.items()}
    if type(value) in (list, tuple, set):  # exactly: a namedtuple is rebuilt otherwise
        return type(value)(_copied(v) for v in value)
    return value


def _kept(pred: Prediction) -> Prediction:
    """`pred`, or a ValueError (a failed example: contained and reported) when `unkeepable`."""
    problem = unkeepable(pred)
    if problem:
        raise ValueError(problem)
    return pred


def _first_line(exc: BaseException | None) -> str:
    return (str(exc).strip().splitlines() or [""])[0]


def guarded_fit(fit: Callable[[], None], label: str) -> None:
    """Call `fit`; its failure is one line that ends the run: FitError naming the model plugin
    (`label`), or StorageError when the disk could not take the weights."""
    try:
        fit()
    except (KeyboardInterrupt, StopRun):
        raise
    except BaseException as exc:  # SystemExit and a library's own BaseException too: not a traceback
        stops.raise_swallowed()  # a stop turned into another error is that stop, not a model that cannot train
        if isinstance(exc, HarnessError):
            raise FitError(f"plugin {label}: the model could not be trained: {exc}",
                           exc.exit_code) from exc
        known = storage_error(exc)
        if known is not None:
            raise known from exc
        raise FitError(f"plugin {label}: the model could not be trained: {type(exc).__name__}: "
                       f"{' '.join(str(exc).split())}") from exc
