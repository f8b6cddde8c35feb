"""A file is read once and hashed from the bytes parsed; a FIFO does not hang; a key twice in
one record of an official file is reported (issue 26, finding 9)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from harness.errors import DataError
from harness.fileio import read_bytes
from vqa_harness_plugins.datasets.vqa.official import parse_annotations
from vqa_harness_plugins.models import predictions as predictions_module
from vqa_harness_plugins.models.predictions import read_predictions

OLD = [{"question_id": 1, "answer": "red"}, {"question_id": 2, "answer": "blue"}]
NEW = [{"question_id": 1, "answer": "green"}, {"question_id": 2, "answer": "green"}]


def test_a_file_replaced_after_it_is_hashed_cannot_poison_the_cache(tmp_path: Path, monkeypatch) -> None:
    """The results file is replaced right after the first read (an `mv` from another job):
    the answers must be those of the bytes hashed, never the new file's under the old hash."""
    path = tmp_path / "results.json"
    path.write_text(json.dumps(OLD))
    real = predictions_module.read_bytes
    calls = []

    def read_then_replace(p, hint=""):
        blob = real(p, hint)
        calls.append(p)
        Path(p).write_text(json.dumps(NEW))  # replaced between the hash and any later read
        return blob

    monkeypatch.setattr(predictions_module, "read_bytes", read_then_replace)
    entries, fmt, sha = read_predictions(path)
    assert fmt == "vqa" and len(calls) == 1
    assert {k: e.answer for k, e in entries.items()} == {"1": "red", "2": "blue"}
    assert sha == predictions_module.digest_bytes(json.dumps(OLD).encode())


def _writer(fifo: Path, payload: bytes) -> threading.Thread:
    def write() -> None:
        with open(fifo, "wb") as fh:
            fh.write(payload)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def _release(fifo: Path) -> None:
    """Unblock a reader stuck on opening the FIFO (so a failing test cannot hang the suite)."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
    except OSError:
        pass


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this platform")
def test_a_results_fifo_is_read_once(tmp_path: Path) -> None:
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    writer = _writer(fifo, json.dumps(OLD).encode())
    found: list = []
    reader = threading.Thread(target=lambda: found.append(read_predictions(fifo)), daemon=True)
    reader.start()
    reader.join(timeout=20)
    hung = reader.is_alive()
    for _ in range(3):
        _release(fifo)
    writer.join(timeout=5)
    assert not hung, "reading a results FIFO hung (read twice)"
    assert {k: e.answer for k, e in found[0][0].items()} == {"1": "red", "2": "blue"}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this platform")
def test_a_fifo_without_a_writer_is_one_line_not_a_wait(tmp_path: Path, monkeypatch) -> None:
    import harness.fileio

    monkeypatch.setattr(harness.fileio, "FIFO_WAIT_SECONDS", 0.2)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(DataError, match=r"pipe: a named pipe \(FIFO\) that no writer sent anything to"):
        read_bytes(fifo)


def test_a_key_twice_in_a_results_record_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text('[{"question_id": 1, "answer": "yes", "answer": "no"}]')
    with pytest.raises(DataError, match=r"results.json: \[0\]: field 'answer': given twice in one record"):
        read_predictions(path)
    lines = tmp_path / "results.jsonl"
    lines.write_text('{"id": "a", "answer": "yes"}\n{"id": "b", "answer": "yes", "id": "c"}\n')
    with pytest.raises(DataError, match=r"results.jsonl: row 2: field 'id': given twice in one record"):
        read_predictions(lines)


def test_a_key_twice_in_an_official_annotation_is_an_error(tmp_path: Path) -> None:
    """VQA annotations: a record with `multiple_choice_answer` twice is refused, naming the key
    (json.loads would silently keep the last value)."""
    from harness.jsonio import read_json

    answers = [{"answer": "red", "answer_confidence": "yes", "answer_id": i + 1} for i in range(10)]
    record = json.dumps({"question_id": 1, "image_id": 1, "question_type": "what", "answer_type": "other",
                         "multiple_choice_answer": "red", "answers": answers})
    text = '{"annotations": [' + record[:-1] + ', "multiple_choice_answer": "blue"}]}'
    path = tmp_path / "v2_mscoco_val2014_annotations.json"
    path.write_text(text)
    assert parse_annotations(read_json(path), path)  # the lenient reader takes the last value silently
    from vqa_harness_plugins.datasets.vqa.loaders import VQA2

    root = tmp_path / "data"
    (root / "vqa2").mkdir(parents=True)
    (root / "vqa2" / "v2_OpenEnded_mscoco_val2014_questions.json").write_text(
        json.dumps({"questions": [{"question_id": 1, "image_id": 1, "question": "What color?"}]}))
    (root / "vqa2" / "v2_mscoco_val2014_annotations.json").write_text(text)
    with pytest.raises(DataError, match="v2_mscoco_val2014_annotations.json: duplicated key 'multiple_choice_answer'"):
        VQA2(data_dir=root).load("val")
