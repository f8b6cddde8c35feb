"""Malformed human-evaluation CSVs and nle artifacts through `harness nle import`: one line
naming the file, the row and the field, exit 3, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_malformed import expect_one_line, run_cli, write

HEADER = "item,example_id,image_id,image,question,answer,explanation,annotator,rating," \
         "untrue_to_image,lack_of_justification,nonsensical\n"
ROW = "{k},e{k},i{k},,Is it red?,yes,it is red,ann,{rating},,x,\n"
GOOD = HEADER + "".join(ROW.format(k=k, rating=r) for k, r in ((1, "yes"), (2, "weak no"), (3, "no")))


def _run(root: Path, *, meta: dict | bytes | None = None, records: str | None = None) -> Path:
    folder = root / "run" / "artifacts" / "nle"
    m = meta if meta is not None else {"dataset": "d", "split": "val", "s_t": 0.8, "model": "m", "run_id": "r"}
    write(folder / "d-val.meta.json", m if isinstance(m, bytes) else json.dumps(m))
    recs = records if records is not None else "".join(
        json.dumps({"id": f"e{k}", "image_id": f"i{k}", "correct": True, "explanation": "it is red",
                    "scores": {"bleu4": 0.1 * k}}) + "\n" for k in range(1, 4))
    write(folder / "d-val.jsonl", recs)
    return root / "run"


CSV_CASES = [
    ("not UTF-8", HEADER.encode() + b"1,e1,i1,,Est-ce rouge \xe0 ?,oui,c,ann,yes,,,\n", ["not UTF-8", "line 2"]),
    ("missing column", GOOD.replace(",rating,", ",score,", 1), ["row 0 (header)", "missing column(s) rating"]),
    ("unknown rating", GOOD.replace("weak no", "maybe"), ["row 2", "field 'rating'", "'maybe' is not one of"]),
    ("unknown example", GOOD.replace("e3,", "e99,"), ["row 3", "field 'example_id'", "'e99'"]),
    ("rated twice", GOOD + ROW.format(k=1, rating="no"), ["row 4", "field 'annotator'", "already rated 'e1'"]),
    ("bad mark", GOOD.replace(",x,", ",?,", 1), ["row 1", "field 'lack_of_justification'", "not a mark"]),
    ("extra field", GOOD + "4,e1,i1,,q,a,e,other,yes,,,,surplus\n", ["row 4", "13 fields, the header has 12"]),
    ("unterminated quote", GOOD + '4,e1,i1,,"q,a,e,other,yes,,,\n', ["row 4", "not valid CSV"]),
    ("NUL byte", GOOD.replace("it is red", "it is\x00red", 1), ["NUL byte at line 2"]),
    ("empty file", "", ["empty file"]),
    ("header only", HEADER, ["no ratings found"]),
]


@pytest.mark.parametrize("name, body, needles", CSV_CASES, ids=[c[0] for c in CSV_CASES])
def test_malformed_rating_csv(capsys, tmp_path, name, body, needles):
    run = _run(tmp_path)
    filled = write(tmp_path / "filled.csv", body)
    expect_one_line(run_cli(capsys, ["nle", "import", str(run), str(filled)]), str(filled), *needles)


def test_a_good_csv_imports(capsys, tmp_path):
    run = _run(tmp_path)
    filled = write(tmp_path / "filled.csv", GOOD)
    code, out, err = run_cli(capsys, ["nle", "import", str(run), str(filled)])
    assert code == 0 and "Traceback" not in err, err
    assert json.loads((run / "artifacts" / "nle" / "d-val.human.json").read_text())["n_ratings"] == 3


@pytest.mark.parametrize("meta, records, needles", [
    (b'{"dataset": "\xff"}', None, ["d-val.meta.json", "not UTF-8"]),
    ({"dataset": "d", "split": "val"}, None, ["d-val.meta.json", "field 's_t': missing"]),
    ({"dataset": "d", "split": "val", "s_t": "high"}, None, ["d-val.meta.json", "field 's_t'", "expected a number"]),
    (None, '{"id": "e1"}\n[1, 2]\n', ["d-val.jsonl", "row 2", "expected an object, got list"]),
    (None, '{"id": "e1"}\n{"explanation": "x"}\n', ["d-val.jsonl", "row 2", "field 'id': missing"]),
    (None, '{"id": "e1"}\n{"id": "e2", "sc', ["d-val.jsonl", "row 2", "truncated JSON line"]),
], ids=["meta not UTF-8", "meta without s_t", "s_t a string", "record a list", "record without id", "truncated"])
def test_malformed_nle_artifacts(capsys, tmp_path, meta, records, needles):
    run = _run(tmp_path, meta=meta, records=records)
    filled = write(tmp_path / "filled.csv", GOOD)
    expect_one_line(run_cli(capsys, ["nle", "import", str(run), str(filled)]), *needles)


def test_append_results_checks_the_runs_rows_before_rewriting_them(capsys, tmp_path):
    run = _run(tmp_path)
    results = write(run / "results.jsonl", '{"metric": "s_t", "value": "high", "n": 3}\n')
    filled = write(tmp_path / "filled.csv", GOOD)
    expect_one_line(run_cli(capsys, ["nle", "import", str(run), str(filled), "--append-results"]),
                    str(results), "row 1", "field 'value'", "expected a number")
    assert results.read_text() == '{"metric": "s_t", "value": "high", "n": 3}\n'  # untouched


def test_unwritable_out_is_refused_before_reading(capsys, tmp_path):
    run = _run(tmp_path)
    filled = write(tmp_path / "filled.csv", GOOD)
    expect_one_line(run_cli(capsys, ["nle", "import", str(run), str(filled), "--out", "/proc/x/h.json"]),
                    "/proc/x", "cannot be created or written", code=2)


@pytest.mark.parametrize("target", ["artifacts/nle/d-val.jsonl", "artifacts/nle/d-val.meta.json", "results.jsonl",
                                    "manifest.json", "artifacts/nle/new.json", "predictions/d/val/p/v.jsonl"])
def test_out_inside_the_run_is_refused_and_nothing_is_overwritten(capsys, tmp_path, target):
    run = _run(tmp_path)
    write(run / "results.jsonl", '{"metric": "s_t"}\n')
    write(run / "manifest.json", '{"run_id": "r"}')
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    filled = write(tmp_path / "filled.csv", GOOD)
    out = run / target
    for cmd in (["import", str(run), str(filled)], ["sample", str(run)]):
        expect_one_line(run_cli(capsys, ["nle", *cmd, "--out", str(out)]), f"--out {out}",
                        "is inside the run folder", "leave --out out", code=2)
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


def test_out_naming_an_input_csv_is_refused_and_the_default_is_allowed(capsys, tmp_path):
    run = _run(tmp_path)
    filled = write(tmp_path / "filled.csv", GOOD)
    expect_one_line(run_cli(capsys, ["nle", "import", str(run), str(filled), "--out", str(filled)]),
                    f"--out {filled} is one of the input files", code=2)
    assert filled.read_text() == GOOD
    default = run / "artifacts" / "nle" / "d-val.human.json"
    code, out, err = run_cli(capsys, ["nle", "import", str(run), str(filled), "--out", str(default)])
    assert code == 0 and json.loads(default.read_text())["n_ratings"] == 3, err


def test_out_through_a_link_loop_or_a_broken_link_is_one_line(capsys, tmp_path):
    run = _run(tmp_path)
    filled = write(tmp_path / "filled.csv", GOOD)
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "broken").symlink_to(tmp_path / "nowhere")
    for out, needle in ((tmp_path / "loop" / "h.json", "symbolic link loop"),
                        (tmp_path / "broken" / "h.json", "broken symbolic link")):
        for cmd in (["import", str(run), str(filled)], ["sample", str(run)]):
            expect_one_line(run_cli(capsys, ["nle", *cmd, "--out", str(out)]), "--out", needle, code=2)
