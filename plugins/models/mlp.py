"""MLP-A, MLP-QA, MLP-IA, MLP-IQA: the multiple-choice probes of Chao et al. 2018 (supp. A.1, A.4).

One hidden layer over the concatenation of l2-normalized features of the Image, the
Question and a candidate Answer (each model uses its subset), batch norm before ReLU,
dropout 0.5 after it, one logit per candidate. Training minimizes the binary logistic loss
of "is this candidate the target" over the target and up to 3 decoys sampled from the
example's `choices` per triplet (100 triplets per mini-batch, SGD with momentum 0.9, the
learning rate divided by 10 after two thirds of the epochs). At test time the runner's
argmax over `score_choices` picks the answer.

Features (deterministic, built without any download):
- question / answer text: hashed bag of words (lower case, integers 0-10 spelled out as
  in A.1; unigrams and bigrams; CRC32 buckets, `text_dim` wide), l2-normalized. This
  stands in for the paper's averaged word2vec.
- image: `image_features=toy` (default), a small deterministic extractor: the image
  resized to 8x8 RGB pixels (192 values) plus a 4x4x4 colour histogram (64 bins);
  or a precomputed `.npz` (one array per image id) / `.npy` with a sidecar `.ids.json`
  (list of image ids, one per row). A blanked image (harness.types.BLANK_IMAGE) is the
  gray image for `toy` and the zero vector for precomputed features.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from harness.api import Model, Option
from harness.errors import DataError, UsageError
from harness.hookspecs import hookimpl
from harness.types import BLANK_IMAGE, Example

__all__ = ["MLPModel", "MLPA", "MLPQA", "MLPIA", "MLPIQA", "text_features", "toy_image_features", "register_models"]

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


def toy_image_features(path: str) -> np.ndarray:
    """8x8 RGB pixels + 4x4x4 colour histogram of the image, l2-normalized (256 values)."""
    from harness.images import load_image

    im = load_image(path)
    small = np.asarray(im.resize((8, 8)), dtype=np.float32).reshape(-1) / 255.0
    px = np.asarray(im, dtype=np.int64).reshape(-1, 3) // 64
    hist = np.bincount(px[:, 0] * 16 + px[:, 1] * 4 + px[:, 2], minlength=64).astype(np.float32)
    hist /= max(float(hist.sum()), 1.0)
    return _l2(np.concatenate([small, hist]))


def _l2(vec: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(vec))
    return vec / n if n > 0 else vec


def _target(ex: Example) -> str:
    return str(ex.meta.get("mc_target") or ex.label)


class MLPModel(Model):
    """Shared implementation; subclasses choose the modalities."""

    modalities: ClassVar[tuple[str, ...]] = ("a",)
    options: ClassVar[Mapping[str, Option]] = {
        "hidden": Option(8192, "hidden units (the paper: 8,192)"),
        "epochs": Option(12, "passes over the training triplets"),
        "lr": Option(0.01, "initial SGD learning rate (momentum 0.9)"),
        "text_dim": Option(512, "hashed text feature width"),
        "image_features": Option("toy", "toy (pixels + colour histogram) or a .npz / .npy file keyed by image id"),
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
                raise UsageError(f"model {self.name!r}: image_features must be 'toy', a .npz or a .npy file")
        return self._precomputed

    def check_images(self, examples: Sequence[Example]) -> None:
        """DataError (count and examples) for image ids absent from the precomputed file."""
        if "i" not in self.modalities or self.config["image_features"] == "toy":
            return
        table = self._load_precomputed()
        unknown = sorted({ex.image_id for ex in examples if ex.image != BLANK_IMAGE and ex.image_id not in table})
        if unknown:
            raise DataError(f"{self.config['image_features']}: {len(unknown)} unknown image id(s) "
                            f"(e.g. {', '.join(unknown[:5])})")

    def _image(self, ex: Example) -> np.ndarray:
        if self.config["image_features"] == "toy":
            key = ex.image
            vec = self._image_cache.get(key)
            if vec is None:
                vec = self._image_cache[key] = toy_image_features(ex.image)
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
        """Binary logistic loss over target + up to 3 sampled decoys per triplet."""
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
                    ex, target = usable[i], _target(usable[i])
                    decoys = [c for c in ex.choices if c != target]
                    pick = rng.choice(len(decoys), size=min(DECOYS_PER_TRIPLET, len(decoys)), replace=False)
                    cands = [target] + [decoys[j] for j in sorted(pick)]
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
