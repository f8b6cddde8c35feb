"""The counter-examples probe's Model and Model (trained) rankers through the real runner:
`score_images` rankings with hand-checked values, the answer each explains, the candidate
order the model sees; and the Model ranker reported as not applicable when the answer
scores cannot depend on the image (declared inputs, or identical scores)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from harness.api import Model, Suite, Task
from harness.testing import ListDataset, hookimpl, make_host, run_in_process
from harness.types import CANDIDATE_IMAGES, Answer, Example
from vqa_harness_plugins import balanced as balanced_plugin
from vqa_harness_plugins.probes.balanced.counterexamples import image_independent


def _q(id_, image, label, pair):
    return Example(id=id_, question="What color?", image_id=image, answers=(label,) * 10, label=label,
                   answer_type="other", question_type="what color", pair_id=pair)


# Features = the image index; K = 8: img0's complement img10 is not among its 7 nearest.
# Candidates are the split's images: questions without a pair put img0-img29 in the split.
EXAMPLES = [_q("a", "img0", "red", "b"), _q("b", "img10", "blue", "a"),
            _q("c", "img20", "green", "d"), _q("d", "img21", "red", "c")] + [
    _q(f"f{i}", f"img{i}", "red", "") for i in range(30) if i not in (0, 10, 20, 21)]
COMPLEMENT = {"a": "img10", "b": "img0", "c": "img21", "d": "img20"}
SEEN: dict[str, list] = {}


class Explainer(Model):
    """score_images: 1 for the complement, else 0 (so Recall@5 = 1); answers "red"."""

    name = "explainer"

    def answer(self, batch):
        return [Answer("red", {"red": 0.9, "blue": 0.1}) for _ in batch]

    def score_images(self, batch, answers):
        out = []
        for ex, answer in zip(batch, answers):
            cands = [c for c, _ in ex.meta[CANDIDATE_IMAGES]]
            SEEN[ex.id] = [answer, cands]
            out.append([1.0 if c == COMPLEMENT[ex.id] else 0.0 for c in cands])
        return out


class QuestionOnly(Model):
    """Answer scores from the question alone, and it says so (`inputs`)."""

    name = "question-only"
    inputs = frozenset({"question"})

    def answer(self, batch):
        return [Answer("red", {"red": 0.7, "blue": 0.3}) for _ in batch]


class Constant(Model):
    """No declared inputs, but the same scores on every image."""

    name = "constant"

    def answer(self, batch):
        return [Answer("red", {"red": 0.6, "green": 0.4}) for _ in batch]


class Seer(Model):
    """Answer scores that follow the image (so its Model ranker applies)."""

    name = "seer"

    def answer(self, batch):
        return [Answer("red", {"red": int(ex.image_id[3:]) / 30.0}) for ex in batch]


class Contrary(Model):
    """Answer scores that follow the image the other way round."""

    name = "contrary"

    def answer(self, batch):
        return [Answer("red", {"red": 1.0 - int(ex.image_id[3:]) / 30.0}) for ex in batch]


def _plugin(features_path, **options):
    data_cls = type("CEData", (ListDataset,), {"name": "ce-data", "data": {"val": EXAMPLES}, "splits": ("val",)})
    probe_options = {"counter-examples": {"features": str(features_path), "k": 8, "max_questions": 0, **options}}

    class Plugin:
        @hookimpl
        def register_datasets(self, register):
            register(data_cls)

        @hookimpl
        def register_models(self, register):
            for cls in (Explainer, QuestionOnly, Constant, Seer, Contrary):
                register(cls)

        @hookimpl
        def register_suites(self, register):
            register(Suite("ce-suite", "test", (Task("ce-data", "val", ("counter-examples",),
                                                     probe_options=probe_options),)))

    return Plugin()


@pytest.fixture
def features(tmp_path):
    path = tmp_path / "feats.npz"
    np.savez(path, ids=np.array([f"img{i}" for i in range(30)]), features=np.arange(30.0).reshape(-1, 1))
    return path


def _run(tmp_path, features, model, **options):
    host = make_host(_plugin(features, **options), balanced_plugin, names=["ce", "balanced"])
    outcome = run_in_process(host, model=model, suite="ce-suite", tmp_path=tmp_path)
    assert outcome.exit_code == 0, outcome.probe_failures
    rows = {r.variant: r for r in outcome.rows if r.metric == "counterexample/recall@5"}
    return rows, (outcome.rundir.path / "report.md").read_text()


def test_trained_ranker_uses_score_images(tmp_path, features):
    SEEN.clear()
    rows, report = _run(tmp_path, features, "explainer")
    assert rows["trained"].value == 1.0 and rows["trained"].n == 4
    assert rows["distance"].value == 0.5  # a, b: complement outside the 7 nearest
    # The model explains the ground-truth answers and never sees the complement first
    # every time (the probe's own candidate list starts with it).
    assert {k: v[0] for k, v in SEEN.items()} == {"a": "red", "b": "blue", "c": "green", "d": "red"}
    assert all(len(v[1]) == 8 and COMPLEMENT[k] in v[1] for k, v in SEEN.items())
    assert [v[1].index(COMPLEMENT[k]) for k, v in sorted(SEEN.items())] != [0, 0, 0, 0]
    assert "ground-truth answer" in report
    assert "among the K-1 nearest images for 2 of 4 questions" in report
    assert "trained 100.0 / 100.0" in report and "distance 100.0 / 0.0" in report


def test_candidates_are_the_splits_images_even_when_the_feature_file_has_more(tmp_path, features):
    """A feature file wider than the split (COCO-wide, or a --limit run): an image no question
    of the split is on has no file to show a model, so it is never a candidate."""
    SEEN.clear()
    wide = tmp_path / "wide.npz"
    np.savez(wide, ids=np.array([f"img{i}" for i in range(60)]), features=np.arange(60.0).reshape(-1, 1))
    rows, report = _run(tmp_path, wide, "explainer")
    assert rows["trained"].n == 4
    assert all(set(v[1]) <= {f"img{i}" for i in range(30)} for v in SEEN.values())
    assert "drawn from the split's 30 images with features (60 in the features)" in report


def test_too_few_split_images_with_features_is_unavailable_not_a_number(tmp_path):
    narrow = tmp_path / "narrow.npz"  # features for 6 of the split's 30 images; K = 8
    np.savez(narrow, ids=np.array([f"img{i}" for i in (0, 10, 20, 21, 1, 2)] + [f"other{i}" for i in range(9)]),
             features=np.arange(15.0).reshape(-1, 1))
    rows, report = _run(tmp_path, narrow, "explainer")
    assert rows == {}
    assert "only 6 images of the split have features, need k=8" in report


def test_trained_ranker_can_explain_the_predicted_answer(tmp_path, features):
    SEEN.clear()
    rows, report = _run(tmp_path, features, "explainer", explain_answer="predicted")
    assert {v[0] for v in SEEN.values()} == {"red"} and rows["trained"].value == 1.0
    assert "the model's answer" in report


def test_model_ranker_not_applicable_for_declared_question_only_model(tmp_path, features):
    rows, report = _run(tmp_path, features, "question-only")
    assert set(rows) == {"chance", "random", "distance"}
    # model-free references: the same for every model, so no model is better on them
    assert [rows[v].higher_is_better for v in ("chance", "random", "distance")] == [None, None, None]
    assert "not applicable: the model does not read the image (inputs: question)" in report
    assert "no \\`score_images\\` capability" in report  # report cells escape code marks (md_cell)


def test_model_ranker_not_applicable_when_scores_ignore_the_image(tmp_path, features):
    rows, report = _run(tmp_path, features, "constant")
    assert "model" not in rows
    assert "is the same on every candidate image of all 4 questions" in report


def test_image_independent_needs_every_question_constant():
    assert image_independent([[0.5, 0.5, 0.5], [float("-inf")] * 3, [0.2, 0.2 + 1e-9, 0.2]])
    assert not image_independent([[0.5, 0.5, 0.5], [0.2, 0.3, 0.2]])
    assert not image_independent([[0.5, float("-inf"), 0.5]])
    assert image_independent([[1000.0, 1000.0 + 1e-4]])  # relative to the magnitude
    assert not image_independent([[1.0, 1.0 + 1e-4]])


def test_leaderboard_shows_the_inapplicable_model_ranker_as_na_with_its_reason(tmp_path, features):
    # The probe tags the task (n/a:<metric>:<ranker>); the table cell says "n/a", the reason is
    # the cell's hover text and the table note, in the site and in index.md (not a bare "-").
    import json

    from vqa_harness_leaderboard import build_leaderboard

    host = make_host(_plugin(features), balanced_plugin, names=["ce", "balanced"])
    outcome = run_in_process(host, model="constant", suite="ce-suite", tmp_path=tmp_path)
    tags = json.loads((outcome.rundir.path / "tables.json").read_text())["tags"]
    assert any("n/a:counterexample/recall@5:model" in t["tags"] for t in tags)
    seer = run_in_process(host, model="seer", suite="ce-suite", tmp_path=tmp_path)
    assert any(r.variant == "model" for r in seer.rows)
    out = tmp_path / "site"
    build_leaderboard([outcome.rundir.path.parent], out)
    md = (out / "index.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| constant"))
    assert "| n/a" in row
    assert "n/a (constant): not applicable, the model's score for its answer is the same on every candidate" in md
    html = (out / "index.html").read_text()
    assert '<td class="na" title="not applicable: the model&#x27;s score for its answer is the same' in html


def test_recall_hits_per_question_are_written_and_compared(tmp_path, features, capsys):
    # Every ranker's 0/1 hits go to the per-example scores, so `harness compare` tests two
    # models' Recall@5 on the same questions (McNemar applies: the scores are 0/1).
    from harness.perexample import read_scores
    from vqa_harness_cli import main
    from vqa_harness_leaderboard.compare import compare_runs
    from vqa_harness_leaderboard.runs import load_run

    host = make_host(_plugin(features), balanced_plugin, names=["ce", "balanced"])
    seer = run_in_process(host, model="seer", suite="ce-suite", tmp_path=tmp_path / "seer")
    contrary = run_in_process(host, model="contrary", suite="ce-suite", tmp_path=tmp_path / "contrary")
    found, problems = read_scores(seer.rundir.path)
    assert problems == []
    scores = {s.variant: s for s in found if s.probe == "counter-examples"}
    assert set(scores) == {"random", "distance", "model"} and scores["model"].ids == ("a", "b", "c", "d")
    rows = {r.variant: r for r in seer.rows if r.metric == "counterexample/recall@5"}
    for variant, s in scores.items():
        hits = s.scores["counterexample/recall@5"]
        assert set(hits) <= {0.0, 1.0} and sum(hits) / len(hits) == rows[variant].value
    comparisons, _ = compare_runs(load_run(seer.rundir.path), load_run(contrary.rundir.path),
                                  probes=("counter-examples",), n_boot=500)
    by = {c.a.variant: c for c in comparisons}
    assert set(by) == {"random", "distance", "model"}
    assert by["model"].mcnemar is not None and by["model"].test.n == 4
    assert by["distance"].test.diff == 0.0 and by["distance"].test.p == 1.0  # model-free ranker: same hits
    assert main(["compare", str(seer.rundir.path), str(contrary.rundir.path), "--probe", "counter-examples",
                 "--n-boot", "500", "--wide"]) == 0
    out = capsys.readouterr().out
    assert any("| model " in ln and "counterexample/recall@5" in ln for ln in out.splitlines())


def test_model_scores_that_differ_only_in_the_last_bits_rank_the_same():
    """Another CPU model may compute a score one unit in the last place apart: the model
    rankers compare scores to 6 significant digits, so the ranking does not move."""
    import random

    from vqa_harness_plugins.models.features.candidates import rank
    from vqa_harness_plugins.probes.balanced.counterexamples import significant

    here = {"a": 0.30000001192092896, "b": 0.3000000417232513, "c": 0.1, "d": float("-inf")}
    there = {**here, "a": 0.3000000417232513, "b": 0.30000001192092896}  # the near-tie flipped
    assert sorted(here, key=here.get) != sorted(there, key=there.get)
    assert (rank(list(here), significant(here), random.Random(3))
            == rank(list(there), significant(there), random.Random(3)))
    assert significant({"x": 0.123456789})["x"] == 0.123457


def _rankings_file(tmp_path, features, model):
    host = make_host(_plugin(features), balanced_plugin, names=["ce", "balanced"])
    outcome = run_in_process(host, model=model, suite="ce-suite", tmp_path=tmp_path)
    assert outcome.exit_code == 0, outcome.probe_failures
    (path,) = (outcome.rundir.path / "artifacts" / "counter-examples").rglob("rankings-*.jsonl")
    hits = {}
    for f in (outcome.rundir.path / "artifacts" / "counter-examples").rglob("per_example/*.json"):
        data = json.loads(f.read_text())
        hits[data["variant"]] = dict(zip(data["ids"], data["scores"]["counterexample/recall@5"]))
    return {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}, hits


@pytest.mark.parametrize("model, rankers", [("explainer", {"random", "distance", "trained"}),
                                            ("seer", {"random", "distance", "model"})])
def test_the_candidates_their_order_and_every_ranking_are_written_out(tmp_path, features, model, rankers):
    """A researcher can re-derive each question's hit from the file: the candidates, the order
    the trained ranker showed them in, the scores each ranker sorted, and the seeded tie-break."""
    from vqa_harness_plugins.models.features.candidates import question_rng, rank

    SEEN.clear()
    records, hits = _rankings_file(tmp_path / "one", features, model)
    again, _ = _rankings_file(tmp_path / "two", features, model)
    assert records == again and sorted(records) == ["a", "b", "c", "d"]  # deterministic, ties included
    for qid, rec in records.items():
        assert rec["complement"] == COMPLEMENT[qid] and rec["candidates"][0] == COMPLEMENT[qid]
        assert len(rec["candidates"]) == len(rec["distances"]) == 8 and set(rec["rankings"]) == rankers
        for ranker, order in rec["rankings"].items():
            assert sorted(order) == sorted(rec["candidates"])
            assert rec["hits"][ranker] == hits[ranker][qid] == float(COMPLEMENT[qid] in order[:5])
        assert rec["rankings"]["random"] == rank(rec["candidates"], None, question_rng(0, f"random/{qid}"))
        dist = dict(zip(rec["candidates"], rec["distances"]))
        assert rec["rankings"]["distance"] == rank(rec["candidates"], dist, question_rng(0, f"distance/{qid}"))
        if model == "explainer":  # 7 tied candidates: the written order is the seeded tie-break's
            assert rec["shown"]["trained"] == SEEN[qid][1]
            scores = dict(zip(rec["shown"]["trained"], rec["scores"]["trained"]))
            assert scores == {c: float(c == COMPLEMENT[qid]) for c in rec["candidates"]}
            assert rec["rankings"]["trained"] == rank(rec["shown"]["trained"], {c: -v for c, v in scores.items()},
                                                      question_rng(0, f"trained/{qid}"))
        else:
            scores = dict(zip(rec["candidates"], rec["scores"]["model"]))
            assert scores == {c: float(f"{int(c[3:]) / 30.0:.6g}") for c in rec["candidates"]}  # `significant`
            assert rec["rankings"]["model"] == rank(rec["candidates"], scores, question_rng(0, f"model/{qid}"))


def test_an_edited_feature_file_runs_the_probe_again_not_a_stored_output(tmp_path, features):
    """`features=FILE` is keyed by the file's stamps, not its path alone: rewriting the file
    (img10 moved next to img0, so Distance finds every complement) gives the new Recall@5,
    not the output stored by the first run."""
    first, _ = _run(tmp_path, features, "explainer")
    assert first["distance"].value == 0.5
    again, _ = _run(tmp_path, features, "explainer")  # unchanged file: restored, same rows
    assert again["distance"].value == 0.5
    values = np.arange(30.0)
    values[10] = 0.1
    np.savez(features, ids=np.array([f"img{i}" for i in range(30)]), features=values.reshape(-1, 1))
    st = features.stat()
    os.utime(features, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    edited, _ = _run(tmp_path, features, "explainer")
    assert edited["distance"].value == 1.0
