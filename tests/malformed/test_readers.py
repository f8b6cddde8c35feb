"""The validation layer itself (vqa_harness_plugins.validation, harness.jsonio, Option bounds): every
class of bad input gives the same one-line message with or without orjson."""

from __future__ import annotations

import math

import pytest
from helpers_malformed import write

from harness.errors import DataError, UsageError
from harness.jsonio import jsonl_records, read_json
from harness.options import Configurable, Option
from vqa_harness_plugins.validation import (
    Field,
    Tally,
    check_id,
    check_index,
    check_number,
    check_record,
    csv_rows,
    read_text,
)


@pytest.mark.parametrize("body, message", [
    (b'{"a": [{"answer_id": NaN}]}', "line 1 column 22: field 'answer_id': NaN is not a valid JSON number"),
    (b'{"a": -Infinity}', "line 1 column 7: field 'a': -Infinity is not a valid JSON number"),
    (b'{"a":\n  {"b": 1e400}}', "line 2 column 9: field 'b': 1e400 is too large for a number"),
    (b'[1, 2', "line 1 column 6: truncated JSON"),
    (b'{"a": "unterminated', "truncated JSON"),
    (b'{"a": 1,}', "line 1 column 9: malformed JSON (Expecting property name enclosed in double quotes)"),
    (b'{"a": "\xc3\x28"}', "not UTF-8 text (byte 7, line 1"),
    (b"", "empty file (expected JSON)"),
    (b"  \n", "empty file (expected JSON)"),
], ids=["NaN", "-Infinity", "overflow", "truncated", "unterminated string", "trailing comma", "bad UTF-8",
        "empty", "blank"])
def test_json_errors_are_the_same_with_and_without_orjson(tmp_path, json_backend, body, message):
    f = write(tmp_path / "x.json", body)
    with pytest.raises(DataError) as err:
        read_json(f)
    assert str(err.value).startswith(f"{f}: ") and message in str(err.value) and "\n" not in str(err.value)


def test_json_accepts_a_byte_order_mark_and_big_ids(tmp_path, json_backend):
    f = write(tmp_path / "x.json", b'\xef\xbb\xbf{"id": 18446744073709551616}')
    value = read_json(f)["id"]
    with pytest.raises(DataError, match="out of range"):
        check_id(value if isinstance(value, int) else int(value), f, "row 1", "id")


def test_duplicate_keys(tmp_path):
    f = write(tmp_path / "x.json", '{"k": 1, "k": 2, "o": {"a": 1, "a": 2}}')
    assert read_json(f) == {"k": 2, "o": {"a": 2}}  # what json.loads does: the last one wins
    with pytest.raises(DataError, match="duplicated key 'a' in one JSON object"):
        read_json(f, duplicate_keys="error")
    data = read_json(f, duplicate_keys="record")
    assert data == {"k": 1, "o": {"a": 1}} and data.duplicates == ("k",) and data["o"].duplicates == ("a",)


def test_missing_folder_and_unreadable_files(tmp_path):
    with pytest.raises(DataError, match=r"^missing file: .*nope.json \(the hint\)$"):
        read_json(tmp_path / "nope.json", "the hint")
    with pytest.raises(DataError, match="is a folder, expected a file"):
        read_text(tmp_path)


def test_jsonl_rows(tmp_path):
    f = write(tmp_path / "x.jsonl", '{"a": 1}\n\n[2]\n')
    assert list(jsonl_records(f)) == [(1, {"a": 1}), (3, [2])]
    write(f, '{"a": 1}\n{"a": Infinity}\n')
    with pytest.raises(DataError, match=r"row 2: not valid JSON \(column 7: field 'a': Infinity"):
        list(jsonl_records(f))


def test_csv_rows(tmp_path):
    f = write(tmp_path / "x.csv", "\ufeffa,b\n1,2\n3,4\n")
    assert list(csv_rows(f, ("a", "b"))) == [(1, {"a": "1", "b": "2"}), (2, {"a": "3", "b": "4"})]
    write(f, 'a,b\n1,"2"x\n')
    with pytest.raises(DataError, match="row 1: not valid CSV"):
        list(csv_rows(f, ("a", "b")))
    # A short row is refused even where the missing field is not one the reader needs.
    write(f, "id,question,answer\nq1,why?,yes\nq2,why?\n")
    with pytest.raises(DataError, match="row 2: field 'answer': missing value \\(short row\\)"):
        list(csv_rows(f, ("id", "question")))


