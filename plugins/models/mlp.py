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

Features (deterministic, built without any download):
- question / answer text: hashed bag of words (lower case, integers 0-10 spelled out as
  in A.1; unigrams and bigrams; CRC32 buckets, `text_dim` wide), l2-normalized. This
  stands in for the paper's averaged word2vec.
- image (`image_features`): `toy-objects` (default; object and attribute presence read
  from toyvqa's pixels, the toy analogue of detector features), `toy-pixels` (8x8 pixels +
  color histogram), both in toy_features.py; or a precomputed `.npz` (one array per image
  id) / `.npy` with a sidecar `.ids.json` (list of image ids, one per row). A blanked image
  (harness.types.BLANK_IMAGE) is the zero vector for `toy-objects` and precomputed
  features and the gray image for `toy-pixels`.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from harness.api import Model, Option
from harness.decoys.variants import variant_parts
from harness.errors import DataError, UsageError
from harness.hookspecs import hookimpl
from harness.types import BLANK_IMAGE, Example

from .toy_features import l2 as _l2
from .toy_features import toy_object_features, toy_pixel_features

__all__ = ["MLPModel", "MLPA", "MLPQA", "MLPIA", "MLPIQA", "text_features", "training_decoys", "register_models"]

DECOYS_PER_TRIPLET = 3
TRIPLETS_PER_BATCH = 100


def text_features(text: str, dim: int) -> np.ndarray:
    """Hashed bag of unigrams and bigrams, l2-normalized (zeros for empty text)."""
    from harness.decoys.similarity import question_tokens

    toks = question_tokens(text)
    grams = toks + [f"{a} {b}" for a, b in zip(toks, toks[1:])]
    vec = np.zeros(dim, dtype=np.float32)
    for g in grams:
        vec[zlib.crc32(g.encode()) % dim] += 1.0
    return _l2(vec)


def _target(ex: Example) -> str:
    return str(ex.meta.get("mc_target") or ex.label)


TOY_FEATURES = {"toy-objects": toy_object_features, "toy-pixels": toy_pixel_features}


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
    pools = [[c for c in ex.choices if c in set(sets.get(p, ())) and c in in_choices] for p in parts]
    pools = [p for p in pools if p]
    pool = pools[int(rng.integers(len(pools)))] if pools else [c for c in ex.choices if c != target]
    pick = rng.choice(len(pool), size=min(k, len(pool)), replace=False)
    return [pool[j] for j in sorted(pick)]


