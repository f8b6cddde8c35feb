"""The balanced probes through the real runner: hand-checked values on a scripted model,
and the toy `balanced-vqa` suite (small world) down to the leaderboard tables."""

from __future__ import annotations

import json

import numpy as np
import pytest

from harness.api import Model, Suite, Task
from harness.testing import ListDataset, hookimpl, make_host, run_in_process
from harness.types import Answer, Example
from vqa_harness_plugins import balanced as balanced_plugin
from vqa_harness_plugins.probes import balanced as balanced_pkg


def _q(id_, image, question, label, pair):
    return Example(id=id_, question=question, image_id=image, answers=(label,) * 10, label=label,
                   answer_type="yes/no" if label in ("yes", "no") else "other",
                   question_type="is there a" if label in ("yes", "no") else "what color", pair_id=pair)


EXAMPLES = [
    _q("a", "img0", "Is there a dog?", "yes", "b"),
    _q("b", "img10", "Is there a dog?", "no", "a"),
    _q("c", "img20", "What color?", "red", "d"),
    _q("d", "img21", "What color?", "blue", "c"),
]
SCRIPT = {("img20", "What color?"): "red", ("img21", "What color?"): "blue"}
COMPLEMENTS = {"img0", "img10", "img20", "img21"}


class ScriptedModel(Model):
    """Answers from SCRIPT (else "yes"); the complement images get a low score for it."""

    name = "scripted"

    def answer(self, batch):
        out = []
        for ex in batch:
            text = SCRIPT.get((ex.image_id, ex.question), "yes")
            out.append(Answer(text, {text: 0.1 if ex.image_id in COMPLEMENTS else 0.9, "other": 0.05}))
        return out


def scripted_plugin(features_path):
    # Questions without a pair put img0-img29 in the split: the counter-example candidates.
    fillers = [_q(f"f{i}", f"img{i}", "What is it?", "cat", "") for i in range(30) if f"img{i}" not in COMPLEMENTS]
    data_cls = type("ScriptData", (ListDataset,), {"name": "script-data", "data": {"val": EXAMPLES + fillers},
                                                    "splits": ("val",)})
    options = {"counter-examples": {"features": str(features_path), "k": 8, "max_questions": 0}}

    class Plugin:
        @hookimpl
        def register_datasets(self, register):
            register(data_cls)

        @hookimpl
        def register_models(self, register):
            register(ScriptedModel)

        @hookimpl
        def register_suites(self, register):
            register(Suite("script-suite", "test", (Task("script-data", "val",
                     ("pairs", "counter-examples", "language-prior"), probe_options=options),)))

    return Plugin()


def _rows(outcome):
    return {(r.probe, r.metric, r.variant): r for r in outcome.rows}


def test_pair_and_counterexample_values_through_the_runner(tmp_path):
    feats = tmp_path / "feats.npz"
    np.savez(feats, ids=np.array([f"img{i}" for i in range(30)]), features=np.arange(30.0).reshape(-1, 1))
    host = make_host(scripted_plugin(feats), balanced_plugin, names=["script", "balanced"])
    outcome = run_in_process(host, model="scripted", suite="script-suite", tmp_path=tmp_path)
    assert outcome.exit_code == 0, outcome.probe_failures
    rows = _rows(outcome)
    # Pairs: (a, b) both "yes" -> identical, one wrong; (c, d) both right, different.
    assert rows[("pairs", "pair/both_correct", "")].value == 0.5
    assert rows[("pairs", "pair/identical", "")].value == 0.5
    assert rows[("pairs", "pair/different", "")].value == 0.5
    assert rows[("pairs", "pair/strict_accuracy", "")].value == 0.5
    assert rows[("pairs", "pair/both_correct", "")].n == 2
    # Counter-examples, K=8, features = index: the complement is never among the 7 nearest
    # images (img0 <-> img10 are 10 apart; img20 <-> img21 are adjacent, so those two hit).
    recall = {v: rows[("counter-examples", "counterexample/recall@5", v)] for v in
              ("chance", "random", "distance", "model")}
    assert recall["chance"].value == pytest.approx(5 / 8)
    assert recall["distance"].value == 0.5  # a, b miss (farthest); c, d hit (nearest)
    assert recall["model"].value == 1.0  # the complement always has the lowest score
    assert recall["model"].n == 4
    # The audit needs no model capability and ran on the same data.
    assert rows[("language-prior", "audit/answer_entropy", "")].unit == "bits"
    # Directions: the audit is model-free and chance is a chance level (no better direction);
    # the rankers' Recall@5 is higher-is-better, and the tables say so.
    assert {r.higher_is_better for (probe, _, _), r in rows.items() if probe == "language-prior"} == {None}
    assert recall["chance"].higher_is_better is None and recall["model"].higher_is_better is True
    from vqa_harness_leaderboard import tables_of

    tables = {t.layout_id: t.compact() for t in tables_of([outcome.rundir.path])["script-suite"]}
    ce = tables["recall"]
    assert dict(zip(ce.headers, ce.directions))["chance"] == "" and dict(zip(ce.headers, ce.directions))["Model"] == "↑"
    audit = tables["audit"]
    assert set(audit.directions) == {""} and "↑" not in audit.explanation and "lower is better" not in audit.explanation


