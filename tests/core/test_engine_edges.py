"""Engine edge cases a rewrite must keep (a trim of harness/ once lost each of them): a damaged
stored example without an id is rebuilt, not a traceback; a data folder no path can hold is
not "under" anything; `ProbeFiles` names a variant's prediction file."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from harness.cache.artifacts import ArtifactStore
from harness.data.origin import dataset_provenance
from harness.rundir import ProbeFiles
from harness.types import Example


def test_a_damaged_stored_example_without_an_id_is_rebuilt_not_a_traceback(tmp_path):
    """`Example.from_row` reads `id` first, as before the trim: a stored row without one is a
    KeyError, which the artifact store takes for a damaged entry and rebuilds. The trim read
    the list fields first, so a row `{"answers": 3}` raised TypeError out of the run."""
    store = ArtifactStore(tmp_path)
    built = [Example(id="q1", question="what?")]
    assert store.examples("toy-examples", {"k": 1}, lambda: built) == built
    [stored] = (tmp_path / "toy-examples").rglob("examples.jsonl")
    stored.write_text('{"answers": 3}\n')
    assert ArtifactStore(tmp_path).examples("toy-examples", {"k": 1}, lambda: built) == built
    with pytest.raises(KeyError):
        Example.from_row({"answers": 3, "choices": 4})


def test_provenance_of_a_data_dir_that_is_no_path_is_not_an_error(tmp_path):
    """A file is not "under --data-dir" when the folder cannot be resolved (a name with a NUL
    byte: ValueError from `Path.resolve`); the trim let that ValueError out of the manifest."""
    shipped = tmp_path / "q.json"
    shipped.write_text("{}")
    plugin = SimpleNamespace(name="d", data_dir="/a\0b", expected_files=lambda split: [shipped])
    entry = SimpleNamespace(plugin="p", distribution="dist 1")
    record = dataset_provenance(plugin, entry, ["val"])
    assert record["files_from"] == [] and Path(shipped).is_file()


def test_probe_files_still_name_a_variant_s_prediction_file(tmp_path):
    """`ProbeFiles.predictions(variant)`, a public method of a class in `harness.rundir.__all__`,
    was removed by the trim (its one caller inlined it)."""
    files = ProbeFiles(tmp_path / "p", tmp_path / "a")
    assert files.predictions("") == tmp_path / "p" / "default.jsonl"
    assert files.write_predictions("gray image", [{"a": 1}]) == files.predictions("gray image")