class MLPModel(Model):
    """Shared implementation; subclasses choose the modalities."""

    modalities: ClassVar[tuple[str, ...]] = ("a",)
    options: ClassVar[Mapping[str, Option]] = {
        "hidden": Option(8192, "hidden units (the paper: 8,192)"),
        "epochs": Option(12, "passes over the training triplets"),
        "lr": Option(0.01, "initial SGD learning rate (momentum 0.9)"),
        "text_dim": Option(512, "hashed text feature width"),
        "image_features": Option("toy-objects", "toy-objects (objects read from toyvqa pixels), toy-pixels, "
                                 "or a .npz / .npy file keyed by image id"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.net = None
        self._trained: str | None = None
        self._text_cache: dict[str, np.ndarray] = {}
        self._image_cache: dict[str, np.ndarray] = {}
        self._precomputed: dict[str, np.ndarray] | None = None

    # ----------------------------------------------------------------- features
    def _text(self, text: str) -> np.ndarray:
        vec = self._text_cache.get(text)
        if vec is None:
            vec = self._text_cache[text] = text_features(text, int(self.config["text_dim"]))
        return vec

    def _load_precomputed(self) -> dict[str, np.ndarray]:
        if self._precomputed is None:
            path = Path(self.config["image_features"])
            if not path.is_file():
                raise DataError(f"model {self.name!r}: image_features file not found: {path}")
            if path.suffix == ".npz":
                with np.load(path, allow_pickle=False) as data:
                    self._precomputed = {k: _l2(np.asarray(data[k], np.float32).reshape(-1)) for k in data.files}
            elif path.suffix == ".npy":
                ids_path = path.with_suffix(".ids.json")
                try:
                    ids = [str(i) for i in json.loads(ids_path.read_text(encoding="utf-8"))]
                except (OSError, ValueError) as exc:
                    raise DataError(f"{ids_path}: the image-id list of {path.name} is missing or bad ({exc})") from None
                arr = np.load(path, allow_pickle=False)
                if arr.ndim != 2 or arr.shape[0] != len(ids):
                    raise DataError(f"{path}: expected {len(ids)} rows (one per id in {ids_path.name}), got shape {arr.shape}")
                self._precomputed = {i: _l2(np.asarray(r, np.float32)) for i, r in zip(ids, arr)}
            else:
                raise UsageError(f"model {self.name!r}: image_features must be toy-objects, toy-pixels, "
                                 "a .npz or a .npy file")
        return self._precomputed

    def check_images(self, examples: Sequence[Example]) -> None:
        """DataError (count and examples) for image ids absent from the precomputed file."""
        if "i" not in self.modalities or self.config["image_features"] in TOY_FEATURES:
            return
        table = self._load_precomputed()
        unknown = sorted({ex.image_id for ex in examples if ex.image != BLANK_IMAGE and ex.image_id not in table})
        if unknown:
            raise DataError(f"{self.config['image_features']}: {len(unknown)} unknown image id(s) "
                            f"(e.g. {', '.join(unknown[:5])})")

    def _image(self, ex: Example) -> np.ndarray:
        extractor = TOY_FEATURES.get(self.config["image_features"])
        if extractor is not None:
            key = ex.image
            vec = self._image_cache.get(key)
            if vec is None:
                vec = self._image_cache[key] = extractor(ex.image)
            return vec
        table = self._load_precomputed()
        if ex.image == BLANK_IMAGE:
            return np.zeros_like(next(iter(table.values())))
        return table[ex.image_id]

    def _context(self, ex: Example) -> np.ndarray:
        parts = []
        if "i" in self.modalities:
            parts.append(self._image(ex))
        if "q" in self.modalities:
            parts.append(self._text(ex.question))
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)

    def _rows(self, ctx: np.ndarray, answers: Sequence[str]) -> np.ndarray:
        return np.stack([np.concatenate([ctx, self._text(a)]) for a in answers])

    # ----------------------------------------------------------------- training
    def fit(self, train: Sequence[Example], *, seed: int) -> None:
        """Binary logistic loss over target + 3 decoys of one decoy set per triplet (A.4)."""
        import torch

        from ._text import digest, train_digest

        usable = [ex for ex in train if len(ex.choices) >= 2 and _target(ex) in ex.choices]
        if not usable:
            raise DataError(f"model {self.name!r}: no training example has `choices` containing its target "
                            "(train on a multiple-choice dataset, e.g. toyvqa-mc)")
        self.check_images(usable)
        rng = np.random.default_rng(seed)
        torch.manual_seed(seed)
        ctx = [self._context(ex) for ex in usable]
        width = len(ctx[0]) + int(self.config["text_dim"])
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
                    xs.append(self._rows(ctx[i], cands))
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

    def fingerprint_extra(self) -> Any:
        return {"trained": self._trained, "modalities": self.modalities}

    # ---------------------------------------------------------------- inference
    def score_choices(self, batch: Sequence[Example]) -> list[list[float]]:
        """One logit per candidate (higher: more likely the target)."""
        import torch

        if self.net is None:
            raise UsageError(f"model {self.name!r} is trainable and has not been trained: it needs a train split "
                             "(a suite task with `train`, or call fit(train, seed=...) first)")
        self.check_images(batch)
        out = []
        with torch.no_grad():
            for ex in batch:
                if not ex.choices:
                    out.append([])
                    continue
                x = torch.from_numpy(self._rows(self._context(ex), ex.choices))
                out.append([float(v) for v in self.net(x).squeeze(1)])
        return out


class MLPA(MLPModel):
    name = "mlp-a"
    description = "MLP over the candidate answer only (Chao 2018 MLP-A)"
    modalities = ("a",)


class MLPQA(MLPModel):
    name = "mlp-qa"
    description = "MLP over question + candidate answer (Chao 2018 MLP-QA)"
    modalities = ("q", "a")


class MLPIA(MLPModel):
    name = "mlp-ia"
    description = "MLP over image + candidate answer (Chao 2018 MLP-IA)"
    modalities = ("i", "a")


class MLPIQA(MLPModel):
    name = "mlp-iqa"
    description = "MLP over image + question + candidate answer (Chao 2018 MLP-IQA)"
    modalities = ("i", "q", "a")


@hookimpl
def register_models(register) -> None:
    """Register MLP-A, MLP-QA, MLP-IA, MLP-IQA."""
    for cls in (MLPA, MLPQA, MLPIA, MLPIQA):
        register(cls)
