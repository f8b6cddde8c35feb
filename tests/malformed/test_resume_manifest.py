"""`--resume` of a run whose manifest.json was edited or damaged: a field the resumed run
carries on with the wrong type is one line naming the file and the field, exit 3, and the
run folder is left as it was."""

from __future__ import annotations

import json

import pytest
from helpers_malformed import expect_one_line, plugin_for, run_cli

from harness.api import Task
from harness.testing import ListDataset
from harness.types import Example


class Tiny(ListDataset):
    name = "tiny"
    splits = ("val",)
    data = {"val": [Example(id=f"v{i}", question=f"Is it {i}?", answers=("yes",) * 10) for i in range(4)]}


@pytest.mark.parametrize("field, value", [("resumed", "x"), ("resumed", None), ("resumed", -1), ("resumed", True),
                                          ("usage", [1, 2]), ("usage", "abc"), ("started", 5),
                                          ("probes_done", "2"), ("probes_done", -1)])
def test_a_wrongly_typed_manifest_field_is_one_line_on_resume(capsys, tmp_path, field, value):
    plugin = plugin_for([Task("tiny", "val", ("accuracy",))], Tiny)
    argv = ["run", "--model", "const", "--suite", "bad", "--out", str(tmp_path / "runs"), "--no-leaderboard",
            "--cache", str(tmp_path / "c.sqlite"), "--device", "cpu"]
    assert run_cli(capsys, argv, plugin)[0] == 0
    [manifest] = (tmp_path / "runs").glob("*/manifest.json")
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data.update({"status": "interrupted", field: value})
    manifest.write_text(json.dumps(data), encoding="utf-8")
    before = sorted(p.name for p in manifest.parent.iterdir())
    expect_one_line(run_cli(capsys, [*argv, "--resume"], plugin), str(manifest), f"field {field!r}", code=3)
    assert json.loads(manifest.read_text(encoding="utf-8")) == data  # nothing rewritten
    assert sorted(p.name for p in manifest.parent.iterdir()) == before
    data.pop(field)  # the field removed, as the message says: the run goes on
    manifest.write_text(json.dumps(data), encoding="utf-8")
    assert run_cli(capsys, [*argv, "--resume"], plugin)[0] == 0
    assert json.loads(manifest.read_text(encoding="utf-8"))["status"] == "complete"