def test_field_checks():
    assert check_id(0, "f", "r") == 0 and check_id(2**53 - 1, "f", "r") == 2**53 - 1
    for bad, text in ((2**53, "out of range"), (-1, "out of range"), (True, "got bool"), (1.0, "got float"),
                      ("7", "got str '7'"), (None, "got null")):
        with pytest.raises(DataError, match=text):
            check_id(bad, "f.json", "questions[0]", "question_id")
    assert check_index(3, 4, "f", "r") == 3
    for bad in (True, 4, -1, 1.0, "0"):
        with pytest.raises(DataError, match="is not an index into 4"):
            check_index(bad, 4, "f", "r", "label")
    assert check_number(2, "f", "r") == 2
    for bad in (math.nan, math.inf, "1", False):
        with pytest.raises(DataError):
            check_number(bad, "f", "r")


def test_record_schema_names_row_and_field():
    schema = {"id": Field("id"), "text": Field("text"), "tags": Field("str-list", required=False)}
    assert check_record({"id": 1, "text": "a"}, schema, "f.json", "items[0]")
    cases = [({"text": "a"}, "f.json: items[0]: field 'id': missing"),
             ({"id": 1, "text": " "}, "f.json: items[0]: field 'text': empty string"),
             ({"id": 1, "text": "a", "tags": ["x", 1]}, "f.json: items[0]: field 'tags[1]': expected a string"),
             ([1], "f.json: items[0]: expected an object, got list")]
    for item, message in cases:
        with pytest.raises(DataError) as err:
            check_record(item, schema, "f.json", "items[0]")
        assert str(err.value).startswith(message)
    with pytest.raises(ValueError):
        Field("float")


def test_tally_policies():
    strict = Tally("f", id_name="qa_id")
    assert strict.seen(1, "row 1")
    with pytest.raises(DataError, match="row 2: field 'qa_id': duplicated qa_id 1 \\(first at row 1\\)"):
        strict.seen(1, "row 2")
    lenient = Tally("f", id_name="qa_id", duplicates="keep-first", answers="lenient", expected=10)
    assert lenient.seen(1, "row 1") and not lenient.seen(1, "row 2") and not lenient.seen(1, "row 3")
    assert lenient.count_ok(10, 1, "row 1") and not lenient.count_ok(3, 2, "row 4")
    assert lenient.summary() == {"duplicates": "keep-first", "duplicate_qa_ids": 2, "duplicate_qa_ids_shown": ["1", "1"],
                                 "answers": "lenient", "expected_answers": 10, "answer_count_mismatches": 1,
                                 "answer_count_mismatches_shown": ["2"]}
    with pytest.raises(UsageError):
        Tally("f", id_name="x", duplicates="drop")


def test_option_bounds_and_fingerprint_flag():
    epochs = Option(8, "passes", min=1, max=1000)
    assert epochs.parse("model 'm'", "epochs", "12") == 12 and epochs.describe_range() == "1..1000"
    for raw, text in (("0", "out of range"), ("1001", "out of range"), ("9" * 30, "out of range"),
                      ("9" * 5000, "not a valid int"), ("x", "not a valid int")):
        with pytest.raises(UsageError, match=text) as err:
            epochs.parse("model 'm'", "epochs", raw)
        assert len(str(err.value)) < 200
    lr = Option(0.1, "rate", min=0.0)
    for raw in ("nan", "inf", "-inf"):
        with pytest.raises(UsageError, match="must be a finite number"):
            lr.parse("model 'm'", "lr", raw)

    class Thing(Configurable):
        name = "thing"
        options = {"size": Option(3, min=1), "download": Option(False, fingerprint=False)}

    thing = Thing(download="true")
    assert thing.config == {"size": 3, "download": True} and thing.fingerprint_config() == {"size": 3}
