"""MLP-A, MLP-QA, MLP-IA, MLP-IQA: the multiple-choice probes of Chao et al. 2018 (supp. A.1, A.4).

One hidden layer over the concatenation of l2-normalized features of the Image, the
Question and a candidate Answer (each model uses its subset), batch norm before ReLU,
dropout 0.5 after it, one logit per candidate. Training minimizes the binary logistic loss
of "is this candidate the target" over the target and 3 decoys per triplet, 100 triplets
per mini-batch (SGD with momentum 0.9, the learning rate divided by 10 after two thirds of
the epochs). As in supplementary A.4, the 3 decoys of a triplet come from ONE of the decoy
sets that make up its variant, chosen at random per triplet and epoch (IoU or QoU for
IoU+QoU; Orig, IoU or QoU for All; 3 drawn at random from a larger set, e.g. VQA's 17 Orig
decoys); an example without decoy sets in meta samples 3 of its `choices`. At test time
the runner's argmax over `score_choices` picks the answer.

Features come from feature-extractor plugins (`register_features`, harness.api.FeatureExtractor;
`harness list features`):
- `text_features` (question and answer): `hashed-bow` (default; hashed unigrams + bigrams,
  integers 0-10 spelled out as in A.1, l2-normalized; stands in for the paper's averaged
  word2vec) or `sentence` (the local MiniLM);
- `image_features`: `toy-objects` (default; object and attribute presence read from
  toyvqa's pixels, the toy analogue of detector features), `toy-pixels`, `hf-vision:path=...`
  (a local vision model), or a `.npz` / `.npy` file (= `precomputed:file=...`). A blanked
  image (harness.types.BLANK_IMAGE) is encoded by the extractor (zero vector for all but
  `toy-pixels`, which sees the gray image).
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from harness.api import Model, Option
from harness.digest import digest
from harness.errors import DataError, UsageError
from harness.features import resolve_features
from harness.types import Example
from vqa_harness_plugins.generators.decoys.variants import variant_parts

from .runtime import TRAINING_THREADS, reproducible_cpu, seeded, threads_key
from .sizes import SizedModel, Sizes
from .text import train_digest
from .training import TRAINER_OPTIONS

__all__ = ["MLPModel", "MLPA", "MLPQA", "MLPIA", "MLPIQA", "training_decoys"]

DECOYS_PER_TRIPLET = 3
TRIPLETS_PER_BATCH = 100


def _l2_rows(arr: Any) -> np.ndarray:
    """Each row scaled to unit length (zero rows stay zero), float32: A.1's l2-normalized features."""
    arr = np.asarray(arr, dtype=np.float32)
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    return np.divide(arr, norms, out=np.zeros_like(arr), where=norms > 0)


def _target(ex: Example) -> str:
    return str(ex.meta.get("mc_target") or ex.label)


def training_decoys(ex: Example, rng: np.random.Generator, k: int = DECOYS_PER_TRIPLET) -> list[str]:
    """Up to k decoys of one training triplet, from one of its variant's decoy sets (A.4).

    The set is drawn uniformly among the variant's non-empty parts (meta `mc_variant` and
    `decoys`); k decoys are drawn from it without replacement, in choice order. Without
    that metadata, k of the example's other `choices`.
    """
    target = _target(ex)
    in_choices = set(ex.choices) - {target}
    sets = ex.meta.get("decoys") if isinstance(ex.meta.get("decoys"), dict) else None
    parts = variant_parts(str(ex.meta.get("mc_variant", ""))) if sets else ()
    members = [set(sets.get(p, ())) & in_choices for p in parts]
    pools = [[c for c in ex.choices if c in m] for m in members]
    pools = [p for p in pools if p]
    pool = pools[int(rng.integers(len(pools)))] if pools else [c for c in ex.choices if c != target]
    pick = rng.choice(len(pool), size=min(k, len(pool)), replace=False)
    return [pool[j] for j in sorted(pick)]


