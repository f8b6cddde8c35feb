"""The parameter count of a torch model is known without loading its network: from its cache
entry (`meta.json`), also for a deferred fit that never ran, so a fully cached re-run records
the same count in manifest.json as the run that trained."""

from __future__ import annotations

import pytest
from helpers_grid import scenes, write_grids
from helpers_run import run_tiny, tiny

from harness.data.session import LazyExamples
from vqa_harness_plugins.models import weight_cache
from vqa_harness_plugins.models.coattention import HieCoAttModel
from vqa_harness_plugins.models.qonly import QOnlyModel


def _no_network(monkeypatch: pytest.MonkeyPatch, cls: type) -> None:
    """Any training or loading of `cls`'s network fails the test."""
    def fail(*args, **kwargs):
        raise AssertionError("the network was trained or loaded")

    monkeypatch.setattr(cls, "_fit_now", fail)
    monkeypatch.setattr(cls, "_load", fail)


def test_a_fully_cached_rerun_records_the_same_parameter_count(tmp_path, fresh_cache, monkeypatch) -> None:
    first = run_tiny(tmp_path)
    counts = first["parameter_count"]
    assert list(counts) == ["tiny/train"] and counts["tiny/train"] > 0
    trained = QOnlyModel(epochs=2, hidden=8)
    trained.fit(tiny(30, "t"), seed=0)
    assert counts["tiny/train"] == sum(p.numel() for p in trained._ensure_net().parameters())
    # Every probe output restored: the model is never fitted, nothing is loaded.
    _no_network(monkeypatch, QOnlyModel)
    again = run_tiny(tmp_path)
    stats = again["stats"]
    assert stats["probe_outputs_reused"] and stats["model_calls"] == stats["example_errors"] == 0
    assert again["parameter_count"] == counts


def test_the_count_comes_from_the_cache_entry_and_stays_unknown_when_it_is(tmp_path, fresh_cache,
                                                                           monkeypatch) -> None:
    train, grids = scenes(24, seed=0, prefix="t")
    options = {"hidden": 8, "embed": 4, "epochs": 1, "batch_size": 8, "grid": write_grids(tmp_path / "g.npz", grids)}
    rows = LazyExamples("train-v1", lambda: train)
    model = HieCoAttModel(**options)
    assert model.parameter_count() is None  # not fitted
    model.fit(rows, seed=0)
    count = model.parameter_count()
    assert count == weight_cache.parameters_of(model._ensure_net()) > 0
    # Another instance: a deferred fit (only its key) and a cache hit that was not loaded.
    deferred = HieCoAttModel(**options)
    deferred.fit_key(rows.fingerprint, 0)
    with monkeypatch.context() as mp:
        _no_network(mp, HieCoAttModel)
        assert deferred.parameter_count() == count
        hit = HieCoAttModel(**options)
        hit.fit(rows, seed=0)
        assert not hit.last_fit_trained and hit.parameter_count() == count
    # Truly unknown: other training data never fitted, another seed, other sizes.
    assert deferred.fit_key("train-v2", 0) and deferred.parameter_count() is None
    assert deferred.fit_key(rows.fingerprint, 1) and deferred.parameter_count() is None
    bigger = HieCoAttModel(**{**options, "hidden": 16})
    bigger.fit_key(rows.fingerprint, 0)
    assert bigger.parameter_count() is None
    # A deferred fit for new data after a loaded one: the new data's count, not the old network's.
    model.fit_key("train-v2", 0)
    assert model.parameter_count() is None
    model.fit_key(rows.fingerprint, 0)
    assert model.parameter_count() == count


def test_an_entry_cached_before_counts_learns_its_count_when_loaded(tmp_path, fresh_cache) -> None:
    rows = LazyExamples("tiny-v1", lambda: tiny(30, "t"))
    QOnlyModel(epochs=1, hidden=8).fit(rows, seed=0)
    model = QOnlyModel(epochs=1, hidden=8)
    folder = model.weights_dir(model.weights_key(rows, 0))
    (folder / "meta.json").unlink()  # as cached before meta.json existed
    model.fit(rows, seed=0)
    assert model.parameter_count() is None  # pending, not loaded: unknown without loading
    model.answer(tiny(2, "v"))  # loads the weights
    assert model.parameter_count() == weight_cache.read_count(folder) > 0
    again = QOnlyModel(epochs=1, hidden=8)
    again.fit_key(rows.fingerprint, 0)
    assert again.parameter_count() == weight_cache.read_count(folder)


def test_damaged_metadata_is_unknown_not_an_error(tmp_path, fresh_cache) -> None:
    rows = LazyExamples("tiny-v1", lambda: tiny(30, "t"))
    model = QOnlyModel(epochs=1, hidden=8)
    model.fit(rows, seed=0)
    folder = model.weights_dir(model.weights_key(rows, 0))
    (folder / "meta.json").write_text("{not json")
    other = QOnlyModel(epochs=1, hidden=8)
    other.fit_key(rows.fingerprint, 0)
    assert other.parameter_count() is None
    fit_file = next((folder.parent / "fits").iterdir())
    fit_file.write_text('{"weights": "../elsewhere"}')
    assert weight_cache.count_for_fit(model.name, other._fit_id) is None
