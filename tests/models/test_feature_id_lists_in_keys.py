"""A `.npy` feature file's image-id list (`<stem>.ids.json`) says which row is which image:
reordering it gives every image another vector, so it is part of every cache key built on
the file: the `precomputed` extractor's fingerprint, a grid file's, and the counter-example
model's neighbour features (review finding 4)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest


def _files(tmp_path: Path, ndim: int = 2) -> tuple[Path, Path]:
    shape = (4, 3) if ndim == 2 else (4, 2, 3)
    npy = tmp_path / "f.npy"
    np.save(npy, np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 1)
    ids = tmp_path / "f.ids.json"
    ids.write_text(json.dumps(["100", "101", "102", "103"]))
    return npy, ids


def _reverse(ids: Path) -> None:
    """The same ids in reverse order: same size, a later edit."""
    size, stamp = ids.stat().st_size, ids.stat().st_mtime_ns
    ids.write_text(json.dumps(list(reversed(json.loads(ids.read_text())))))
    os.utime(ids, ns=(stamp + 10**9, stamp + 10**9))
    assert ids.stat().st_size == size


def test_precomputed_fingerprint_follows_the_id_list(tmp_path):
    from vqa_harness_plugins.models.features.precomputed import PrecomputedFeatures

    npy, ids = _files(tmp_path)
    before = PrecomputedFeatures(file=str(npy)).fingerprint()
    _reverse(ids)
    assert PrecomputedFeatures(file=str(npy)).fingerprint() != before


def test_grid_file_fingerprint_follows_the_id_list(tmp_path):
    from vqa_harness_plugins.models.grid_features import GridFeatures

    npy, ids = _files(tmp_path, ndim=3)
    before = GridFeatures(str(npy), owner="m").fingerprint()
    _reverse(ids)
    assert GridFeatures(str(npy), owner="m").fingerprint() != before


@pytest.mark.parametrize("edit", ["ids", "features resized, same mtime"])
def test_counterexample_neighbour_key_follows_the_files(tmp_path, edit):
    from vqa_harness_plugins.models.counterexample import CounterExampleExplainer

    npy, ids = _files(tmp_path)
    before = CounterExampleExplainer(neighbour_features=str(npy))._neighbour_source()
    if edit == "ids":
        _reverse(ids)
    else:  # the mtime alone was stamped before; the size is now too
        stamp = npy.stat().st_mtime_ns
        np.save(npy, np.zeros((5, 3), np.float32))
        os.utime(npy, ns=(stamp, stamp))
    assert CounterExampleExplainer(neighbour_features=str(npy))._neighbour_source() != before
