"""The nle probe end to end on the toy benchmark: S_O = S_T * S_E exactly, GT row, empties."""

from __future__ import annotations

import json
import shutil

import pytest

from harness.api import Suite, Task
from harness.hookspecs import hookimpl
from harness.testing import make_host, run_in_process
from vqa_harness_plugins.models.explainers import RetrievalExplainer
from vqa_harness_plugins.nlp import bertscore

CHEAP = {"metrics": "bleu1,bleu4,rouge_l,cider", "tokenize": "simple"}


class Sloppy(RetrievalExplainer):
    """Returns an empty string or a non-string for some explanations."""

    name = "sloppy-explainer"

    def explain(self, batch, answers):
        out = super().explain(batch, answers)
        return [None if _bad(ex.id) == 1 else "" if _bad(ex.id) == 2 else e for ex, e in zip(batch, out)]


def _bad(example_id: str) -> int:
    return sum(map(ord, example_id)) % 5


class Plugin:
    @hookimpl
    def register_models(self, register):
        register(Sloppy)

    @hookimpl
    def register_suites(self, register):
        train = ("toyvqa:images=40", "train")
        register(Suite("nle-cheap", "", (Task("toyvqa:images=30", "val", ("nle",), train=train,
                                              probe_options={"nle": CHEAP}),)))
        register(Suite("nle-full", "", (Task("toyvqa:images=30", "val", ("nle",), train=train,
                                             probe_options={"nle": {"metrics": "rouge_l,cider,meteor,spice,bertscore_f1",
                                                                    "bertscore_batch": 8, "gt": False}}),)))
        register(Suite("nle-bertscore", "", (Task("toyvqa:images=30", "val", ("nle",), train=train,
                                                  probe_options={"nle": {"metrics": "rouge_l,cider,meteor,bertscore_f1",
                                                                         "tokenize": "simple"}}),)))


@pytest.fixture(scope="module")
def host():
    return make_host(Plugin(), builtins=True)


@pytest.fixture(scope="module")
def cheap_run(host, tmp_path_factory):
    return run_in_process(host, model="retrieval-explainer", suite="nle-cheap", tmp_path=tmp_path_factory.mktemp("r"))


def _rows(outcome, variant=""):
    return {r.metric: r for r in outcome.rows if r.variant == variant}


def test_s_o_is_exactly_s_t_times_s_e(cheap_run):
    assert cheap_run.exit_code == 0, cheap_run.probe_failures
    rows = _rows(cheap_run)
    s_t = rows["s_t"].value
    assert 0 < s_t <= 1 and rows["s_t"].unit == "fraction"
    for m in ("bleu1", "bleu4", "rouge_l", "cider"):
        assert rows[f"s_o/{m}"].value == s_t * rows[f"s_e/{m}"].value
        assert rows[f"s_e/{m}"].n == rows["n_correct"].value
    # on disk too (the leaderboard reads results.jsonl)
    disk = [json.loads(x) for x in (cheap_run.rundir.path / "results.jsonl").read_text().splitlines()]
    d = {r["metric"]: r["value"] for r in disk if r["variant"] == ""}
    assert d["s_o/cider"] == d["s_t"] * d["s_e/cider"]


def test_s_e_is_the_metric_on_the_correctly_answered_examples(cheap_run):
    from vqa_harness_plugins.metrics.nlg import nlg_scores

    (meta,) = (cheap_run.rundir.path / "artifacts" / "nle").rglob("*.meta.json")
    folder, stem = meta.parent, meta.name[: -len(".meta.json")]
    records = [json.loads(x) for x in (folder / f"{stem}.jsonl").read_text().splitlines()]
    correct = [r for r in records if r["correct"]]
    assert correct and all(r["task_score"] > 0 for r in correct)  # rule "any": VQA accuracy > 0
    direct = nlg_scores([r["explanation"] for r in correct], [r["references"] for r in correct],
                        metrics=("bleu1", "cider"), tokenize="simple")
    rows = _rows(cheap_run)
    assert rows["s_e/cider"].value == direct.corpus["cider"]
    assert rows["s_e/bleu1"].value == direct.corpus["bleu1"]


def test_gt_row_scores_each_reference_against_the_others(cheap_run):
    from vqa_harness_plugins.metrics.nlg import nlg_scores
    from vqa_harness_plugins.probes.e_vil.scoring import gt_pairs

    gt = _rows(cheap_run, "gt")
    assert set(gt) == {"s_e/bleu1", "s_e/bleu4", "s_e/rouge_l", "s_e/cider"}
    from vqa_harness_plugins.datasets.toyvqa import ToyVQA

    cands, refs, used = gt_pairs(ToyVQA(images=30).examples("val"))
    assert gt["s_e/cider"].n == len(cands) == 3 * used
    assert gt["s_e/cider"].value == nlg_scores(cands, refs, metrics=("cider",), tokenize="simple").corpus["cider"]


def test_tables_follow_kayser_table_3(cheap_run):
    from vqa_harness_leaderboard import tables_of

    (main, auto) = [t for ts in tables_of([cheap_run.rundir.path]).values() for t in ts]
    assert main.reference == "Kayser et al. 2021, Table 3"
    assert main.headers[:2] == ("model", "Overall S_E")
    # The cheap bundle has no combined e-ViL score: only S_T, and no S_E to average.
    assert main.headers[2:] == ("toyvqa:images=30 (val) S_T",)
    assert [r[:2] for r in main.body] == [("retrieval-explainer", "-")]
    assert "BLEU-1" in auto.headers and auto.body[-1][0] == "GT"


