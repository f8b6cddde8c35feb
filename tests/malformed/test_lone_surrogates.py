"""A JSON or YAML escape of a lone surrogate ("\\ud800": half of a UTF-16 pair) parses into
text that no UTF-8 file can hold: it used to pass the readers and fail later (a results file
whose answers broke the accuracy probe, a run with no rows marked complete; a suite label
that broke the run's digest). The readers refuse it, naming the file, row and field."""

from __future__ import annotations

import json

import pytest
from helpers_malformed import expect_one_line, plugin_for, run_bad, run_cli, write

from harness.api import Task
from harness.errors import DataError
from harness.jsonio import jsonl_records, read_json
from harness.testing import ListDataset
from harness.types import Example

LONE = "\\ud800"  # the six characters of the JSON / YAML escape


def _lone(text: str, escape: str = LONE) -> str:
    """`text` with each @ replaced by the escape."""
    return text.replace("@", escape)


class Tiny(ListDataset):
    name = "tiny"
    splits = ("val",)
    data = {"val": [Example(id=f"v{i}", question=f"Is it {i}?", answers=("yes",) * 10) for i in range(4)]}


@pytest.mark.parametrize("body, needle", [
    (_lone('{"a": {"b": "x@"}}'), "field 'a.b'"),
    (_lone('{"a": ["ok", "@"]}', "\\udfff"), "field 'a[1]'"),
    (_lone('{"@": 1}'), "lone surrogate"),
])
def test_read_json_refuses_a_lone_surrogate_with_either_parser(tmp_path, json_backend, body, needle):
    path = write(tmp_path / "f.json", body)
    with pytest.raises(DataError, match="lone surrogate") as info:
        read_json(path)
    assert str(path) in str(info.value) and needle in str(info.value)


def test_a_surrogate_pair_is_one_character_and_reads(tmp_path, json_backend):
    assert read_json(write(tmp_path / "f.json", '{"a": "\\ud83d\\ude00"}')) == {"a": "\U0001F600"}


def test_jsonl_names_the_row_and_field(tmp_path):
    path = write(tmp_path / "f.jsonl", _lone('{"id": "a", "answer": "yes"}\n{"id": "b", "answer": "@"}\n'))
    with pytest.raises(DataError, match="row 2") as info:
        list(jsonl_records(path))
    assert "field 'answer'" in str(info.value) and "lone surrogate" in str(info.value)


@pytest.mark.parametrize("name", ["p.jsonl", "p.json"])
def test_a_predictions_file_with_a_lone_surrogate_is_refused_at_load(capsys, tmp_path, json_backend, name):
    rows = [{"id": f"v{i}", "answer": "yes"} for i in range(4)]
    text = "\n".join(json.dumps(r) for r in rows) + "\n" if name.endswith("l") else json.dumps(
        [{"question_id": f"v{i}", "answer": "yes"} for i in range(4)])
    path = write(tmp_path / name, text.replace('"yes"', _lone('"@"'), 1))
    result = run_bad(capsys, tmp_path, [Task("tiny", "val", ("accuracy",))], Tiny,
                     model=f"predictions:path={path}")
    expect_one_line(result, str(path), "field", "lone surrogate", code=3)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("body, needles", [
    (_lone('name: x\ntasks:\n- {dataset: tiny, split: val, probes: [accuracy], label: "@"}\n'),
     ["tasks[0]", "field 'label'"]),
    (_lone('name: x\ndescription: "@"\ntasks:\n- {dataset: tiny, split: val, probes: [accuracy]}\n'),
     ["field 'description'"]),
    (_lone('name: x\ntasks:\n- {dataset: tiny, split: val, probes: [accuracy], "@": 1}\n'), ["tasks[0]"]),
])
def test_a_suite_file_with_a_lone_surrogate_is_one_line(capsys, tmp_path, body, needles):
    suite = write(tmp_path / "s.yaml", body)
    argv = ["run", "--model", "const", "--suite", str(suite), "--out", str(tmp_path / "runs"), "--no-leaderboard",
            "--cache", str(tmp_path / "c.sqlite"), "--device", "cpu"]
    result = run_cli(capsys, argv, plugin_for([Task("tiny", "val", ("accuracy",))], Tiny))
    expect_one_line(result, str(suite), *needles, "lone surrogate", code=2)
    assert not (tmp_path / "runs").exists()
