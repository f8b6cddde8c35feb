"""Results files are checked like the official tools: an id the evaluated data does not have
is an error by default (or counted with `unknown=count`); a missing one stays a model error
(issue 26, finding 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import DataError, ExitCode
from harness.testing import dataset_plugin, make_host, run_in_process
from harness.types import Example

EXAMPLES = [Example(f"q{i}", f"what color {i}?", answers=("red",) * 10) for i in range(6)]


@pytest.fixture(scope="module")
def host():
    return make_host(dataset_plugin("ids-data", {"val": EXAMPLES}, suite="ids-suite"), builtins=True,
                     names=["ids-data"])


def _file(tmp_path: Path, ids: list[str]) -> Path:
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps({"id": i, "answer": "red"}) + "\n" for i in ids))
    return path


def test_an_unknown_id_is_an_error_naming_file_and_id(host, tmp_path) -> None:
    path = _file(tmp_path, [f"q{i}" for i in range(6)] + ["q99"])
    with pytest.raises(DataError) as err:
        run_in_process(host, model=f"predictions:path={path}", suite="ids-suite", tmp_path=tmp_path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{path}: id q99 is not an example of the data")
    assert not (tmp_path / "runs").exists()  # refused before a run folder exists


def test_unknown_count_scores_the_file_and_counts_them(host, tmp_path) -> None:
    path = _file(tmp_path, [f"q{i}" for i in range(6)] + ["q99", "q98"])
    out = run_in_process(host, model=f"predictions:path={path},unknown=count", suite="ids-suite", tmp_path=tmp_path)
    assert out.exit_code == ExitCode.OK
    assert [r.value for r in out.rows if r.metric == "vqa_accuracy"] == [1.0]
    report = (out.rundir.path / "report.md").read_text()
    assert "2 id(s) in the file that the evaluated data does not have** (first: q99, q98)" in report


def test_ids_beyond_limit_are_known_and_missing_ones_are_model_errors(host, tmp_path) -> None:
    path = _file(tmp_path, [f"q{i}" for i in range(1, 6)])  # q0 missing
    out = run_in_process(host, model=f"predictions:path={path}", suite="ids-suite", tmp_path=tmp_path, limit=3)
    assert out.exit_code == ExitCode.PARTIAL and out.example_errors == 1
    (acc,) = [r for r in out.rows if r.metric == "vqa_accuracy"]
    assert (acc.value, acc.n) == (pytest.approx(2 / 3), 3)  # the missing question scores 0, stays counted