def test_empty_and_non_string_explanations_are_scored_empty_and_counted(host, tmp_path):
    out = run_in_process(host, model="sloppy-explainer", suite="nle-cheap", tmp_path=tmp_path)
    rows = _rows(out)
    n = int(rows["n_correct"].value)
    folder = out.rundir.path / "artifacts" / "nle"
    (records,) = [[json.loads(x) for x in p.read_text().splitlines()] for p in folder.rglob("*.jsonl")]
    correct = [r for r in records if r["correct"]]
    assert len(correct) == n and all(r["explanation"] == "" for r in correct if _bad(r["id"]) in (1, 2))
    assert 0 < rows["empty_explanations"].value == len([r for r in correct if _bad(r["id"]) in (1, 2)])
    report = (out.rundir.path / "report.md").read_text()
    assert f"{int(rows['empty_explanations'].value)} of {n} explanations were empty or not strings" in report


def test_full_bundle_names_the_combined_score_without_spice(host, tmp_path):
    from vqa_harness_plugins.metrics.nlg import spice_status

    if spice_status()[0]:
        pytest.skip("SPICE models are installed here")

    from vqa_harness_plugins.nlp.bertscore import bertscore_status

    if shutil.which("java") is None or not bertscore_status().present:
        pytest.skip("needs java and the local BERTScore model")
    out = run_in_process(host, model="retrieval-explainer", suite="nle-full", tmp_path=tmp_path, limit=12)
    assert out.exit_code == 0, out.probe_failures
    rows = _rows(out)
    assert "s_e/e_vil_score" not in rows and "s_e/spice" not in rows
    assert rows["s_o/e_vil_score_no_spice"].value == rows["s_t"].value * rows["s_e/e_vil_score_no_spice"].value
    report = (out.rundir.path / "report.md").read_text()
    assert "computed WITHOUT SPICE" in report and "s_e/spice" in report
    manifest = json.loads((out.rundir.path / "manifest.json").read_text())
    assert manifest["resources"]["bertscore_model"]
    from vqa_harness_leaderboard import tables_of

    main = next(t for ts in tables_of([out.rundir.path]).values() for t in ts if t.reference.endswith("Table 3"))
    task = "toyvqa:images=30 (val)"
    assert main.headers == ("model", "Overall S_E", f"{task} S_O (no SPICE)", f"{task} S_T", f"{task} S_E (no SPICE)")
    (model,) = main.body  # the suite turns the GT row off
    # Overall S_E is the mean of the S_E columns (one dataset here).
    assert model[0] == "retrieval-explainer"
    assert model[1] == model[4] == f"{100 * rows['s_e/e_vil_score_no_spice'].value:.1f}"


def test_bertscore_not_installed_loses_no_other_score(host, tmp_path, monkeypatch):
    """BERTScore's model is a resource like SPICE's: without it, S_T, the other metrics and
    the ground-truth rows are kept; BERTScore and the combined score are unavailable with the
    reason (before, the probe failed and every row was lost)."""


    if shutil.which("java") is None:
        pytest.skip("needs java (METEOR)")
    monkeypatch.delenv("VQA_HARNESS_BERTSCORE_MODEL", raising=False)
    monkeypatch.setattr(bertscore, "_package_folder", lambda: None)
    out = run_in_process(host, model="retrieval-explainer", suite="nle-bertscore", tmp_path=tmp_path, limit=40)
    assert out.exit_code == 0 and not out.probe_failures, out.probe_failures
    rows, gt = _rows(out), _rows(out, "gt")
    assert {"s_t", "s_e/rouge_l", "s_o/cider", "s_e/meteor"} <= set(rows) and "s_e/rouge_l" in gt
    assert not {m for m in [*rows, *gt] if "bertscore" in m or "e_vil_score" in m}
    report = (out.rundir.path / "report.md").read_text()
    assert "`s_e/bertscore_f1` — the BERTScore model is not installed; pip install" in report
    assert "`s_e/e_vil_score` — needs bertscore_f1, rouge_l, cider and meteor; bertscore_f1 is unavailable" in report


def test_a_bertscore_model_chosen_but_unusable_fails_the_probe_before_any_model_call(host, tmp_path, monkeypatch):
    """A typo in the model the user chose (the variable, or the probe's bertscore_model=) is a
    one-line error, found before the model is asked anything, not a metric left out."""
    monkeypatch.setenv("VQA_HARNESS_BERTSCORE_MODEL", str(tmp_path / "no-such-model"))
    out = run_in_process(host, model="retrieval-explainer", suite="nle-bertscore", tmp_path=tmp_path)
    (failure,) = out.probe_failures
    assert failure.message.startswith("BERTScore model (from $VQA_HARNESS_BERTSCORE_MODEL): ")
    assert failure.message.endswith("; fix it, or leave bertscore_f1 out of the probe's metrics")
    assert "no-such-model is not a folder" in failure.message and out.model_calls == 0


def test_task_scores_follow_the_stated_rule_for_few_human_answers():
    """S_T on data with one human answer per question is label accuracy against that answer
    (VQA accuracy would be 0 for every model, and S_E would then have no correct question)."""
    from harness.errors import UsageError
    from harness.types import Example
    from vqa_harness_plugins.probes.e_vil.scoring import task_scores

    few = [Example("a", "q?", answers=("Red",)), Example("b", "q?", answers=("blue",))]
    scores = task_scores(few, ["red", "green"])
    assert scores.kind == "label_accuracy" and scores.values.tolist() == [1.0, 0.0]
    assert scores.correct.tolist() == [True, False]
    ten = Example("c", "q?", answers=("red",) * 10)
    assert task_scores([ten], ["red"]).kind == "vqa_accuracy"
    with pytest.raises(UsageError, match="S_T would mix"):
        task_scores([ten, few[0]], ["red", "red"])
