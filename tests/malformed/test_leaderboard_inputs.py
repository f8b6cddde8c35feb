"""Malformed run folders through `harness leaderboard build`: a bad result row is skipped
with one warning line on screen naming the file, the line and the field; the good rows
are still published (nothing computed is lost); no traceback. Also: user text is escaped
in index.md, and runs with failed examples are marked beside their rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_malformed import expect_one_line, run_cli, write

from harness.project import SCHEMA_VERSION


def _row(model: str = "m1", **over) -> dict:
    row = {"schema_version": SCHEMA_VERSION, "run_id": f"20250101-000000-{model}", "model": model, "suite": "s",
           "dataset": "d", "split": "val", "probe": "accuracy", "variant": "", "metric": "vqa_accuracy",
           "value": 0.5, "n": 10, "ci_low": None, "ci_high": None, "higher_is_better": True, "unit": "fraction",
           "train": ""}
    row.update(over)
    return row


def _run_folder(root: Path, model: str, lines: list[str] | bytes, manifest: dict | None = None) -> Path:
    folder = root / f"20250101-000000-{model}"
    body = lines if isinstance(lines, bytes) else "".join(line + "\n" for line in lines)
    write(folder / "results.jsonl", body)
    write(folder / "manifest.json", json.dumps({"run_id": folder.name, "model": model, "suite": "s",
                                                "status": "complete", **(manifest or {})}))
    return folder


GOOD = json.dumps(_row())
BAD_ROWS = [
    ("value a string", json.dumps(_row(value="abc")), "field 'value' must be a number"),
    ("value NaN", json.dumps(_row()).replace('"value": 0.5', '"value": NaN'), "NaN is not a valid value"),
    ("value 1e309", json.dumps(_row()).replace('"value": 0.5', '"value": 1e309'), "field 'value' must be finite"),
    ("no metric", json.dumps({k: v for k, v in _row().items() if k != "metric"}), "missing field(s) metric"),
    ("empty metric", json.dumps(_row(metric="")), "field 'metric' is empty"),
    ("a list", json.dumps([1, 2]), "expected a JSON object, got list"),
    ("n negative", json.dumps(_row(n=-1)), "field 'n' must be a non-negative integer"),
    ("n bool", json.dumps(_row(n=True)), "field 'n' must be a non-negative integer"),
    ("unknown unit", json.dumps(_row(unit="percent")), "field 'unit' must be one of"),
    ("train null", json.dumps(_row(train=None)), "field 'train' must be a string, got null"),
    ("train a list", json.dumps(_row(train=["a"])), "field 'train' must be a string"),
    ("schema version", json.dumps(_row(schema_version=99)), "unknown schema_version 99"),
    ("not JSON", "{oops", "not JSON"),
]


@pytest.mark.parametrize("name, line, problem", BAD_ROWS, ids=[c[0] for c in BAD_ROWS])
def test_a_bad_row_is_skipped_with_one_warning_and_the_rest_is_published(capsys, tmp_path, name, line, problem):
    run = _run_folder(tmp_path / "runs", "m1", [GOOD, line, json.dumps(_row(metric="vqa_accuracy/other"))])
    code, out, err = run_cli(capsys, ["leaderboard", "build", str(tmp_path / "runs"), "--out", str(tmp_path / "lb")])
    assert code == 0 and "Traceback" not in out + err, err
    warnings = [w for w in err.splitlines() if w.strip()]
    assert len(warnings) == 1 and warnings[0].startswith("warning: 1 result row(s) or file(s) skipped"), err
    assert f"{run / 'results.jsonl'}:2" in warnings[0] and problem in warnings[0]
    published = json.loads((tmp_path / "lb" / "results.json").read_text())
    assert [r["metric"] for r in published] == ["vqa_accuracy", "vqa_accuracy/other"]  # nothing lost
    csv = (tmp_path / "lb" / "results.csv").read_text()
    assert "nan" not in csv.lower() and "inf" not in csv.lower()
    assert problem in (tmp_path / "lb" / "problems.txt").read_text()


def test_a_run_named_twice_two_ways_is_read_once(capsys, tmp_path, monkeypatch):
    _run_folder(tmp_path / "runs", "m1", [GOOD])
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, ["leaderboard", "build", "runs", str(tmp_path / "runs"), "--out", "lb"])
    assert code == 0, err
    assert len(json.loads((tmp_path / "lb" / "results.json").read_text())) == 1


def test_a_truncated_last_line_is_reported_as_such(capsys, tmp_path):
    run = _run_folder(tmp_path / "runs", "m1", b"")
    (run / "results.jsonl").write_text(GOOD + "\n" + GOOD[:40], encoding="utf-8")
    code, out, err = run_cli(capsys, ["leaderboard", "build", str(tmp_path / "runs"), "--out", str(tmp_path / "lb")])
    assert code == 0 and "Traceback" not in err
    assert "results.jsonl:2: truncated (the run may have been interrupted)" in err


def test_non_utf8_results_and_manifest_are_one_warning_each(capsys, tmp_path):
    _run_folder(tmp_path / "runs", "m1", (GOOD + "\n").encode() + b'{"model": "caf\xe9"}\n')
    bad = _run_folder(tmp_path / "runs", "m2", [json.dumps(_row("m2"))])
    (bad / "manifest.json").write_bytes(b'{"model": "\xff"}')
    good = _run_folder(tmp_path / "runs", "m3", [json.dumps(_row("m3"))])
    code, out, err = run_cli(capsys, ["leaderboard", "build", str(tmp_path / "runs"), "--out", str(tmp_path / "lb")])
    assert code == 0 and "Traceback" not in out + err, err
    assert len([w for w in err.splitlines() if w.strip()]) == 1 and "2 result row(s) or file(s) skipped" in err
    problems = (tmp_path / "lb" / "problems.txt").read_text()
    assert "not UTF-8 text (byte" in problems and "manifest.json: not UTF-8 text" in problems
    # m1's readable row is kept: one bad byte costs its line, not the run
    assert [r["model"] for r in json.loads((tmp_path / "lb" / "results.json").read_text())] == ["m1", "m3"]
    assert good.name in (tmp_path / "lb" / "index.md").read_text()


@pytest.mark.parametrize("field, value", [("resources", ["x"]), ("versions", "x"), ("stats", 5), ("argv", 5),
                                          ("plugin_failures", 5)])
def test_a_manifest_field_of_the_wrong_shape_is_left_out_with_a_problem_line(capsys, tmp_path, field, value):
    run = _run_folder(tmp_path / "runs", "m1", [GOOD], manifest={field: value})
    write(run / "artifacts" / "nle" / "records.jsonl", b'{"a": 1}\n\xff\xfe{"a": 2}\n')  # not UTF-8
    write(run / "tables.json", json.dumps({"schema_version": 1, "layouts": {}, "tags": [], "displays": 5}))
    for argv in (["leaderboard", "build", str(tmp_path / "runs"), "--out", str(tmp_path / "lb")],
                 ["report", str(run), "--out", str(tmp_path / "rep")]):
        code, out, err = run_cli(capsys, argv)
        assert code == 0 and "Traceback" not in out + err, err
    problems = (tmp_path / "lb" / "problems.txt").read_text()
    assert f"field {field!r} must be" in problems and "field 'displays' must be an object" in problems


def test_user_text_is_escaped_in_index_md(capsys, tmp_path):
    payload = "<script>alert(1)</script>"
    _run_folder(tmp_path / "runs", "evil", [json.dumps({**_row("evil"), "model": payload, "variant": f"a|b {payload}"})])
    code, out, err = run_cli(capsys, ["leaderboard", "build", str(tmp_path / "runs"), "--out", str(tmp_path / "lb")])
    assert code == 0, err
    index_md = (tmp_path / "lb" / "index.md").read_text()
    index_html = (tmp_path / "lb" / "index.html").read_text()
    assert payload not in index_md and "&lt;script&gt;" in index_md
    assert payload not in index_html


def test_runs_with_failed_examples_are_marked_beside_their_rows(capsys, tmp_path):
    _run_folder(tmp_path / "runs", "m1", [GOOD], {"stats": {"example_errors": 3}})
    _run_folder(tmp_path / "runs", "m2", [json.dumps(_row("m2", value=0.7))], {"stats": {"example_errors": 0}})
    code, out, err = run_cli(capsys, ["leaderboard", "build", str(tmp_path / "runs"), "--out", str(tmp_path / "lb")])
    assert code == 0, err
    index_md = (tmp_path / "lb" / "index.md").read_text()
    table = [line for line in index_md.splitlines() if line.startswith("| ")]
    header = next(line for line in table if "failed examples" in line and "model" in line and "run" not in line)
    cells = [c.strip() for c in header.strip("|").split("|")]
    col = cells.index("failed examples")
    rows = {line.strip("|").split("|")[0].strip(): [c.strip() for c in line.strip("|").split("|")] for line in table}
    assert rows["m1"][col] == "3" and rows["m2"][col] == ""
    assert "## Runs" in index_md
    runs = [line for line in table if line.startswith("| 20250101")]
    assert any("m1" in r and r.rstrip(" |").endswith("3") for r in runs)
    assert any("m2" in r and r.rstrip(" |").endswith("0") for r in runs)
    html = (tmp_path / "lb" / "index.html").read_text()
    runs_section = html[html.index('id="runs"'):]
    assert "failed examples</th>" in runs_section
    m1_row = next(r for r in runs_section.split("<tr") if "20250101-000000-m1<" in r)
    assert ">3</td>" in m1_row


def test_a_file_instead_of_a_run_folder_is_one_line(capsys, tmp_path):
    run = _run_folder(tmp_path / "runs", "m1", [GOOD])
    result = run_cli(capsys, ["leaderboard", "build", str(run / "results.jsonl"), "--out", str(tmp_path / "lb")])
    code, out, err = result
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert lines[0] == f"error: {run / 'results.jsonl'}: is a file, expected a run folder or a folder of runs"
    assert not (tmp_path / "lb").exists()


def test_a_results_jsonl_folder_is_warned_about(capsys, tmp_path):
    _run_folder(tmp_path / "runs", "m1", [GOOD])
    odd = tmp_path / "runs" / "20250101-000000-m2"
    (odd / "results.jsonl").mkdir(parents=True)
    code, out, err = run_cli(capsys, ["leaderboard", "build", str(tmp_path / "runs"), "--out", str(tmp_path / "lb")])
    warnings = [w for w in err.splitlines() if w.strip()]
    assert code == 0 and len(warnings) == 1, err
    assert f"{odd / 'results.jsonl'}: is a folder, expected a file (run skipped)" in warnings[0]
    assert [r["model"] for r in json.loads((tmp_path / "lb" / "results.json").read_text())] == ["m1"]


def test_compare_names_a_results_file_that_is_not_utf8(capsys, tmp_path):
    good = _run_folder(tmp_path / "runs", "m1", [GOOD])
    bad = _run_folder(tmp_path / "runs", "m2", b'{"model": "caf\xe9"}\n')
    code, out, err = run_cli(capsys, ["compare", str(good), str(bad)])
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 3 and len(lines) == 1 and "Traceback" not in err, err
    assert f"{bad / 'results.jsonl'}:1: not UTF-8 text (byte 14 of the line" in lines[0]
    # with a readable row beside it, the comparison goes on and says what it skipped
    bad = _run_folder(tmp_path / "runs2", "m2", b'{"model": "caf\xe9"}\n' + (GOOD + "\n").encode())
    code, out, err = run_cli(capsys, ["compare", str(good), str(bad)])
    assert "Traceback" not in err and f"note: run B: 1 problem(s) reading it, e.g. {bad / 'results.jsonl'}:1: not UTF-8" in err


def test_rows_of_schema_version_1_are_still_read():
    from vqa_harness_leaderboard.runs import validate_row

    assert validate_row(_row(schema_version=1)) == ""
    assert validate_row(_row(schema_version=2, higher_is_better=None)) == ""
    assert "unknown schema_version True" in validate_row(_row(schema_version=True))


def test_bad_report_and_compare_options_are_one_line(capsys, tmp_path):
    run = _run_folder(tmp_path / "runs", "m1", [GOOD])
    write(tmp_path / "a-file", "x")
    for argv, needle in ((["compare", str(run), str(run), "--seed", "-1"], "--seed"),
                         (["report", str(run), "--out", str(tmp_path / "a-file" / "sub")], "--out")):
        code, out, err = run_cli(capsys, argv)
        lines = [line for line in err.splitlines() if line.strip()]
        assert code == 2 and "Traceback" not in out + err and len(lines) == 1 and needle in lines[0], err


def test_a_lone_surrogate_in_a_row_or_a_manifest_is_a_problem_line_not_a_traceback(capsys, tmp_path):
    """`"\\ud800"` is valid JSON but no UTF-8 page can hold it: the row (or the run, for its
    manifest) is skipped with the field named; `harness report` says it in one line."""
    _run_folder(tmp_path / "runs", "m1", [GOOD, json.dumps(_row(variant="x\ud800"))])
    bad = _run_folder(tmp_path / "runs", "m2", [json.dumps(_row("m2"))], manifest={"model": "m\ud800"})
    code, out, err = run_cli(capsys, ["leaderboard", "build", str(tmp_path / "runs"), "--out", str(tmp_path / "lb")])
    assert code == 0 and "Traceback" not in out + err, err
    problems = (tmp_path / "lb" / "problems.txt").read_text()
    assert "results.jsonl:2: field 'variant' holds a lone surrogate" in problems
    assert "manifest.json: field 'model' holds a lone surrogate" in problems
    assert [r["model"] for r in json.loads((tmp_path / "lb" / "results.json").read_text())] == ["m1"]
    expect_one_line(run_cli(capsys, ["report", str(bad), "--out", str(tmp_path / "rep")]),
                    "manifest.json: field 'model' holds a lone surrogate")


@pytest.mark.parametrize("broken", ["manifest", "rows"])
def test_runs_of_which_nothing_can_be_read_keep_the_leaderboard_already_built(capsys, tmp_path, broken):
    """Run folders that are all unreadable (a broken manifest.json, or no readable row) replaced
    a built leaderboard with an empty 'No runs found yet' one, exit 0; now one line, exit 3."""
    _run_folder(tmp_path / "good", "m1", [GOOD])
    lb = tmp_path / "lb"
    assert run_cli(capsys, ["leaderboard", "build", str(tmp_path / "good"), "--out", str(lb)])[0] == 0
    before = {p: p.read_bytes() for p in lb.rglob("*") if p.is_file()}
    bad = _run_folder(tmp_path / "bad", "m2", ["{not json"] if broken == "rows" else [GOOD])
    if broken == "manifest":
        write(bad / "manifest.json", '{"run_id": ')
    result = run_cli(capsys, ["leaderboard", "build", str(tmp_path / "bad"), "--out", str(lb)])
    expect_one_line(result, "nothing published", str(bad / ("results.jsonl" if broken == "rows" else "manifest.json")),
                    code=3)
    assert {p: p.read_bytes() for p in lb.rglob("*") if p.is_file()} == before
