"""A manifest or tables.json of an unknown `schema_version` is refused or reported, never
read as if this harness knew it (issue 26, finding 9)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.api import Model
from harness.errors import DataError
from harness.rundir import RunDir
from harness.testing import dataset_plugin, hookimpl, make_host, run_in_process
from harness.types import Example
from vqa_harness_leaderboard import collect


class Red(Model):
    name = "schema-red"

    def answer(self, batch):
        return ["red" for _ in batch]


class Plugin:
    @hookimpl
    def register_models(self, register):
        register(Red)


@pytest.fixture
def run_folder(tmp_path: Path) -> Path:
    data = dataset_plugin("schema-data", {"val": [Example(f"q{i}", "what?", answers=("red",) * 10)
                                                  for i in range(3)]}, suite="schema-suite")
    host = make_host(Plugin(), data, builtins=True, names=["schema-model", "schema-data"])
    out = run_in_process(host, model="schema-red", suite="schema-suite", tmp_path=tmp_path)
    manifest = json.loads((out.rundir.path / "manifest.json").read_text())
    assert manifest["schema_version"] == 1
    return out.rundir.path


def _set_version(path: Path, version: object) -> None:
    data = json.loads(path.read_text())
    data["schema_version"] = version
    path.write_text(json.dumps(data))


def test_a_manifest_of_an_unknown_schema_is_refused(run_folder: Path) -> None:
    _set_version(run_folder / "manifest.json", 99)
    with pytest.raises(DataError, match=r"manifest.json: unknown schema_version 99 \(this vqa-harness reads 1"):
        RunDir(run_folder).read_manifest()
    found = collect([run_folder.parent])
    assert found.runs == [] and found.rows == []
    assert any("unknown schema_version 99" in p and "run skipped" in p for p in found.problems)


def test_tables_of_an_unknown_schema_are_reported(run_folder: Path) -> None:
    _set_version(run_folder / "tables.json", 99)
    found = collect([run_folder.parent])
    assert len(found.runs) == 1 and found.runs[0].layouts == {}
    assert any("tables.json: unknown schema_version 99" in p for p in found.problems)


def test_a_manifest_written_before_the_field_is_version_1(run_folder: Path) -> None:
    data = json.loads((run_folder / "manifest.json").read_text())
    del data["schema_version"]
    (run_folder / "manifest.json").write_text(json.dumps(data))
    assert RunDir(run_folder).read_manifest()["run_id"] == data["run_id"]
    assert len(collect([run_folder.parent]).runs) == 1
