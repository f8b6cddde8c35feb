"""Image features for counter-example candidates (Goyal et al. 2017, §5).

Two sources, chosen by the counter-example probe's `features` option:

- built-in `pixels` (default): deterministic and offline. The image decoded as RGB,
  downsampled to 8x8 (192 values in [0, 1]) and a 4x4x4 colour histogram of a 32x32
  downsample (64 shares); adequate for the toy world, crude for photographs.
- a precomputed file keyed by image id: `.npz` with arrays `ids` and `features`; `.npy`
  (a 2-D array) with a sidecar `<file>.ids.json` (a JSON list of image ids, row order);
  `.h5`/`.hdf5` with datasets `ids` and `features` (needs h5py).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from harness.errors import DataError, ResourceError
from harness.seeding import seeded_random

__all__ = ["BUILTIN", "builtin_features", "load_feature_file", "nearest_candidates", "rank",
           "question_rng"]

BUILTIN = "pixels"


def _pixels(path: str) -> np.ndarray:
    from harness.images import load_image

    small = np.asarray(load_image(path, size=(8, 8)), dtype=np.float64).reshape(-1) / 255.0
    mid = np.asarray(load_image(path, size=(32, 32)), dtype=np.int64).reshape(-1, 3) // 64
    bins = np.bincount(mid[:, 0] * 16 + mid[:, 1] * 4 + mid[:, 2], minlength=64) / mid.shape[0]
    return np.concatenate([small, bins.astype(np.float64)])


def builtin_features(images: Mapping[str, str]) -> tuple[dict[str, np.ndarray], list[str]]:
    """image id -> `pixels` feature vector, and the image paths that could not be read."""
    feats, missing = {}, []
    for image_id, path in images.items():
        if not path or not Path(path).is_file():
            missing.append(path or f"(no path for image {image_id})")
            continue
        try:
            feats[image_id] = _pixels(path)
        except DataError:
            missing.append(path)
    return feats, missing


def load_feature_file(path: Path) -> dict[str, np.ndarray]:
    """image id -> feature vector from a precomputed `.npz`/`.npy`(+ids)/`.h5` file."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"image feature file not found: {path}")
    suffix = path.suffix.lower()
    try:
        if suffix == ".npz":
            with np.load(path, allow_pickle=False) as data:
                if "ids" not in data or "features" not in data:
                    raise DataError(f"{path}: expected arrays 'ids' and 'features'")
                ids, feats = data["ids"], data["features"]
        elif suffix == ".npy":
            sidecar = path.with_name(path.name + ".ids.json")
            if not sidecar.is_file():
                raise DataError(f"{path}: needs {sidecar} (a JSON list of image ids in row order)")
            feats = np.load(path, allow_pickle=False)
            ids = json.loads(sidecar.read_text())
        elif suffix in (".h5", ".hdf5"):
            try:
                import h5py
            except ImportError:
                raise ResourceError(f"{path}: reading .h5 features needs h5py (pip install h5py)") from None
            with h5py.File(path, "r") as fh:
                ids = [i.decode() if isinstance(i, bytes) else i for i in fh["ids"][()]]
                feats = np.asarray(fh["features"][()])
        else:
            raise DataError(f"{path}: unknown feature file type (use .npz, .npy with .ids.json, or .h5)")
    except (ValueError, OSError, KeyError) as exc:
        raise DataError(f"{path}: cannot read image features ({exc})") from None
    feats = np.asarray(feats, dtype=np.float64)
    if feats.ndim != 2 or len(ids) != feats.shape[0]:
        raise DataError(f"{path}: features must be a 2-D array with one row per id "
                        f"(got shape {feats.shape} for {len(ids)} ids)")
    return {str(i): feats[n] for n, i in enumerate(ids)}


def question_rng(seed: int, key: str) -> random.Random:
    """A per-question random stream (SHA-256 derived; `hash()` is salted per process)."""
    return seeded_random(seed, key)


def nearest_candidates(query: str, complement: str, ids: Sequence[str], matrix: np.ndarray, k: int
                       ) -> tuple[list[str], dict[str, float]]:
    """The complement plus the k-1 images nearest to `query` (Euclidean; ties by id order),
    excluding the query and the complement; and each candidate's distance to the query."""
    pos = {i: n for n, i in enumerate(ids)}
    dist = np.sqrt(((matrix - matrix[pos[query]]) ** 2).sum(axis=1))
    order = np.argsort(dist, kind="stable")
    near = [ids[n] for n in order if ids[n] not in (query, complement)][: k - 1]
    cands = [complement, *near]
    return cands, {c: float(dist[pos[c]]) for c in cands}


def rank(candidates: Sequence[str], key: Mapping[str, float] | None, rng: random.Random) -> list[str]:
    """Candidates shuffled by `rng`, then stably sorted by ascending `key` (None: random
    order). The shuffle first means ties never favour the complement's position."""
    order = list(candidates)
    rng.shuffle(order)
    if key is None:
        return order
    return sorted(order, key=lambda c: key[c])