class MLPModel(SizedModel, Model):
    """Shared implementation; subclasses choose the modalities."""

    modalities: ClassVar[tuple[str, ...]] = ("a",)
    # The paper's size by default, as before the `sizes` option (docs/decoys.md's figures).
    size_presets = Sizes(toy={"hidden": 1024}, paper={"hidden": 8192}, source="Chao et al. 2018 A.1",
                         default="paper")
    options: ClassVar[Mapping[str, Option]] = size_presets.options({
        "hidden": Option(8192, "hidden units", min=1, max=65_536),
        "epochs": Option(12, "passes over the training triplets", min=1, max=1000),
        "lr": Option(0.01, "initial SGD learning rate (momentum 0.9)", min=0.0, max=10.0),
        "text_features": Option("hashed-bow", "text feature extractor for question and answer "
                                "(hashed-bow[:dim=N], sentence)"),
        "image_features": Option("toy-objects", "image feature extractor (toy-objects, toy-pixels, "
                                 "'hf-vision:path=DIR', ...) or a .npz / .npy file keyed by image id"),
        "threads": TRAINER_OPTIONS["threads"],
    })

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.net = None
        self._trained: str | None = None
        self._extractors: dict[str, Any] = {}

    @property
    def uses_images(self) -> bool:  # type: ignore[override]
        """True when the model decodes image files (not for MLP-A/QA or precomputed features),
        so the run checks the files exist before training."""
        return "i" in self.modalities and self._extractor("image").reads_image_files

    # ----------------------------------------------------------------- features
    def _extractor(self, modality: str) -> Any:
        ext = self._extractors.get(modality)
        if ext is None:
            spec = self.config["image_features" if modality == "image" else "text_features"]
            resolve = self.feature_resolver or resolve_features  # outside a run: the process's plugins
            ext = self._extractors[modality] = resolve(spec, modality, owner=f"model {self.name!r}")
        return ext

    def _text(self, texts: Sequence[str]) -> np.ndarray:
        return _l2_rows(self._extractor("text").encode(list(texts)))

    def check_images(self, examples: Sequence[Example]) -> None:
        """DataError (count and examples) for images the image extractor cannot encode."""
        if "i" in self.modalities:
            self._extractor("image").check(examples)

    def check_examples(self, examples: Sequence[Example]) -> None:
        """Every example of an evaluated split, before a probe runs: an image id missing from
        a precomputed feature file stops the run with one line instead of scoring 0."""
        self.check_images(examples)

    def _contexts(self, examples: Sequence[Example]) -> np.ndarray:
        """[N, D] image and/or question features of each example (D = 0 for MLP-A)."""
        parts = []
        if "i" in self.modalities:
            parts.append(_l2_rows(self._extractor("image").encode(list(examples))))
        if "q" in self.modalities:
            parts.append(self._text([ex.question for ex in examples]))
        return np.concatenate(parts, axis=1) if parts else np.zeros((len(examples), 0), np.float32)

    def _answer_table(self, examples: Sequence[Example]) -> dict[str, np.ndarray]:
        """Text features of every distinct candidate, encoded in one extractor call."""
        texts = sorted({c for ex in examples for c in ex.choices})
        return dict(zip(texts, self._text(texts))) if texts else {}

    @staticmethod
    def _rows(ctx: np.ndarray, answers: Sequence[str], table: Mapping[str, np.ndarray]) -> np.ndarray:
        ans = np.stack([table[a] for a in answers])
        return np.concatenate([np.broadcast_to(ctx, (len(answers), ctx.shape[0])), ans], axis=1)

    # ----------------------------------------------------------------- training
    def fit(self, train: Sequence[Example], *, seed: int) -> None:
        """Binary logistic loss over target + 3 decoys of one decoy set per triplet (A.4)."""
        with reproducible_cpu(TRAINING_THREADS), seeded(seed, "cpu"):  # weight init, dropout; restored after
            self._fit(train, seed)

    def _fit(self, train: Sequence[Example], seed: int) -> None:
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        usable = [ex for ex in train if len(ex.choices) >= 2 and _target(ex) in ex.choices]
        if not usable:
            raise DataError(f"model {self.name!r}: no training example has `choices` containing its target "
                            "(train on a multiple-choice dataset, e.g. toyvqa-mc)")
        self.check_images(usable)
        rng = np.random.default_rng(seed)
        ctx = self._contexts(usable)
        answers = self._answer_table(usable)
        width = ctx.shape[1] + next(iter(answers.values())).shape[0]
        hidden = int(self.config["hidden"])
        net = torch.nn.Sequential(
            torch.nn.Linear(width, hidden), torch.nn.BatchNorm1d(hidden), torch.nn.ReLU(),
            torch.nn.Dropout(0.5), torch.nn.Linear(hidden, 1),
        )
        epochs = int(self.config["epochs"])
        opt = torch.optim.SGD(net.parameters(), lr=float(self.config["lr"]), momentum=0.9)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=max(1, (2 * epochs) // 3), gamma=0.1)
        loss_fn = torch.nn.BCEWithLogitsLoss()
        net.train()
        for _ in range(epochs):
            order = rng.permutation(len(usable))
            for b in range(0, len(order), TRIPLETS_PER_BATCH):
                xs, ys = [], []
                for i in order[b : b + TRIPLETS_PER_BATCH]:
                    cands = [_target(usable[i])] + training_decoys(usable[i], rng)
                    xs.append(self._rows(ctx[i], cands, answers))
                    ys.extend([1.0] + [0.0] * (len(cands) - 1))
                x = torch.from_numpy(np.concatenate(xs))
                y = torch.tensor(ys, dtype=torch.float32)
                if len(y) < 2:
                    continue  # BatchNorm needs more than one row
                opt.zero_grad()
                loss = loss_fn(net(x).squeeze(1), y)
                loss.backward()
                opt.step()
            sched.step()
        net.eval()
        self.net = net
        self._trained = digest({"train": train_digest(usable, extra=lambda e: list(e.choices)), "seed": seed})

    def parameter_count(self) -> int | None:
        """Parameters of the trained MLP (None before `fit`; it is never cached, so always known after)."""
        return None if self.net is None else int(sum(p.numel() for p in self.net.parameters()))

    def fingerprint_extra(self) -> Any:
        return {"trained": self._trained, "modalities": self.modalities, **threads_key(int(self.config["threads"])),
                "features": {m: self._extractor(m).fingerprint() for m in ("image", "text")
                             if m == "text" or "i" in self.modalities}}

    # ---------------------------------------------------------------- inference
    def score_choices(self, batch: Sequence[Example]) -> list[list[float]]:
        """One logit per candidate (higher: more likely the target)."""
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        if self.net is None:
            raise UsageError(f"model {self.name!r} is trainable and has not been trained: it needs a train split "
                             "(a suite task with `train`, or call fit(train, seed=...) first)")
        self.check_images(batch)
        ctx = self._contexts(batch)
        answers = self._answer_table(batch)
        out = []
        with reproducible_cpu(int(self.config["threads"])), torch.no_grad():
            for ex, c in zip(batch, ctx):
                if not ex.choices:
                    out.append([])
                    continue
                x = torch.from_numpy(np.ascontiguousarray(self._rows(c, ex.choices, answers)))
                out.append([float(v) for v in self.net(x).squeeze(1)])
        return out


class MLPA(MLPModel):
    name = "mlp-a"
    description = "MLP over the candidate answer only (Chao 2018 MLP-A)"
    modalities = ("a",)
    inputs = frozenset({"choices"})


class MLPQA(MLPModel):
    name = "mlp-qa"
    description = "MLP over question + candidate answer (Chao 2018 MLP-QA)"
    modalities = ("q", "a")
    inputs = frozenset({"question", "choices"})


class MLPIA(MLPModel):
    name = "mlp-ia"
    description = "MLP over image + candidate answer (Chao 2018 MLP-IA)"
    modalities = ("i", "a")
    inputs = frozenset({"image", "choices"})


class MLPIQA(MLPModel):
    name = "mlp-iqa"
    description = "MLP over image + question + candidate answer (Chao 2018 MLP-IQA)"
    modalities = ("i", "q", "a")
    inputs = frozenset({"image", "question", "choices"})
