"""vqa1 / vqa2 loaders on small official-format files made here, the real
vqaX_val.json, the toy exporter's round trip, and one-line errors for bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.data.session import Session
from harness.errors import DataError
from harness.testing import make_host
from harness.types import Example
from vqa_harness_plugins import vqa as vqa_pkg
from vqa_harness_plugins.datasets.vqa import (
    VQA1,
    VQA2,
    export_toy_vqa2,
    keep_pair_fraction,
)


def _answers(words):
    return [{"answer": w, "answer_confidence": "yes", "answer_id": i + 1} for i, w in enumerate(words)]


def write_v2(root: Path, tag: str = "val2014", *, pairs=None, prefix: str = "v2_", questions=None,
             annotations=None) -> Path:
    folder = root / ("vqa2" if prefix else "vqa1")
    folder.mkdir(parents=True, exist_ok=True)
    questions = questions if questions is not None else [
        {"image_id": 42, "question": "Is there a dog?", "question_id": 42000},
        {"image_id": 43, "question": "Is there a dog?", "question_id": 43000},
        {"image_id": 42, "question": "What color is the car?", "question_id": 42001},
    ]
    annotations = annotations if annotations is not None else [
        {"question_id": 42000, "image_id": 42, "question_type": "is there a", "answer_type": "yes/no",
         "multiple_choice_answer": "yes", "answers": _answers(["yes"] * 10)},
        {"question_id": 43000, "image_id": 43, "question_type": "is there a", "answer_type": "yes/no",
         "multiple_choice_answer": "no", "answers": _answers(["no"] * 9 + ["yes"])},
        {"question_id": 42001, "image_id": 42, "question_type": "what color is the", "answer_type": "other",
         "multiple_choice_answer": "red", "answers": _answers(["red"] * 7 + ["dark red"] * 3)},
    ]
    (folder / f"{prefix}OpenEnded_mscoco_{tag}_questions.json").write_text(json.dumps({"questions": questions}))
    (folder / f"{prefix}mscoco_{tag}_annotations.json").write_text(json.dumps({"annotations": annotations}))
    if prefix:
        (folder / f"v2_mscoco_{tag}_complementary_pairs.json").write_text(
            json.dumps(pairs if pairs is not None else [[42000, 43000], [42001, 99999]]))
    return folder


def examples(plugin, split="val"):
    return [Example.from_row(r) for r in plugin.load(split).to_list()]


def test_vqa2_reads_official_files_with_pairs_and_counts_unknown_ids(tmp_path, fresh_cache):
    write_v2(tmp_path)
    plugin = VQA2(data_dir=tmp_path)
    exs = examples(plugin)
    assert [e.id for e in exs] == ["42000", "43000", "42001"]
    first = exs[0]
    assert first.question == "Is there a dog?" and first.image_id == "42"
    assert first.image == str(tmp_path / "coco" / "val2014" / "COCO_val2014_000000000042.jpg")
    assert first.answers == ("yes",) * 10 and first.label == "yes"
    assert first.answer_type == "yes/no" and first.question_type == "is there a"
    assert first.pair_id == "43000" and exs[1].pair_id == "42000"
    assert exs[2].pair_id == ""  # its pair names an unknown question id
    summary = plugin.summary("val")
    assert summary["pairs"] == 2 and summary["pairs_used"] == 1
    assert summary["pairs_unknown_question_ids"] == 1
    assert summary["unknown_question_ids_shown"] == [99999]


def test_arrow_cache_is_reused_and_keyed_by_file_mtime(tmp_path, fresh_cache, monkeypatch):
    folder = write_v2(tmp_path)
    plugin = VQA2(data_dir=tmp_path)
    assert len(examples(plugin)) == 3
    calls = []
    from vqa_harness_plugins.datasets.vqa import loaders

    real = loaders.parse_questions
    monkeypatch.setattr(loaders, "parse_questions", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert len(examples(VQA2(data_dir=tmp_path))) == 3
    assert calls == []  # served from the Arrow cache
    qfile = folder / "v2_OpenEnded_mscoco_val2014_questions.json"
    data = json.loads(qfile.read_text())
    data["questions"][0]["question"] = "Is there a cat?"
    qfile.write_text(json.dumps(data))
    st = qfile.stat()
    os.utime(qfile, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert examples(VQA2(data_dir=tmp_path))[0].question == "Is there a cat?"
    assert calls == [1]


def test_vqa1_reads_choices_from_the_multiple_choice_file(tmp_path, fresh_cache):
    folder = write_v2(tmp_path, prefix="")
    choices = [f"c{i}" for i in range(17)] + ["yes"]
    mc = [{"image_id": 42, "question": "Is there a dog?", "question_id": 42000, "multiple_choices": choices}]
    (folder / "MultipleChoice_mscoco_val2014_questions.json").write_text(json.dumps({"questions": mc}))
    exs = examples(VQA1(data_dir=tmp_path))
    assert exs[0].choices == tuple(choices) and len(exs[0].choices) == 18
    assert exs[1].choices == () and exs[0].pair_id == ""


def test_test_dev_split_is_unlabelled_and_derives_question_types(tmp_path, fresh_cache):
    folder = tmp_path / "vqa2"
    folder.mkdir()
    qs = [{"image_id": 7, "question": "How many dogs are there?", "question_id": 7000}]
    (folder / "v2_OpenEnded_mscoco_test-dev2015_questions.json").write_text(json.dumps({"questions": qs}))
    plugin = VQA2(data_dir=tmp_path)
    assert not plugin.is_labelled("test-dev") and plugin.is_labelled("val")
    assert plugin.expected_files("test-dev") == [folder / "v2_OpenEnded_mscoco_test-dev2015_questions.json"]
    (ex,) = examples(plugin, "test-dev")
    assert ex.answers == () and ex.label == "" and ex.question_type == "how many"
    assert ex.image.endswith("test2015/COCO_test2015_000000000007.jpg")


def test_missing_files_name_the_expected_path(tmp_path, fresh_cache):
    session = Session(make_host(vqa_pkg), data_dir=tmp_path)
    with pytest.raises(DataError) as err:
        session.load("vqa2", "val")
    assert str(tmp_path / "vqa2" / "v2_OpenEnded_mscoco_val2014_questions.json") in str(err.value)
    assert "v2_mscoco_val2014_complementary_pairs.json" in str(err.value)


@pytest.mark.parametrize("mutate, expected", [
    (lambda q, a: q.append(dict(q[0])), "questions[3]: field 'question_id': duplicated question_id 42000"),
    (lambda q, a: q[1].update(question_id="43000"),
     "questions[1]: field 'question_id': expected an integer id, got str '43000'"),
    (lambda q, a: q[1].update(question_id=2**63), "questions[1]: field 'question_id': integer out of range [0, 2^53 - 1] (got about 9.22337e+18)"),
    (lambda q, a: q[1].update(question_id=True), "questions[1]: field 'question_id': expected an integer id, got bool"),
    (lambda q, a: q[2].update(question=None), "questions[2]: field 'question': expected a string, got null"),
    (lambda q, a: a[0].update(answers=[{"answer": 3}]), "annotations[0]: field 'answers[0].answer': expected a string"),
    (lambda q, a: a[0].update(answers="yes"), "annotations[0]: field 'answers': expected a list, got str 'yes'"),
    (lambda q, a: a[0].update(answers=_answers(["yes"] * 3)), "annotations[0]: field 'answers': 3 answers, expected 10"),
    (lambda q, a: a[1].pop("multiple_choice_answer"), "annotations[1]: field 'multiple_choice_answer': missing"),
    (lambda q, a: a.append(dict(a[0])), "annotations[3]: field 'question_id': duplicated question_id 42000"),
    (lambda q, a: a.pop(), "no annotation for question_id 42001"),
])
def test_bad_input_gives_one_line_errors_naming_file_and_field(tmp_path, fresh_cache, mutate, expected):
    qs = [{"image_id": 42, "question": "Is there a dog?", "question_id": 42000},
          {"image_id": 43, "question": "Is there a dog?", "question_id": 43000},
          {"image_id": 42, "question": "What color is the car?", "question_id": 42001}]
    anns = [{"question_id": q["question_id"], "image_id": q["image_id"], "question_type": "is there a",
             "answer_type": "yes/no", "multiple_choice_answer": "yes", "answers": _answers(["yes"] * 10)}
            for q in qs]
    mutate(qs, anns)
    write_v2(tmp_path, questions=qs, annotations=anns, pairs=[])
    with pytest.raises(DataError) as err:
        VQA2(data_dir=tmp_path).load("val")
    message = str(err.value)
    assert expected in message and "\n" not in message
    assert "vqa2/v2_" in message  # names the file


def test_malformed_json_and_bad_pairs(tmp_path, fresh_cache):
    folder = write_v2(tmp_path)
    pairs = folder / "v2_mscoco_val2014_complementary_pairs.json"
    pairs.write_text("[[42000, 43000]")
    with pytest.raises(DataError, match="complementary_pairs.json: line 1 column 16: truncated JSON"):
        VQA2(data_dir=tmp_path).load("val")
    pairs.write_text(json.dumps([[42000, "43000"]]))
    with pytest.raises(DataError, match=r"complementary_pairs.json: \[0\]: field '\[1\]': expected an integer"):
        VQA2(data_dir=tmp_path).load("val")


def test_duplicates_and_answer_counts_can_be_accepted_and_are_counted(tmp_path, fresh_cache):
    qs = [{"image_id": 42, "question": "Is there a dog?", "question_id": 42000},
          {"image_id": 43, "question": "Is there a cat?", "question_id": 43000},
          {"image_id": 42, "question": "Is there a dog, again?", "question_id": 42000}]
    anns = [{"question_id": 42000, "image_id": 42, "question_type": "is there a", "answer_type": "yes/no",
             "multiple_choice_answer": "yes", "answers": _answers(["yes"] * 10)},
            {"question_id": 43000, "image_id": 43, "question_type": "is there a", "answer_type": "yes/no",
             "multiple_choice_answer": "no", "answers": _answers(["no"] * 3)}]
    write_v2(tmp_path, questions=qs, annotations=anns, pairs=[])
    with pytest.raises(DataError, match="duplicated question_id 42000 .* pass duplicates=keep-first"):
        VQA2(data_dir=tmp_path).load("val")
    with pytest.raises(DataError, match="3 answers, expected 10; pass answers=lenient"):
        VQA2(data_dir=tmp_path, duplicates="keep-first").load("val")
    plugin = VQA2(data_dir=tmp_path, duplicates="keep-first", answers="lenient")
    exs = examples(plugin)
    assert [e.id for e in exs] == ["42000", "43000"]
    assert exs[0].question == "Is there a dog?"  # the first copy is kept
    assert exs[1].answers == ("no",) * 3
    summary = plugin.summary("val")
    assert summary["duplicate_question_ids"] == 1 and summary["duplicate_question_ids_shown"] == ["42000"]
    assert summary["answer_count_mismatches"] == 1 and summary["answer_count_mismatches_shown"] == ["43000"]


def test_toy_export_round_trips_through_vqa2(tmp_path, fresh_cache):
    from vqa_harness_plugins.datasets.toyvqa import ToyVQA

    out = tmp_path / "export"
    result = export_toy_vqa2(out, variant="balanced", images=12, splits=("val",))
    toy = ToyVQA(variant="balanced", images=12).examples("val")
    back = examples(VQA2(data_dir=out))
    assert len(back) == len(toy) and len(back) > 20
    qid = {k: str(v) for k, v in result.id_map["val"].items()}
    for t, b in zip(toy, back):
        expected = t.with_(id=qid[t.id], pair_id=qid[t.pair_id], image_id=b.image_id, image=b.image,
                           choices=(), explanations=(), meta={})
        assert b == expected
        assert Path(b.image).read_bytes() == Path(t.image).read_bytes()
    assert VQA2(data_dir=out).summary("val")["pairs_unknown_question_ids"] == 0


def test_toyvqa_half_keeps_whole_pairs():
    exs = [Example(id=f"q{i}", question="?", pair_id=f"q{i ^ 1}") for i in range(40)]
    kept = keep_pair_fraction(exs, 0.5, seed=3)
    ids = {e.id for e in kept}
    assert len(kept) == 20 and all(e.pair_id in ids for e in kept)
    assert kept == keep_pair_fraction(exs, 0.5, seed=3)
    assert kept != keep_pair_fraction(exs, 0.5, seed=4)


def test_session_ids_come_from_the_id_column_and_match_the_examples(tmp_path, fresh_cache, monkeypatch):
    """`Session.ids` (what `Model.check_example_ids` gets) reads the Arrow id column: the same
    ids as `load`, in order, without building Example objects."""
    import harness.data.session as session_module

    write_v2(tmp_path)
    built = []
    real = session_module.to_examples
    monkeypatch.setattr(session_module, "to_examples", lambda rows: built.append(1) or real(rows))
    session = Session(make_host(vqa_pkg), data_dir=tmp_path)
    assert session.ids("vqa2", "val") == ["42000", "43000", "42001"] and built == []
    assert [ex.id for ex in session.load("vqa2", "val")] == session.ids("vqa2", "val")
    # A dataset whose loader returns Examples (a list): the same ids, from the examples.
    from vqa_harness_plugins.datasets.toyvqa import ToyVQA

    toy = Session(make_host(builtins=True), data_dir=tmp_path)
    assert toy.ids("toyvqa:images=30", "val") == [ex.id for ex in ToyVQA(images=30).load("val")]


def test_toy_export_into_an_earlier_export_replaces_its_images(tmp_path, fresh_cache, capsys):
    """A second export (another seed) into the same folder kept the first one's images under
    the names its questions point at: questions about one set of scenes, images of another."""
    from vqa_harness_cli import main

    argv = ["export", "toy-vqa2", "--images", "4", "--split", "val"]
    assert main([*argv, "--seed", "0", "--out", str(tmp_path / "twice")]) == 0
    assert main([*argv, "--seed", "1", "--out", str(tmp_path / "twice")]) == 0
    assert main([*argv, "--seed", "1", "--out", str(tmp_path / "once")]) == 0
    once = sorted(p.relative_to(tmp_path / "once") for p in (tmp_path / "once").rglob("*") if p.is_file())
    assert any(p.suffix == ".jpg" for p in once)
    for rel in once:
        assert (tmp_path / "twice" / rel).read_bytes() == (tmp_path / "once" / rel).read_bytes(), rel
    # A file where a folder of the layout must be: one line, not a FileExistsError traceback.
    (tmp_path / "blocked").mkdir()
    (tmp_path / "blocked" / "vqa2").write_text("x")
    capsys.readouterr()
    assert main([*argv, "--out", str(tmp_path / "blocked")]) == 3
    err = capsys.readouterr().err.strip()
    assert err == f"error: export: cannot write {tmp_path / 'blocked' / 'vqa2'} (a file is where a folder must be)"


def test_toy_export_refuses_to_mix_two_toy_worlds_or_replace_files_it_did_not_write(tmp_path, fresh_cache, capsys):
    """`--split train` then `--split val --seed 1` into one folder gave train from one toy world
    and val from another, with an id map claiming seed 1 for both (train's map was lost); an
    export into a --data-dir holding the real VQA v2 files replaced them."""
    from vqa_harness_cli import main

    out = tmp_path / "x"
    argv = ["export", "toy-vqa2", "--images", "4", "--no-images", "--out", str(out)]
    assert main([*argv, "--split", "train"]) == 0
    capsys.readouterr()
    assert main([*argv, "--split", "val", "--seed", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"--out {out} holds the train split of an export with seed 0" in err, err
    assert not (out / "vqa2" / "v2_mscoco_val2014_annotations.json").exists()
    # The same settings: the map keeps both splits' ids.
    assert main([*argv, "--split", "val"]) == 0
    kept = json.loads((out / "vqa2" / "toy_id_map.json").read_text())
    assert sorted(kept["question_ids"]) == ["train", "val"] and kept["toyvqa"]["seed"] == 0
    # Every split again with other settings is a new export: allowed.
    assert main([*argv, "--seed", "1"]) == 0
    assert json.loads((out / "vqa2" / "toy_id_map.json").read_text())["toyvqa"]["seed"] == 1
    # Files no export wrote (no toy_id_map.json beside them) are never replaced.
    real = tmp_path / "data" / "vqa2" / "v2_OpenEnded_mscoco_val2014_questions.json"
    real.parent.mkdir(parents=True)
    real.write_text('{"questions": "the real ones"}')
    capsys.readouterr()
    assert main(["export", "toy-vqa2", "--no-images", "--split", "val", "--out", str(tmp_path / "data")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{real} exists and was not written by `harness export toy-vqa2`" in err, err
    assert real.read_text() == '{"questions": "the real ones"}'


def test_an_interrupted_toy_export_is_recorded_and_a_rerun_completes_it(tmp_path, fresh_cache, monkeypatch, capsys):
    """A SIGKILL mid-export left every JSON file and part of the images, no id map: the folder
    looked like a finished export, and a rerun was refused ('not written by harness export')."""
    import shutil

    from vqa_harness_cli import main

    argv = ["export", "toy-vqa2", "--images", "4", "--split", "val", "--out"]
    assert main([*argv, str(tmp_path / "clean")]) == 0
    copy, calls = shutil.copyfile, []

    def killed_after_two(src, dst):
        calls.append(dst)
        if len(calls) > 2:
            raise KeyboardInterrupt
        return copy(src, dst)

    monkeypatch.setattr(shutil, "copyfile", killed_after_two)
    with pytest.raises(KeyboardInterrupt):
        export_toy_vqa2(tmp_path / "cut", images=4, splits=("val",))
    monkeypatch.setattr(shutil, "copyfile", copy)
    state = json.loads((tmp_path / "cut" / "vqa2" / "toy_id_map.json").read_text())
    assert state["incomplete"] == ["val"] and state["question_ids"] == {}
    # Only the split the interrupted export was writing may be left out of a rerun's splits.
    capsys.readouterr()
    assert main(["export", "toy-vqa2", "--images", "4", "--split", "train", "--out", str(tmp_path / "cut")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "was interrupted while writing the val split" in err, err
    map_path = tmp_path / "cut" / "vqa2" / "toy_id_map.json"
    map_path.write_text(json.dumps({**state, "incomplete": "val"}))  # edited by hand
    assert main([*argv, str(tmp_path / "cut")]) == 2
    assert "not the id map of an earlier toy export" in capsys.readouterr().err
    map_path.write_text(json.dumps(state))
    assert main([*argv, str(tmp_path / "cut")]) == 0
    clean = sorted(p.relative_to(tmp_path / "clean") for p in (tmp_path / "clean").rglob("*") if p.is_file())
    cut = sorted(p.relative_to(tmp_path / "cut") for p in (tmp_path / "cut").rglob("*") if p.is_file())
    assert cut == clean
    for rel in clean:
        assert (tmp_path / "cut" / rel).read_bytes() == (tmp_path / "clean" / rel).read_bytes(), rel