def test_balanced_suite_on_a_small_toy_world_builds_goyal_tables(tmp_path):
    from vqa_harness_leaderboard import tables_of
    from vqa_harness_plugins import baselines, toy, vqa

    small = balanced_pkg.balanced_suite(images=60, name="balanced-small")

    class SmallSuite:
        @hookimpl
        def register_suites(self, register):
            register(small)

    host = make_host(toy, vqa, baselines, balanced_plugin, SmallSuite(),
                     names=["toy", "vqa", "baselines", "balanced", "small"])
    outcome = run_in_process(host, model="qtype-prior", suite="balanced-small", tmp_path=tmp_path)
    assert outcome.exit_code == 0, outcome.probe_failures
    rows = outcome.rows
    trains = {r.train for r in rows if r.probe == "balanced-accuracy"}
    assert trains == {"toyvqa:variant=unbalanced,images=60/train", "toyvqa-half:images=60/train",
                      "toyvqa:variant=balanced,images=60/train"}
    entropy = {r.dataset: r.value for r in rows if r.metric == "audit/answer_entropy"}
    assert entropy["toyvqa:variant=balanced,images=60"] > entropy["toyvqa:variant=unbalanced,images=60"]
    ce = {r.variant for r in rows if r.probe == "counter-examples"}
    # qtype-prior's answer scores do not depend on the image: its Model ranker is not applicable.
    assert ce == {"chance", "random", "distance"}
    assert "is the same on every candidate image" in (outcome.rundir.path / "report.md").read_text()
    tables = {t.title.split(":")[0]: t for t in tables_of([outcome.rundir.path])["balanced-small"]}
    table1 = tables["Goyal Table 1"]
    assert table1.headers == ("model", "UU", "UB", "B_half B", "BB")
    uu = next(r for r in rows if r.metric == "vqa_accuracy" and r.train.startswith("toyvqa:variant=unbalanced")
              and "unbalanced" in r.dataset)
    assert table1.body[0][0] == "qtype-prior" and table1.body[0][1].startswith(f"{100 * uu.value:.2f} [")
    assert [row[1] for row in tables["Goyal Table 3"].body] == ["Yes/No", "Number", "Other", "All"]
    pair_rows = tables["Complementary pairs (Goyal §4)"].body
    assert {r[1] for r in pair_rows} == {"U", "B_half", "B"}
    ce = next(t for k, t in tables.items() if k.startswith("Counter-example"))
    assert ce.headers[3:6] == ("chance", "Random", "Distance") and "Model" not in ce.headers


def test_export_command_writes_official_files(tmp_path, fresh_cache):
    from vqa_harness_cli import main

    assert main(["export", "toy-vqa2", "--variant", "balanced", "--out", str(tmp_path / "x"),
                 "--images", "5", "--split", "val", "--no-images"]) == 0
    files = sorted(p.name for p in (tmp_path / "x" / "vqa2").iterdir())
    assert files == ["toy_id_map.json", "v2_OpenEnded_mscoco_val2014_questions.json",
                     "v2_mscoco_val2014_annotations.json", "v2_mscoco_val2014_complementary_pairs.json"]
    pairs = json.loads((tmp_path / "x" / "vqa2" / "v2_mscoco_val2014_complementary_pairs.json").read_text())
    assert pairs and all(len(p) == 2 and all(isinstance(q, int) for q in p) for p in pairs)
