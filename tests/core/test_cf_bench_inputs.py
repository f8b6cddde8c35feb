"""Bad input to benchmarks/cf_split.py and benchmarks/counterfactual_heldout.py's test source
(issue 24, eighth round): one line naming the file and the record or ids at fault, a
non-zero exit, no traceback."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VAL = {"1": {"question": "What is it?", "answers": [{"answer": "a dog"}]},
       "2": {"question": "Is it red?", "answers": [{"answer": "yes"}]}}


def _heldout_module():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        path = ROOT / "benchmarks" / "counterfactual_heldout.py"
        spec = importlib.util.spec_from_file_location("counterfactual_heldout", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


@pytest.fixture
def data_dir(tmp_path):
    (tmp_path / "vqax").mkdir()
    (tmp_path / "vqax" / "vqaX_val.json").write_text(json.dumps(VAL))
    return tmp_path


@pytest.mark.parametrize("records, field", [
    ({"9": {"question": "What is this?"}}, "answers"),
    ({"9": {"question": 5, "answers": []}}, "question"),
    ({"9": {"question": "What is this?", "answers": [{"text": "x"}]}}, "answers"),
])
def test_a_test_file_record_without_its_fields_is_one_line(tmp_path, data_dir, records, field):
    test_file = tmp_path / "test.json"
    test_file.write_text(json.dumps(records))
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "cf_split.py"), "--data-dir", str(data_dir),
                           "--test-file", str(test_file)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert str(test_file) in done.stderr and "9" in done.stderr and field in done.stderr


def test_exclude_ids_unknown_to_val_and_the_test_file_are_named(tmp_path, data_dir):
    # a mistyped id would let a text judged before be drawn again as fresh
    module = _heldout_module()
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(["1", "nope"]))
    with pytest.raises(SystemExit) as exc:
        module.excluded_texts(ids, data_dir)
    assert str(ids) in str(exc.value) and "nope" in str(exc.value) and "\n" not in str(exc.value)
    ids.write_text(json.dumps(["1", "2"]))
    assert module.excluded_texts(ids, data_dir) == {"what is it?", "is it red?"}


def test_vqa2_questions_reads_whole_records_of_pieces_and_leaves_out_known_texts(tmp_path, data_dir):
    # benchmarks/vqa2_questions.py (twelfth round): pieces of the questions file cut anywhere
    pieces = tmp_path / "pieces"
    pieces.mkdir()
    records = [{"image_id": 7, "question": "Is the \"stop\" sign red?", "question_id": 7000},
               {"image_id": 8, "question": "What is it?", "question_id": 8000},  # in VQA-X val
               {"image_id": 9, "question": "Why is the cow on a leash?", "question_id": 9000}]
    text = json.dumps({"questions": records})
    cut = text.index("Why is")  # the third record is cut in two
    (pieces / "a.txt").write_text(text[:cut])
    (pieces / "b.txt").write_text(text[cut:])
    out = tmp_path / "out.json"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "vqa2_questions.py"), str(pieces), str(out),
                           "--data-dir", str(data_dir)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text()) == {
        "7000": {"question": 'Is the "stop" sign red?', "answers": [], "image_id": 7, "source": "VQA v2 val2014"}}
    assert "1 questions" in done.stdout and "1 left out" in done.stdout and "Is the" not in done.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "vqa2_questions.py"), str(empty), str(out),
                           "--data-dir", str(data_dir)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr and str(empty) in done.stderr


def test_vqa2_questions_names_an_out_it_cannot_write(tmp_path, data_dir):
    # an OUT in a missing folder, or a folder itself: one line naming OUT, no traceback
    pieces = tmp_path / "pieces"
    pieces.mkdir()
    (pieces / "a.txt").write_text(json.dumps({"questions": [{"image_id": 7, "question": "Is it blue?",
                                                             "question_id": 7000}]}))
    for out in (tmp_path / "missing" / "out.json", pieces):
        done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "vqa2_questions.py"), str(pieces), str(out),
                               "--data-dir", str(data_dir)], capture_output=True, text=True, timeout=120)
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
        assert str(out) in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
