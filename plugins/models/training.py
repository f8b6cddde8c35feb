"""The shared torch trainer: `TorchAnswerModel`, a classifier over the answer vocabulary.

Every built-in torch answer model (`qonly`, `cnn-lstm`, the grid models) subclasses it:
soft-target training on the run's device, the weight cache keyed by (model, config, train
data, seed; the device when it is not the CPU; `weight_cache.py`), batch-size-independent
inference, `score_choices`. Threads, devices and seeding: `runtime.py`. See docs/models.md.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator, Mapping, Sequence

from harness.api import Model, Option
from harness.digest import class_source_digest, digest
from harness.errors import DataError
from harness.manifest import package_version
from harness.paths import tqdm_disabled
from harness.types import Answer, Example

from . import weight_cache
from .answers import OUT_OF_VOCAB, TOP_K, not_fitted
from .runtime import (
    TRAINING_THREADS,
    adam,
    device_kind,
    reproducible_cpu,
    seeded,
    threads_key,
    to_device,
    training_device,
)
from .text import Vocab, answer_counts, build_answer_vocab, normalizer, train_digest

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["TorchAnswerModel", "TRAINER_OPTIONS", "MODEL_VERSION", "TRAINING_THREADS", "Take", "reproducible_cpu"]


#: Bump when a change to the trainers or networks makes cached weights stale.
MODEL_VERSION = 2

#: Options every `TorchAnswerModel` accepts (subclasses override defaults and add more).
TRAINER_OPTIONS: dict[str, Option] = {
    "epochs": Option(10, "passes over the train split", min=1, max=1000),
    "hidden": Option(256, "hidden size", min=1, max=65_536),
    "lr": Option(3e-3, "Adam learning rate", min=0.0, max=10.0),
    "batch_size": Option(128, "training batch size (inference does not depend on it)", min=1, max=65_536),
    "max_answers": Option(1000, "answer vocabulary: the K most frequent canonical train answers",
                          min=1, max=1_000_000),
    "dropout": Option(0.3, "dropout before the answer classifier", min=0.0, max=0.99),
    # Training always runs on one thread, so the weights do not depend on it; predictions do
    # in the last bits (`runtime.threads_key` puts the count into their fingerprint).
    "threads": Option(1, "torch CPU threads for predictions (0: torch default; training always uses one); "
                         "the same bits for a given count", min=0, max=1024, fingerprint=False),
}

#: Takes example row indices (a LongTensor) and returns the network's positional inputs.
Take = Callable[["torch.Tensor"], tuple["torch.Tensor", ...]]


def _shuffled_batches(
    n: int, size: int, groups: list[Any] | None, gen: "torch.Generator"
) -> Iterator["torch.Tensor"]:
    """Row indices in seeded random batches of about `size` rows.

    With `groups`, whole groups are shuffled and packed into batches (a batch closes once
    it holds `size` rows or more), and rows are shuffled inside each batch.
    """
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    if groups is None:
        order = torch.randperm(n, generator=gen)
        yield from (order[b : b + size] for b in range(0, n, size))
        return
    members: dict[Any, list[int]] = {}
    for i, key in enumerate(groups):
        members.setdefault(key, []).append(i)
    # A group larger than a batch (e.g. every row on the blank image) is cut into chunks.
    lists = [rows[c : c + size] for rows in members.values() for c in range(0, len(rows), size)]
    batch: list[int] = []
    for g in torch.randperm(len(lists), generator=gen).tolist():
        batch += lists[g]
        if len(batch) >= size:
            yield torch.tensor(batch)[torch.randperm(len(batch), generator=gen)]
            batch = []
    if batch:
        yield torch.tensor(batch)[torch.randperm(len(batch), generator=gen)]


class TorchAnswerModel(Model):
    """A torch classifier over the answer vocabulary, trained by `fit`, weights cached.

    Subclasses implement `_build_vocab(train) -> dict` (JSON-able: everything besides the
    answer vocabulary needed to rebuild the network), `_new_net() -> nn.Module` and
    `_encode(examples) -> Take`. The network maps the tensors from `take(idx)` to logits
    over `self.answers`, one row per example and independent of the other rows.
    """

    options: ClassVar[Mapping[str, Option]] = TRAINER_OPTIONS

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._net: Any = None
        self._pending: Path | None = None  # cached weights not loaded yet
        self._fit_args: tuple[Sequence[Example], int] | None = None
        self._weights_key: str | None = None
        #: digest of the last `fit_key` the harness asked for, and of the fit the network (or
        #: its pending cache folder) belongs to; they differ while a deferred fit has not run
        self._fit_id: str | None = None
        self._state_id: str | None = None
        self.answers = Vocab(())
        self.vocab: dict[str, Any] = {}
        self._norm: Callable[[str], str] = str
        self.last_fit_trained = False  # True when the last `fit` trained, False on a cache hit

    # ---- subclass hooks
    def _build_vocab(self, train: Sequence[Example]) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    def _new_net(self) -> "torch.nn.Module":  # pragma: no cover
        raise NotImplementedError

    def _encode(self, examples: Sequence[Example]) -> Take:  # pragma: no cover
        raise NotImplementedError

    def _train_groups(self, rows: Sequence[Example]) -> list[Any] | None:
        """A group key per training row; rows of a group are kept in the same batch.

        None (the default) shuffles rows independently. Image models group by image so
        that a batch runs the CNN once per distinct image.
        """
        return None

    def _example_extra(self, ex: Example) -> Any:
        """Per-example extra material for the train digest (image models hash pixels)."""
        return None

    # ---- fit and the weight cache
    @property
    def train_device(self) -> str:
        """Where `fit` trains: the run's device (`setup`, called before `fit`), else the CPU."""
        return getattr(self, "device", None) or "cpu"

    def _with_device(self, key: dict[str, Any]) -> dict[str, Any]:
        """The device kind joins a key only off the CPU: CPU keys are those of before."""
        kind = device_kind(self.train_device)
        return key if kind == "cpu" else {**key, "device": kind}

    def weights_key(self, train: Sequence[Example], seed: int) -> str:
        """sha256 of (model, version, config, normalizer, torch version, train data, seed;
        the device kind when it is not the CPU)."""
        norm_name, _ = normalizer()
        return digest(self._with_device(
            {
                "model": self.name,
                "version": MODEL_VERSION,
                "config": self.fingerprint_config(),
                "normalizer": norm_name,
                "torch": package_version("torch").split("+")[0],
                "train": train_digest(train, extra=self._example_extra),
                "seed": seed,
            }
        ))

    def fit_key(self, train_fingerprint: str, seed: int) -> Any:
        """`_fit_key` (subclasses extend that one), remembered: `parameter_count` finds a
        deferred fit's count in the cache by it."""
        key = self._fit_key(train_fingerprint, seed)
        self._fit_id = digest(key)
        # Predictions (not the weights: training uses one thread) depend on the thread count,
        # as `fingerprint_extra` says; the deferred fingerprint is made of this key.
        return {**key, **threads_key(self.config["threads"])}

    def _fit_key(self, train_fingerprint: str, seed: int) -> Any:
        """Config, code, normalizer, torch version, training data and seed fix the weights
        (and the device kind when it is not the CPU)."""
        norm_name, _ = normalizer()
        return self._with_device({"model": self.name, "version": MODEL_VERSION, "config": self.fingerprint_config(),
                                  "normalizer": norm_name, "torch": package_version("torch").split("+")[0],
                                  "code": class_source_digest(type(self)), "train": train_fingerprint, "seed": seed})

    def weights_dir(self, key: str) -> Path:
        """Cache folder of the weights with this key."""
        return weight_cache.weights_dir(self.name, key)

    def fit(self, train: Sequence[Example], *, seed: int) -> None:
        """Train on `train` with `seed`, or use the weights cached for exactly that.

        Cached weights are loaded on the first prediction, not here: a re-run whose
        predictions are all cached never imports torch."""
        _, self._norm = normalizer()
        key = self.weights_key(train, seed)
        folder = self.weights_dir(key)
        self._net, self._pending, self._fit_args = None, None, (train, seed)
        fingerprint = getattr(train, "fingerprint", None)  # the harness's LazyExamples have one
        self._state_id = self._fit_id = (digest(self._fit_key(fingerprint, seed)) if isinstance(fingerprint, str)
                                         else None)
        if self._state_id is not None:
            weight_cache.record_fit(self.name, self._state_id, folder)
        if weight_cache.looks_saved(folder):
            self._pending, self._weights_key = folder, key
            self.last_fit_trained = False
            return
        self._fit_now(train, seed, key)

    def _fit_now(self, train: Sequence[Example], seed: int, key: str) -> None:
        folder = self.weights_dir(key)
        if not len(train):
            raise DataError(f"model {self.name!r}: the train split is empty")
        with reproducible_cpu(TRAINING_THREADS), training_device(self.train_device):
            self._set_vocab(self._make_vocab(train))
            net = self._train(train, seed)
            weight_cache.save_entry(folder, self.vocab, net)
            weight_cache.write_meta(folder, weight_cache.parameters_of(net))
        self.last_fit_trained = True
        net.eval()  # BatchNorm running statistics, no dropout: rows are independent
        self._net = net.to(getattr(self, "device", "cpu"))
        self._weights_key = key

    def _ensure_net(self) -> Any:
        """The network, loading cached weights on first use (trained again if unreadable)."""
        if self._net is None and self._pending is not None:
            with reproducible_cpu(self.config["threads"]), seeded(0, "cpu"):  # init then replaced: the caller's RNG stays
                net = self._load(self._pending)
            if net is None:  # unreadable after all: train again (same key, same result)
                import torch  # heavy; here the harness predicts under inference_mode: training needs grad
                self._pending = None
                with torch.inference_mode(False), torch.enable_grad():
                    self._fit_now(*self._fit_args, self._weights_key)
                return self._net
            weight_cache.write_meta(self._pending, weight_cache.parameters_of(net))  # entries cached before meta.json
            net.eval()
            self._net = net.to(getattr(self, "device", "cpu"))
            self._pending = None
        if self._net is None:
            raise not_fitted(self.name)
        return self._net

    def parameter_count(self) -> int | None:
        """Parameters of the fitted network, without loading or training anything: counted
        when it is loaded, else read from its cache entry (`meta.json`), also for a deferred
        fit that never ran (by its fit key); None when unknown (not fitted; an entry cached
        before counts were recorded and not loaded since)."""
        if self._fit_id is not None and self._fit_id != self._state_id:
            return weight_cache.count_for_fit(self.name, self._fit_id)
        if self._net is not None:
            return weight_cache.parameters_of(self._net)
        if self._pending is not None:
            return weight_cache.read_count(self._pending)
        return None

    def _make_vocab(self, train: Sequence[Example]) -> dict[str, Any]:
        answers = build_answer_vocab(train, self.config["max_answers"], self._norm)
        if not len(answers):
            raise DataError(
                f"model {self.name!r}: the train split has no labels or answers to learn"
            )
        self.answers = answers  # _build_vocab may need it
        return {"answers": list(answers.items), **self._build_vocab(train)}

    def _set_vocab(self, vocab: dict[str, Any]) -> None:
        self.vocab = vocab
        self.answers = Vocab(tuple(vocab["answers"]))

    def _load(self, folder: Path) -> Any:
        entry = weight_cache.load_entry(folder)
        if entry is None:
            return None
        try:
            self._set_vocab(entry[0])
            net = self._new_net()
            net.load_state_dict(entry[1])
        except Exception:  # a stale cache entry: train again and overwrite it
            return None
        return net

    def _targets(
        self, train: Sequence[Example]
    ) -> tuple["torch.Tensor", "torch.Tensor", "torch.Tensor"]:
        """(kept row indices, answer ids [N, M], soft scores [N, M]) of trainable rows."""
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        rows = [answer_counts(ex, self.answers, self._norm) for ex in train]
        keep = [i for i, r in enumerate(rows) if r]
        width = max(len(rows[i]) for i in keep)
        ids = torch.zeros(len(keep), width, dtype=torch.long)
        scores = torch.zeros(len(keep), width)
        for j, i in enumerate(keep):
            for k, (a, s) in enumerate(sorted(rows[i].items())):
                ids[j, k], scores[j, k] = a, s
        return torch.tensor(keep, dtype=torch.long), ids, scores

    def _train(self, train: Sequence[Example], seed: int) -> "torch.nn.Module":
        """Adam on soft-target cross entropy with a warm-up + cosine learning-rate schedule.

        Seeded weight init, dropout and shuffling (a CPU generator); the global torch RNG is
        restored after. Batches run on `train_device`; on the CPU exactly as before devices.
        """
        import torch  # heavy: torch takes seconds to import; only code that computes needs it
        import torch.nn.functional as F  # heavy: imported on use
        from tqdm.auto import tqdm  # heavy: tqdm takes about 40 ms; only progress bars need it

        cfg = self.config
        keep, ans_ids, ans_scores = self._targets(train)
        take = self._encode(train)
        n, bs = len(keep), max(1, cfg["batch_size"])
        groups = self._train_groups([train[i] for i in keep.tolist()])
        gen = torch.Generator().manual_seed(seed)
        # The whole batch plan up front: the schedule needs the exact number of steps.
        plan = [[sel for sel in _shuffled_batches(n, bs, groups, gen) if len(sel) >= 2]  # BatchNorm: 2 rows
                for _ in range(cfg["epochs"])]
        total = max(1, sum(map(len, plan)))
        warmup = max(1, total // 20)
        # True: TQDM_DISABLE set; None: tqdm hides the bar when stderr is not a terminal.
        disable = True if tqdm_disabled() else None
        device = self.train_device
        with seeded(seed, device):  # weight init and dropout; restored on exit
            net = self._new_net()
            if device_kind(device) != "cpu":
                net = net.to(device)
            opt = adam(net.parameters(), cfg["lr"])
            # A decayed final learning rate makes the last epoch's weights stable, so the
            # result does not hinge on where training happens to stop.
            sched = torch.optim.lr_scheduler.LambdaLR(
                opt,
                lambda step: (
                    min(1.0, (step + 1) / warmup)
                    * 0.5
                    * (1 + math.cos(math.pi * min(step, total) / total))
                ),
            )
            with tqdm(
                total=total, desc=f"train {self.name}", unit="step", disable=disable, leave=False
            ) as bar:
                for epoch, batches in enumerate(plan):
                    net.train()
                    for sel in batches:
                        target = torch.zeros(len(sel), len(self.answers))
                        target.scatter_add_(1, ans_ids[sel], ans_scores[sel])
                        target /= target.sum(1, keepdim=True)
                        (target,) = to_device([target], device)
                        logits = net(*to_device(take(keep[sel]), device))
                        loss = -(target * F.log_softmax(logits, dim=1)).sum(1).mean()
                        opt.zero_grad(set_to_none=True)
                        loss.backward()
                        opt.step()
                        sched.step()
                        bar.update(1)
                        bar.set_postfix(epoch=epoch + 1, loss=f"{loss.item():.3f}", refresh=False)
                    if bar.disable and disable is None and batches:  # no bar off a terminal: a line per epoch
                        print(f"train {self.name}: epoch {epoch + 1}/{len(plan)}, loss {loss.item():.3f}", flush=True)
        return net

    def fingerprint_extra(self) -> Any:
        """The weight-cache key: changes with config, train data, seed and MODEL_VERSION."""
        return {"weights": self._weights_key, **threads_key(self.config["threads"])}

    # ---- inference
    def setup(self, device: str) -> None:
        """Move the trained network (if any) to `device`."""
        self.device = device
        if self._net is not None:
            self._net = self._net.to(device)

    def log_probs(self, batch: Sequence[Example]) -> "torch.Tensor":
        """log P(answer | example) over `self.answers`, one row per example."""
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        net = self._ensure_net()
        device = getattr(self, "device", "cpu")
        with reproducible_cpu(self.config["threads"]), torch.no_grad():
            take = self._encode(batch)
            inputs = [t.to(device) for t in take(torch.arange(len(batch)))]
            return torch.log_softmax(net(*inputs).float(), dim=1).cpu()

    def answer(self, batch: Sequence[Example]) -> list[Answer]:
        """Most likely answer; `scores` holds the top-10 answer probabilities."""
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        logp = self.log_probs(batch)
        top = torch.topk(logp, k=min(TOP_K, logp.shape[1]), dim=1)
        out = []
        for vals, ids in zip(top.values.exp().tolist(), top.indices.tolist()):
            scores = {self.answers.items[i]: v for i, v in zip(ids, vals)}
            out.append(Answer(self.answers.items[ids[0]], scores))
        return out

    def score_choices(self, batch: Sequence[Example]) -> list[list[float]]:
        """log P(candidate) per choice; OUT_OF_VOCAB (-1e9) outside the answer vocabulary."""
        logp = self.log_probs(batch).tolist()
        out = []
        for ex, row in zip(batch, logp):
            ids = [self.answers.get(self._norm(c)) for c in ex.choices]
            out.append([row[i] if i is not None else OUT_OF_VOCAB for i in ids])
        return out


