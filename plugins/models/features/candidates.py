"""Image features for counter-example candidates (Goyal et al. 2017, §5), shared by the
counter-example probe and the counter-example explainer model.

Two sources, chosen by the counter-example probe's `features` option:

- built-in `pixels` (default): deterministic and offline. The image decoded as RGB,
  downsampled to 8x8 (192 values in [0, 1]) and a 4x4x4 colour histogram of a 32x32
  downsample (64 shares); adequate for the toy world, crude for photographs.
- a precomputed file keyed by image id: `.npz` with arrays `ids` and `features`; `.npy`
  (a 2-D array) with a sidecar `<stem>.ids.json` or `<file>.ids.json` (a JSON list of
  image ids, row order); `.h5`/`.hdf5` with datasets `ids` and `features` (needs h5py).
  Read through `vqa_harness_plugins.models.features.files`, like the `precomputed` extractor's files.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from harness.errors import DataError, ResourceError
from harness.images import load_image
from harness.seeding import seeded_random

from .files import (
    check_array_file,
    check_ids,
    ids_sidecar,
    load_npy,
    npz_array,
    numeric,
    open_npz,
    read_ids,
    reason,
)

__all__ = ["BUILTIN", "builtin_features", "load_feature_file", "nearest_candidates", "rank",
           "question_rng"]

BUILTIN = "pixels"


def _pixels(path: str) -> np.ndarray:
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
    """image id -> feature vector (float64) from a precomputed `.npz` (arrays `ids` and
    `features`), `.npy` (+ `<stem>.ids.json` or `<file>.ids.json`) or `.h5` file.

    Read through the checked feature-file reader (`vqa_harness_plugins.models.features.files`), as the
    `precomputed` extractor's files are: a damaged or truncated file, pickled objects,
    string or non-finite features, a bad id list and rows that do not match the ids are
    one-line DataErrors naming the file and the array or row."""
    path = check_array_file(path, "image feature file", (".npz", ".npy", ".h5", ".hdf5"))
    suffix = path.suffix.lower()
    if suffix == ".npz":
        with open_npz(path) as data:
            missing = [k for k in ("ids", "features") if k not in data.files]
            if missing:
                raise DataError(f"{path}: expected arrays 'ids' and 'features', got "
                                f"{', '.join(repr(k) for k in data.files) or 'no array'}")
            ids = check_ids(npz_array(data, "ids", path, "array 'ids'"), path, "ids")
            feats = npz_array(data, "features", path, "array 'features'")
        where, ids_name = "array 'features'", "array 'ids'"
    elif suffix == ".npy":
        sidecar = ids_sidecar(path)
        ids = read_ids(sidecar, f"the image ids of {path.name}: a JSON list, one id per row")
        feats = load_npy(path)
        where, ids_name = "features", sidecar.name
    else:
        ids, feats = _read_h5(path)
        where, ids_name = "dataset 'features'", "dataset 'ids'"
    feats = numeric(feats, path, where, ndims=(2,))
    if feats.shape[0] != len(ids):
        raise DataError(f"{path}: {where}: expected {len(ids)} rows (one per id in {ids_name}), "
                        f"got shape {tuple(feats.shape)}")
    feats = np.asarray(feats, dtype=np.float64)
    return {i: feats[n] for n, i in enumerate(ids)}


def _read_h5(path: Path) -> tuple[list[str], np.ndarray]:
    try:
        import h5py  # heavy: optional, HDF5 feature files only
    except ImportError:
        raise ResourceError(f"{path}: reading .h5 features needs h5py (pip install h5py)") from None
    try:
        with h5py.File(path, "r") as fh:
            missing = [k for k in ("ids", "features") if k not in fh]
            if missing:
                raise DataError(f"{path}: expected datasets 'ids' and 'features', missing {', '.join(missing)}")
            ids = check_ids([i.decode() if isinstance(i, bytes) else i for i in np.asarray(fh["ids"][()]).tolist()],
                            path, "ids")
            return ids, np.asarray(fh["features"][()])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(f"{path}: not a valid HDF5 feature file ({reason(exc)})") from None


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
