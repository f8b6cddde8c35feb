"""The `predictions` model: answers made elsewhere, scored by any suite's answer-based probes."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from harness.errors import DataError, HarnessError, UsageError
from harness.host import PluginHost
from harness.testing import run_in_process
from harness.types import Example
from vqa_harness_cli.suitefiles import load_suite_file
from vqa_harness_cli.suitefiles.write import dump_suite, suite_data
from vqa_harness_plugins.models.predictions import ChangedInput, MissingAnswer, PredictionsModel

COLORS = ["red", "blue", "green", "yellow"]


def _split(rng: random.Random, n: int, first_qid: int, first_image: int) -> tuple[dict, dict, list]:
    """A miniature official VQA v2 split: questions, annotations, complementary pairs (as in
    VQA v2: the same question on two images)."""
    questions, annotations, pairs = [], [], []
    for i in range(n):
        qid, image, q = first_qid + i, first_image + i, i // 2
        kind = q % 3
        if kind == 0:
            text, qtype, atype, truth = f"what color is the ball {q}?", "what color is the", "other", rng.choice(COLORS)
            others = [c for c in COLORS if c != truth]
        elif kind == 1:
            text, qtype, atype, truth = f"is there a cat {q}?", "is there a", "yes/no", rng.choice(["yes", "no"])
            others = ["no" if truth == "yes" else "yes"]
        else:
            text, qtype, atype, truth = f"how many dogs {q}?", "how many", "number", str(rng.randint(0, 3))
            others = ["4", "5"]
        humans = [truth] * rng.randint(6, 10)
        humans += [rng.choice(others) for _ in range(10 - len(humans))]
        questions.append({"image_id": image, "question": text, "question_id": qid})
        annotations.append({"question_id": qid, "image_id": image, "question_type": qtype, "answer_type": atype,
                            "multiple_choice_answer": truth,
                            "answers": [{"answer": a, "answer_confidence": "yes", "answer_id": j + 1}
                                        for j, a in enumerate(humans)]})
        if i % 2 == 1:
            pairs.append([qid - 1, qid])
    return {"questions": questions}, {"annotations": annotations}, pairs


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """(host, data dir, suite file over vqa2 val: accuracy and pairs, trained on vqa2 train)."""
    root = tmp_path_factory.mktemp("v2")
    rng = random.Random(0)
    (root / "vqa2").mkdir()
    for tag, n, first in (("train2014", 90, 1000), ("val2014", 40, 5000)):
        q, a, p = _split(rng, n, first * 10, first)
        (root / "vqa2" / f"v2_OpenEnded_mscoco_{tag}_questions.json").write_text(json.dumps(q))
        (root / "vqa2" / f"v2_mscoco_{tag}_annotations.json").write_text(json.dumps(a))
        (root / "vqa2" / f"v2_mscoco_{tag}_complementary_pairs.json").write_text(json.dumps(p))
    suite = root / "v2.yaml"
    suite.write_text("name: v2-mini\ntasks:\n- {dataset: vqa2, split: val, probes: [accuracy, pairs], "
                     "train: {dataset: vqa2, split: train}}\n")
    return PluginHost(blocked=frozenset()), root, suite


def _values(rows) -> dict:
    return {(r.probe, r.metric, r.variant): (r.value, r.n, r.ci_low, r.ci_high) for r in rows}


@pytest.fixture(scope="module")
def qonly_run(setup, tmp_path_factory):
    host, root, suite = setup
    tmp = tmp_path_factory.mktemp("qonly")
    out = run_in_process(host, model="qonly:epochs=3", suite=load_suite_file(suite, host), data_dir=root, tmp_path=tmp)
    assert out.exit_code == 0
    (path,) = (out.rundir.path / "artifacts" / "accuracy").rglob("results_official.json")
    return out, path


def test_an_official_results_file_scores_like_the_model_that_wrote_it(setup, qonly_run, tmp_path):
    host, root, suite = setup
    out, results = qonly_run
    records = json.loads(results.read_text())
    assert records and all(set(r) == {"question_id", "answer"} and isinstance(r["question_id"], int) for r in records)
    replay = run_in_process(host, model=f"predictions:path={results}", suite=load_suite_file(suite, host), data_dir=root,
                            tmp_path=tmp_path)
    assert replay.exit_code == 0 and replay.example_errors == 0
    assert _values(replay.rows) == _values(out.rows)
    assert {("accuracy", "vqa_accuracy", ""), ("pairs", "pair/both_correct", "")} <= set(_values(out.rows))
    notes = (replay.rundir.path / "report.md").read_text()
    assert f"Results file `{results}` (vqa, 40 answers, 0 with an explanation" in notes
    assert "40 of its answers used" in notes


def test_missing_answers_are_counted_model_errors_never_silent(setup, qonly_run, tmp_path):
    from harness.data.session import Session
    from harness.metrics import vqa_accuracy_batch

    host, root, suite = setup
    _, results = qonly_run
    records = json.loads(results.read_text())
    dropped = [records[i]["question_id"] for i in (0, 5, 6)]  # 50000 starts a pair with 50001
    kept = [r for r in records if r["question_id"] not in dropped]
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(kept))
    out = run_in_process(host, model=f"predictions:path={path}", suite=load_suite_file(suite, host), data_dir=root,
                         tmp_path=tmp_path / "run")
    # PARTIAL: the run says so; it counts failed requests (accuracy and pairs each ask the
    # 3 questions: errors are never cached), the model notes count the questions
    assert out.exit_code == 1 and out.example_errors == 6
    report = (out.rundir.path / "report.md").read_text()
    assert f"**3 example(s) without an answer in the file** (first: {', '.join(map(str, dropped))})" in report
    # accuracy: each missing question scores 0 (as any failed prediction), over all 40
    examples = Session(host, data_dir=root).load("vqa2", "val")
    answers = {str(r["question_id"]): r["answer"] for r in kept}
    per_q = vqa_accuracy_batch([answers.get(ex.id, "") for ex in examples], [ex.answers for ex in examples])
    per_q = np.where([ex.id not in answers for ex in examples], 0.0, per_q)
    acc = _values(out.rows)[("accuracy", "vqa_accuracy", "")]
    assert acc[0] == pytest.approx(float(per_q.mean()), abs=1e-12) and acc[1] == 40
    # pairs: a pair with a missing question is left out (20 pairs, 3 of them touched)
    assert _values(out.rows)[("pairs", "pair/both_correct", "")][1] == 17
    # A re-run takes the answers from the prediction cache: they are still the file's answers,
    # scored in the rows, so the notes count them (before: "0 of its answers used")
    again = run_in_process(host, model=f"predictions:path={path}", suite=load_suite_file(suite, host), data_dir=root,
                           tmp_path=tmp_path / "run")
    assert again.exit_code == 1 and _values(again.rows) == _values(out.rows)
    assert "37 of its answers used" in (out.rundir.path / "report.md").read_text()
    assert "37 of its answers used" in (again.rundir.path / "report.md").read_text()


def test_the_fingerprint_is_the_file_content(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text('[{"question_id": 1, "answer": "yes"}]')
    b.write_text(a.read_text())
    fa, fb = PredictionsModel(path=str(a)).fingerprint(), PredictionsModel(path=str(b)).fingerprint()
    assert fa == fb  # where the file lies does not change the answers
    b.write_text('[{"question_id": 1, "answer": "no"}]')
    assert PredictionsModel(path=str(b)).fingerprint() != fa


def test_variants_and_other_questions_are_errors_not_the_originals_answer(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "q1", "answer": "red", "question": "what color is it?"}\n'
                    '{"id": "q2", "answer": "2"}\n')
    model = PredictionsModel(path=str(path))
    ex1 = Example(id="q1", question="what color is it?", image="a.png")
    ex2 = Example(id="q2", question="how many?", image="b.png")
    model.input_key(ex1, "answer"), model.input_key(ex2, "answer")
    assert model.answer([ex1, ex2]) == ["red", "2"]
    with pytest.raises(ChangedInput, match="changed question or image"):
        model.answer([ex2.with_(image="blank://gray")])
    with pytest.raises(ChangedInput):
        model.answer([ex1.with_(question="what colour is it?")])
    with pytest.raises(ValueError, match="the file's question 'what color is it\\?' is not the dataset's"):
        PredictionsModel(path=str(path)).answer([ex1.with_(question="other?")])
    with pytest.raises(MissingAnswer, match="no answer for id q3 in p.jsonl"):
        model.answer([Example(id="q3", question="?")])
    notes = model.report_notes()
    assert "**1 example(s) without an answer in the file** (first: q3)" in notes
    assert "**2 example(s) asked with a changed input" in notes and "(first: q2, q1)" in notes
    # the keys differ by id even for identical inputs (the answer belongs to the id)
    assert model.input_key(ex1, "answer") != model.input_key(ex1.with_(id="q9"), "answer")


def test_explanations_belong_to_the_files_answer_and_set_the_capability(tmp_path):
    vqa = tmp_path / "v.json"
    vqa.write_text('[{"question_id": 7, "answer": "yes"}]')
    assert PredictionsModel.capabilities() == {"answer", "explain"}
    assert PredictionsModel(path=str(vqa)).capabilities() == {"answer"}
    nle = tmp_path / "e.jsonl"
    nle.write_text('{"id": 7, "answer": "yes", "explanation": "a cat is on the sofa"}\n{"id": 8, "answer": "no"}\n')
    model = PredictionsModel(path=str(nle))
    assert model.capabilities() == {"answer", "explain"}
    ex7, ex8 = Example(id="7", question="is there a cat?"), Example(id="8", question="is there a dog?")
    assert model.explain([ex7], ["yes"]) == ["a cat is on the sofa"]
    with pytest.raises(ValueError, match="asked to explain 'no' for id 7, but the file's explanation justifies "
                                         "its answer 'yes'"):
        model.explain([ex7], ["no"])
    with pytest.raises(MissingAnswer, match="no explanation for id 8"):
        model.explain([ex8], ["no"])


MALFORMED = {
    "empty": ("", "r.json: empty file"),
    "neither format": ('"yes"', "r.json: neither a JSON list (official VQA results) nor JSON lines"),
    "empty list": ("[]", "r.json: no answers in the file"),
    "truncated": ('[{"question_id": 1, "answer": "yes"}', "r.json: "),
    "string id": ('[{"question_id": "43", "answer": "yes"}]',
                  "r.json: [0]: field 'question_id': expected an integer id, got str '43'"),
    "bool id": ('[{"question_id": true, "answer": "yes"}]', "r.json: [0]: field 'question_id': expected an integer id"),
    "missing answer": ('[{"question_id": 1}]', "r.json: [0]: field 'answer': missing"),
    "answer not text": ('[{"question_id": 1, "answer": 3}]', "r.json: [0]: field 'answer': expected a string, got int 3"),
    "repeated id": ('[{"question_id": 1, "answer": "a"}, {"question_id": 1, "answer": "b"}]',
                    "r.json: [1]: field 'question_id': duplicated question_id 1 (first at [0])"),
    "object not list": ('{"1": "yes"}', "r.json: row 1: field 'id': missing"),
    "bad JSON line": ('{"id": 1, "answer": "a"}\n{"id": 2, "answer": }\n', "r.json: row 2: not valid JSON"),
    "explanation not text": ('{"id": 1, "answer": "a", "explanation": ["x"]}\n',
                             "r.json: row 1: field 'explanation': expected a string, got list"),
    # a key twice in one record names the record too (before: no record, or "not valid JSON")
    "key twice": ('[{"question_id": 1, "answer": "a"}, {"question_id": 2, "answer": "yes", "answer": "no"}]',
                  "r.json: [1]: field 'answer': given twice in one record"),
    "key twice, JSON lines": ('{"id": 1, "answer": "a"}\n{"id": 2, "answer": "x", "answer": "y"}\n',
                              "r.json: row 2: field 'answer': given twice in one record"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_results_files_are_one_line_errors(case, tmp_path):
    text, expected = MALFORMED[case]
    path = tmp_path / "r.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as err:
        PredictionsModel(path=str(path))
    message = str(err.value)
    assert len(message.splitlines()) == 1 and message.startswith(str(tmp_path)) and expected in message, message


def test_bad_paths_and_bytes(tmp_path):
    with pytest.raises(UsageError, match=r"needs the results file: --model predictions:path=FILE"):
        PredictionsModel()
    with pytest.raises(DataError, match="missing file: .*nope.json"):
        PredictionsModel(path=str(tmp_path / "nope.json"))
    (tmp_path / "latin1.json").write_bytes(b'[{"question_id": 1, "answer": "caf\xe9"}]')
    with pytest.raises(DataError, match="not UTF-8 text"):
        PredictionsModel(path=str(tmp_path / "latin1.json"))


def test_the_cli_reports_a_bad_file_in_one_line_before_any_work(setup, tmp_path, capsys):
    from harness.host import reset_host
    from vqa_harness_cli import main

    _, root, suite = setup
    bad = tmp_path / "r.json"
    bad.write_text('[{"question_id": 1, "answer": 3}]')
    reset_host(None)
    code = main(["run", "--model", f"predictions:path={bad}", "--suite", str(suite), "--data-dir", str(root),
                 "--no-leaderboard", "--out", str(tmp_path / "runs")])
    err = capsys.readouterr().err.strip()
    reset_host(None)
    assert code == 3 and err == f"error: {bad}: [0]: field 'answer': expected a string, got int 3"
    assert not (tmp_path / "runs").exists()


# ------------------------------------------------------------------ e-ViL: answers with explanations


def test_the_e_vil_toy_suite_accepts_answers_with_explanations_from_a_file(tmp_path):
    """e-vil-toy's task (smaller toy world, n-gram metrics only, to stay fast): the explainer's
    answers and explanations, written to JSON lines, score exactly as the explainer did."""
    host = PluginHost(blocked=frozenset())
    data = suite_data(host.suites["e-vil-toy"], host)
    (task,) = data["tasks"]
    for part in (task, task["train"]):
        part["options"] = {**part.get("options", {}), "images": 40}
    task["probe_options"] = {"nle": {"metrics": "bleu1,rouge_l,cider", "tokenize": "simple", "gt": False}}
    data["name"] = "e-vil-toy-small"
    from vqa_harness_cli.suitefiles.read import parse_suite

    suite_file = tmp_path / "evil.yaml"
    suite_file.write_text(dump_suite(parse_suite(data, host), host))
    first = run_in_process(host, model="retrieval-explainer", suite=load_suite_file(suite_file, host), tmp_path=tmp_path / "a")
    assert first.exit_code == 0
    preds = first.rundir.path / "predictions"
    answers = {r["example_id"]: r["answer"] for r in _jsonl(next(preds.rglob("nle/answer.jsonl")))}
    explained = {r["example_id"]: r["explanation"] for r in _jsonl(next(preds.rglob("nle/explain.jsonl")))}
    assert explained and set(explained) < set(answers)
    records = [{"id": i, "answer": a, **({"explanation": explained[i]} if i in explained else {})}
               for i, a in answers.items()]
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    replay = run_in_process(host, model=f"predictions:path={path}", suite=load_suite_file(suite_file, host), tmp_path=tmp_path / "b")
    assert replay.exit_code == 0 and replay.example_errors == 0
    values = _values(first.rows)
    assert {k for k in values if k[1].startswith("s_e/")} == {("nle", f"s_e/{m}", "") for m in
                                                            ("bleu1", "rouge_l", "cider")}
    assert _values(replay.rows) == values
    # answers only (no explanation anywhere): the nle probe is skipped with the reason
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(json.dumps({"id": i, "answer": a}) + "\n" for i, a in answers.items()))
    skipped = run_in_process(host, model=f"predictions:path={bare}", suite=load_suite_file(suite_file, host), tmp_path=tmp_path / "c")
    assert [(probe, why) for _, probe, why in skipped.skipped] == [("nle", "model 'predictions' lacks explain")]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_harness_errors_are_the_only_errors(tmp_path):
    """Every failure above is a HarnessError (one line in the CLI), never another exception."""
    (tmp_path / "x.json").write_text("[1]")
    with pytest.raises(HarnessError):
        PredictionsModel(path=str(tmp_path / "x.json"))
