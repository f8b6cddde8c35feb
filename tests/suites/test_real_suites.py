"""Every real-data suite end to end on miniature files in the official formats (offline)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from helpers_official import write_esnlive, write_vqax, write_world

from harness.api import Model, Suite, Task
from harness.errors import DataError, UsageError
from harness.hookspecs import hookimpl
from harness.metrics import normalize_answer, vqa_accuracy
from harness.testing import make_host, run_in_process
from vqa_harness_leaderboard import tables_of


class AlwaysRed(Model):
    """A pretrained model stand-in: answers "red" whatever it is asked (not trainable)."""

    name = "always-red"

    def answer(self, batch):
        return ["red" for _ in batch]

    def score_choices(self, batch):
        return [[1.0 if "red" in c.lower() else 0.0 for c in ex.choices] for ex in batch]


class RedButFails(AlwaysRed):
    """Raises on the questions of one test-dev image (question ids 90000x)."""

    name = "red-but-fails"

    def answer(self, batch):
        if any(ex.id.startswith("90000") for ex in batch):
            raise ValueError("cannot answer")
        return super().answer(batch)


class RedExplainer(AlwaysRed):
    """Answers "red" (the first candidate where there are candidates) and explains every
    answer with "the square looks blue", so S_T and S_E can be computed by hand."""

    name = "red-explainer"

    def answer(self, batch):
        return [ex.choices[0] if ex.choices else "red" for ex in batch]

    def explain(self, batch, answers):
        return ["the square looks blue" for _ in batch]


class Plugin:
    @hookimpl
    def register_models(self, register):
        register(AlwaysRed)
        register(RedButFails)
        register(RedExplainer)

    @hookimpl
    def register_suites(self, register):
        from dataclasses import replace

        from vqa_harness_plugins.probes.e_vil import EVIL_DEV_SUITE, EVIL_SUITE

        # VQA-X has no complementary pairs (no pair_id): the accuracy probe only.
        register(Suite("vqa-x-as-vqa", "VQA-X val through the VQA accuracy probe",
                       (Task("vqa-x", "val", ("accuracy",)),)))
        # The e-vil suite's tasks with the cheap metrics (the full bundle is tested elsewhere).
        cheap = {"nle": {"metrics": "bleu1,rouge_l", "tokenize": "simple", "gt": False}}
        register(replace(EVIL_SUITE, name="e-vil-cheap",
                         tasks=tuple(replace(t, probe_options=cheap) for t in EVIL_SUITE.tasks)))
        register(replace(EVIL_DEV_SUITE, name="e-vil-cheap-dev",
                         tasks=tuple(replace(t, probe_options=cheap) for t in EVIL_DEV_SUITE.tasks)))


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("official")
    return root, write_world(root)


@pytest.fixture(scope="module")
def host():
    return make_host(Plugin(), builtins=True, names=["real-suites-test"])


def _run(host, tmp_path, model, suite, root, **kw):
    out = run_in_process(host, model=model, suite=suite, tmp_path=tmp_path, data_dir=root, **kw)
    assert out.exit_code == 0, (out.probe_failures, out.skipped)
    return out


def _rows(out):
    return {(r.dataset, r.probe, r.variant, r.metric): r for r in out.rows}


def test_vqa2_suite_scores_the_official_way(world, host, tmp_path):
    root, annotations = world
    out = _run(host, tmp_path, "prior", "vqa2", root)
    rows = _rows(out)
    assert out.announced == []  # a labelled split has its rows: no evaluation-server file to point at
    # Hand computation: the prior answers the most common train answer.
    train = Counter(normalize_answer(a["multiple_choice_answer"]) for a in annotations["v2/train"])
    prior = min(train, key=lambda a: (-train[a], a))
    val = annotations["v2/val"]
    expected = sum(vqa_accuracy(prior, [x["answer"] for x in a["answers"]]) for a in val) / len(val)
    acc = rows[("vqa2", "accuracy", "", "vqa_accuracy")]
    assert acc.value == pytest.approx(expected) and acc.n == len(val) and acc.ci_low <= acc.value <= acc.ci_high
    assert {m for (_, p, _, m) in rows if m.startswith("vqa_accuracy/answer_type=")} == {
        "vqa_accuracy/answer_type=yes/no", "vqa_accuracy/answer_type=number", "vqa_accuracy/answer_type=other"}
    assert any(m.startswith("vqa_accuracy/question_type=") for (_, _, _, m) in rows)
    # The prior answers every pair identically; pairs in the files: 15.
    assert rows[("vqa2", "pairs", "", "pair/identical")].value == 1.0
    assert rows[("vqa2", "pairs", "", "pair/identical")].n == 15
    assert ("vqa2", "language-prior", "", "audit/answer_entropy") in rows
    assert rows[("vqa2", "counter-examples", "random", "counterexample/recall@5")].n > 0


def test_vqa2_test_dev_writes_the_evaluation_server_file(world, host, tmp_path):
    root, _ = world
    out = run_in_process(host, model="always-red", suite="vqa2", tmp_path=tmp_path, data_dir=root,
                         split="test-dev")
    assert not [r for r in out.rows if r.metric.startswith("vqa_accuracy")]
    (path,) = (out.rundir.path / "artifacts" / "accuracy").rglob("results_official.json")
    assert ("evaluation-server results file", str(path)) in out.announced  # once, though two tasks share it
    assert len(out.announced) == len(set(out.announced))
    results = json.loads(path.read_text())
    assert len(results) == 12 and all(r["answer"] == "red" and isinstance(r["question_id"], int) for r in results)
    report = (out.rundir.path / "report.md").read_text()
    assert "official results format" in report and "Warning" not in report


def test_test_dev_names_the_server_file_and_warns_about_failures_and_limit(world, host, tmp_path, capsys):
    from harness.testing import use_host
    from vqa_harness_cli import main

    root, _ = world
    with use_host(host):
        code = main(["run", "--model", "red-but-fails", "--suite", "vqa2", "--data-dir", str(root), "--split",
                     "test-dev", "--limit", "5", "--out", str(tmp_path / "runs"), "--cache",
                     str(tmp_path / "c.sqlite"), "--no-leaderboard", "--device", "cpu"])
    assert code == 1  # examples failed in the model
    out = capsys.readouterr().out
    (run,) = (tmp_path / "runs").iterdir()
    (server,) = (run / "artifacts" / "accuracy").rglob("results_official.json")
    assert f"  evaluation-server results file: {server}" in out.splitlines()
    results = json.loads(server.read_text())
    assert [r["answer"] for r in results] == ["", "", "red", "red", "red"]  # image 9000: questions 90000, 90001
    report = (run / "report.md").read_text()
    assert "2 of 5 questions failed in the model; they are written with an empty answer" in report
    assert "partial results file: 5 of the split's 12 questions (--limit)" in report


def test_goyal_tables_1_and_3_for_a_trained_and_a_pretrained_model(world, host, tmp_path):
    root, _ = world
    trained = _run(host, tmp_path / "t", "qtype-prior", "goyal", root)
    trains = {r.train for r in trained.rows if r.probe == "balanced-accuracy"}
    assert trains == {"vqa1/train", "vqa2-half/train", "vqa2/train"}
    pretrained = _run(host, tmp_path / "p", "always-red:trained_on=vqa2", "goyal", root)
    # UB and B_half B are BB again for a model the harness does not train: run once.
    assert sum(1 for _, probe, reason in pretrained.skipped if probe == "balanced-accuracy"
               and "train source does not matter" in reason) == 2
    tables = {t.title: t for ts in tables_of([trained.rundir.path, pretrained.rundir.path]).values() for t in ts}
    table1 = next(t for title, t in tables.items() if title.startswith("Goyal Table 1"))
    assert set(table1.headers[1:]) == {"UU", "UB", "B_half B", "BB", "BU"}
    red = next(row for row in table1.body if row[0].startswith("always-red"))
    assert red[table1.headers.index("UU")] == "-" and red[table1.headers.index("BB")] != "-"
    # The audit sets v1 and v2 entropy side by side, with the relative change.
    change = [r for r in trained.rows if r.metric == "audit/answer_entropy_change"]
    entropy = {(r.dataset, r.variant): r.value for r in trained.rows if r.metric == "audit/answer_entropy"}
    assert len(change) == 1 and change[0].value == pytest.approx(
        (entropy[("vqa2", "")] - entropy[("vqa1", "")]) / entropy[("vqa1", "")])
    assert change[0].value > 0  # the v2 miniature is balanced, the v1 one is biased
    # The image ablation runs on every balanced test task (a row per training condition), once
    # for a pretrained model; its table is on the leaderboard.
    ablated = {(r.train, r.variant) for r in trained.rows if r.probe == "image-ablation" and r.metric == "vqa_accuracy"}
    assert ablated == {(t, c) for t in ("vqa1/train", "vqa2-half/train", "vqa2/train")
                       for c in ("real", "blank", "swap", "no-question")}
    assert [r.train for r in pretrained.rows if r.probe == "image-ablation" and r.metric == "vqa_accuracy"
            and r.variant == "real"] == ["vqa2"]
    assert any(t.layout_id == "ablation-effect" for t in tables.values())


def test_trained_on_must_name_training_data(world, host, tmp_path):
    root, _ = world
    with pytest.raises(UsageError, match=r"^trained_on='vqa3' is neither training data of suite 'goyal' "
                                         r"\(vqa1, vqa2-half, vqa2\) nor a registered dataset; did you mean: vqa2"):
        run_in_process(host, model="always-red:trained_on=vqa3", suite="goyal", tmp_path=tmp_path, data_dir=root)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_decoys_visual7w_uses_the_released_decoys_and_says_so(world, host, tmp_path):
    root, _ = world
    out = _run(host, tmp_path, "mlp-a:hidden=16,epochs=2", "decoys-visual7w", root)
    sources = {r.metric for r in out.rows if r.metric.startswith("generation/source=")}
    assert sources == {"generation/source=released", "generation/source=original"}  # orig: the file's own decoys
    variants = {r.variant for r in out.rows if r.metric == "mc_accuracy"}
    assert variants == {"orig", "iou", "qou", "iou+qou", "all"}
    table = next(t for ts in tables_of([out.rundir.path]).values() for t in ts if t.reference.endswith("Table 3"))
    assert table.headers[2:] == ("Orig", "IoU", "QoU", "IoU+QoU", "All")
    assert {row[0] for row in table.body} >= {"Random", "Eq. 2 rule"}


@pytest.mark.parametrize("suite,orig_candidates", [("decoys-vqa1", 18), ("decoys-vqa2", None), ("decoys-vg", None)])
def test_other_decoy_suites_run(world, host, tmp_path, suite, orig_candidates):
    root, _ = world
    out = _run(host, tmp_path, "prior", suite, root)
    per_set = {r.variant: r.value for r in out.rows if r.metric == "candidates_per_question"}
    assert per_set and all(v >= 2 for v in per_set.values())
    if orig_candidates:
        assert per_set["orig"] == orig_candidates
    # Generated decoys are said so in the audit's rows: one per task (decoy set); the Orig
    # task's decoys are VQA v1's own 18 choices.
    sources = sorted(r.metric for r in out.rows if r.metric.startswith("generation/source="))
    expected = ["generation/source=generated"] * (len(per_set) - bool(orig_candidates))
    assert sources == expected + ["generation/source=original"] * bool(orig_candidates)


def test_e_vil_runs_every_dataset_present(world, host, tmp_path):
    root, _ = world
    out = _run(host, tmp_path, "retrieval-explainer", "e-vil-cheap", root)
    assert {r.dataset for r in out.rows if r.metric == "s_t"} == {"e-snli-ve", "vqa-x", "vcr"}


def test_e_vil_scores_by_hand(world, host, tmp_path):
    """red-explainer answers "red" / the first candidate and explains "the square looks blue".

    VQA-X test: 20 squares coloured blue, green, red, yellow in turn, 10 identical answers:
    5 answered right, S_T = 5/20. Their references are "the square is red", "it is painted
    red", "red paint": BLEU-1 (clipped unigrams "the", "square" of 4; the closest reference
    length is 4, no brevity penalty) = 2/4, ROUGE-L (LCS 2 of 4 with the first) = 1/2, and
    S_O = S_T * S_E = 0.125. VCR val: answer_label alternates 0, 1 over 12: S_T = 6/12; the
    reference "person1 holds the wheel" shares "the": BLEU-1 = ROUGE-L = 1/4, S_O = 0.125.
    e-SNLI-VE test: labels cycle entailment, neutral, contradiction (the first candidate
    is entailment): S_T = 8/24."""
    root, _ = world
    out = _run(host, tmp_path, "red-explainer", "e-vil-cheap", root)
    got = {(r.dataset, r.metric): (r.value, r.n) for r in out.rows if not r.variant}
    expected = {
        ("vqa-x", "s_t"): (0.25, 20), ("vqa-x", "n_correct"): (5, 20), ("vqa-x", "s_e/bleu1"): (0.5, 5),
        ("vqa-x", "s_e/rouge_l"): (0.5, 5), ("vqa-x", "s_o/bleu1"): (0.125, 20), ("vqa-x", "s_o/rouge_l"): (0.125, 20),
        ("vcr", "s_t"): (0.5, 12), ("vcr", "s_e/bleu1"): (0.25, 6), ("vcr", "s_e/rouge_l"): (0.25, 6),
        ("vcr", "s_o/bleu1"): (0.125, 12), ("vcr", "s_o/rouge_l"): (0.125, 12),
        ("e-snli-ve", "s_t"): (1 / 3, 24), ("e-snli-ve", "n_correct"): (8, 24),
    }
    for key, (value, n) in expected.items():
        assert got[key][0] == pytest.approx(value, abs=1e-6) and got[key][1] == n, (key, got[key])
    s_e, s_o = got[("e-snli-ve", "s_e/bleu1")], got[("e-snli-ve", "s_o/bleu1")]
    assert s_o[0] == pytest.approx(s_e[0] / 3) and (s_e[1], s_o[1]) == (8, 24)


def test_e_vil_with_only_e_snli_ve_names_the_skipped_datasets(host, tmp_path):
    root = tmp_path / "data"
    for split in ("train", "test"):
        write_esnlive(root, split)
    out = _run(host, tmp_path, "retrieval-explainer", "e-vil", root, limit=6)
    assert {r.dataset for r in out.rows if r.metric == "s_t"} == {"e-snli-ve"}
    skipped = {task.split("/")[0]: reason for task, probe, reason in out.skipped if probe == "*"}
    assert set(skipped) == {"vqa-x", "vcr"}
    assert str(root / "vqax" / "vqaX_test.json") in skipped["vqa-x"]


def test_with_only_dev_and_val_files_e_vil_points_to_e_vil_dev(host, tmp_path):
    root = tmp_path / "data"
    write_esnlive(root, "dev")
    write_vqax(root, "val")
    with pytest.raises(DataError) as err:
        run_in_process(host, model="qonly", suite="e-vil", tmp_path=tmp_path, data_dir=root)
    message = str(err.value)
    assert message.startswith(f"no task of suite 'e-vil' can run: missing file(s) {root / 'esnlive' / 'esnlive_test.csv'}")
    assert "(+" not in message  # six files: all shown
    assert (f"(check --data-dir {root}; `harness data status --data-dir {root}` lists every file each dataset "
            "needs and where it is released); with the files present, suite 'e-vil-dev' or 'e-vil-cheap-dev' can run "
            "(--suite e-vil-dev)") in message
    assert "\n" not in message and "set --data-dir" not in message
    with pytest.raises(DataError, match=r"\(set --data-dir DIR; `harness data status --data-dir DIR` lists"):
        run_in_process(host, model="qonly", suite="goyal", tmp_path=tmp_path)
    out = _run(host, tmp_path / "dev", "retrieval-explainer", "e-vil-cheap-dev", root, limit=6)
    assert {r.dataset for r in out.rows if r.metric == "s_t"} == {"e-snli-ve", "vqa-x"}


def test_a_model_without_training_needs_no_train_files(host, tmp_path):
    root = tmp_path / "data"
    write_esnlive(root, "test")  # only the released test file
    out = run_in_process(host, model="always-red", suite="e-vil", tmp_path=tmp_path, data_dir=root)
    assert ("e-snli-ve/test [e-SNLI-VE]", "nle", "model 'always-red' lacks explain") in out.skipped


def test_counterfactual_on_vqa2(world, host, tmp_path):
    """The colour kinds apply to the questions that name a colour: in the v2 val miniature
    only "Is the square red?" does. The prior gives one answer whatever it is asked: its
    accuracy on them is its VQA accuracy there, before and after, and no answer changes."""
    root, annotations = world
    out = _run(host, tmp_path, "prior", "counterfactual-vqa2", root)
    rows = {(r.variant, r.metric): r for r in out.rows}
    questions = json.loads((root / "vqa2" / "v2_OpenEnded_mscoco_val2014_questions.json").read_text())["questions"]
    red = {q["question_id"] for q in questions if q["question"] == "Is the square red?"}
    assert len(red) == 9 and len(questions) == 60
    train = Counter(normalize_answer(a["multiple_choice_answer"]) for a in annotations["v2/train"])
    prior = min(train, key=lambda a: (-train[a], a))
    acc = [vqa_accuracy(prior, [x["answer"] for x in a["answers"]]) for a in annotations["v2/val"]
           if a["question_id"] in red]
    for kind in ("color_max_common", "color_min_uncommon"):
        assert (rows[(kind, "applicable")].value, rows[(kind, "applicable")].n) == (9, 60)
        assert rows[(kind, "coverage")].value == pytest.approx(9 / 60)
        assert rows[(kind, "acc_q")].value == pytest.approx(sum(acc) / 9) == rows[(kind, "acc_q_cf")].value
        assert rows[(kind, "answer_change_rate")].value == 0.0


def test_real_vqa_x_val_through_a_vqa_suite_and_the_counterfactual_suite(shared_data, host, tmp_path):
    out = _run(host, tmp_path / "a", "always-red", "vqa-x-as-vqa", shared_data)
    acc = next(r for r in out.rows if r.metric == "vqa_accuracy")
    assert acc.n == 1459 and 0 < acc.value < 1
    cf = _run(host, tmp_path / "b", "always-red", "counterfactual-vqax", shared_data)
    assert any(r.metric == "answer_change_rate" for r in cf.rows)


def test_counterfactual_on_vqa_x_val_alone_for_a_trainable_model(shared_data, host, tmp_path):
    """No vqaX_train.json in ../shared/data: counterfactual-vqax points to the -dev suite,
    which fits on one by-image half of val and asks the other."""
    with pytest.raises(DataError, match=r"vqaX_train\.json .*suite 'counterfactual-vqax-dev'.* can run"):
        run_in_process(host, model="qonly", suite="counterfactual-vqax", tmp_path=tmp_path, data_dir=shared_data)
    out = _run(host, tmp_path, "qonly:epochs=1", "counterfactual-vqax-dev", shared_data, limit=40)
    rows = [r for r in out.rows if r.metric == "answer_change_rate"]
    assert rows and {(r.dataset, r.split, r.train) for r in rows} == {("vqa-x", "val-eval", "vqa-x/val-fit")}
    assert {r.n for r in out.rows if r.metric == "coverage"} == {40}

