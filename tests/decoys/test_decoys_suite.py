"""Decoy datasets, the decoys / decoy-audit probes, MLP models and the CLI, end to end on toy data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from harness.api import Suite, Task
from harness.errors import DataError
from harness.hookspecs import hookimpl
from harness.testing import make_host, run_in_process

TOY = "toyvqa-mc:images=40"


@pytest.fixture(scope="module")
def toy_examples():
    from harness.errors import ResourceError
    from vqa_harness_plugins.datasets.multiple_choice import ToyVQAMC

    try:
        return ToyVQAMC(images=40, decoys="iou+qou").load("val")
    except ResourceError as exc:  # pragma: no cover
        pytest.skip(str(exc))


def test_toy_mc_examples_carry_every_decoy_set(toy_examples) -> None:
    ex = toy_examples[0]
    assert set(ex.meta["decoys"]) == {"orig", "iou", "qou"}
    assert ex.meta["mc_target"] in ex.choices
    assert len(ex.choices) == 1 + len(set(ex.meta["decoys"]["iou"]) | set(ex.meta["decoys"]["qou"]))
    same_image = {e.meta["mc_target"] for e in toy_examples if e.image_id == ex.image_id and e.id != ex.id}
    assert set(ex.meta["decoys"]["iou"]) - {d for d in ex.meta["decoys"]["orig"]} <= same_image | set(ex.meta["decoys"]["orig"])


class _Pick:
    """A throwaway plugin: a model that always scores the first candidate highest, a
    model with the wrong number of scores, and a suite over small toy decoy data."""

    @hookimpl
    def register_models(self, register):
        from harness.api import Model

        class First(Model):
            name = "first-choice"

            def score_choices(self, batch):
                return [[1.0] + [0.0] * (len(ex.choices) - 1) for ex in batch]

        class Wrong(Model):
            name = "wrong-count"

            def score_choices(self, batch):
                return [[0.0] for _ in batch]

        class Words(Model):
            name = "words"  # answers in words: the first candidate, or (every other question) no candidate

            def answer(self, batch):
                return [ex.choices[0] if i % 2 == 0 else "no such candidate" for i, ex in enumerate(batch)]

        register(First)
        register(Wrong)
        register(Words)

    @hookimpl
    def register_suites(self, register):
        tasks = tuple(Task(f"{TOY},decoys={v}", "val", ("decoys", "decoy-audit"), train=(f"{TOY},decoys={v}", "train"),
                           label=v, probe_options={"decoys": {"variants": v}, "decoy-audit": {"variants": v}})
                      for v in ("orig", "iou+qou"))
        register(Suite("decoys-small", "small toy decoy suite", tasks))


def _rows(outcome):
    return {(r.model, r.variant, r.metric): r.value for r in outcome.rows}


def test_suite_with_generic_model_ablations_and_audit(tmp_path: Path, toy_examples) -> None:
    host = make_host(_Pick(), builtins=True)
    out = run_in_process(host, model="first-choice", suite="decoys-small", tmp_path=tmp_path)
    assert out.exit_code == 0, out.probe_failures
    rows = _rows(out)
    for v in ("orig", "iou+qou"):
        for m in ("mc_accuracy", "mc_accuracy/QA", "mc_accuracy/IA", "mc_accuracy/A", "random_accuracy",
                  "eq2_rule_accuracy", "neutrality/decoys_never_target"):
            assert ("first-choice", v, m) in rows, (v, m)
    # The Eq. 2 shortcut works on the toy Orig decoys (odd decoys are never targets) and
    # fails on IoU+QoU (targets reused as decoys): the paper's §3.2 finding.
    assert rows[("first-choice", "orig", "eq2_rule_accuracy")] > 0.45  # chance 0.25
    assert rows[("first-choice", "iou+qou", "eq2_rule_accuracy")] < rows[("first-choice", "orig", "eq2_rule_accuracy")] - 0.2
    assert rows[("first-choice", "orig", "random_accuracy")] == pytest.approx(0.25)
    from vqa_harness_leaderboard import tables_of

    (table, *_) = [t for t in tables_of([out.rundir.path])["decoys-small"] if t.probe == "decoys"]
    assert table.headers == ("model", "input", "Orig", "IoU+QoU")  # the sets the suite ran
    names = [(row[0], row[1]) for row in table.body]
    assert ("Random", "") in names and ("Eq. 2 rule", "") in names and ("first-choice", "[A: answers only]") in names


def test_answers_matching_no_candidate_get_a_table_under_table_3(tmp_path: Path, toy_examples) -> None:
    host = make_host(_Pick(), builtins=True)
    out = run_in_process(host, model="words", suite="decoys-small", tmp_path=tmp_path)
    assert out.exit_code == 0, out.probe_failures
    rows = _rows(out)
    assert 0.4 < rows[("words", "orig", "mc_unmatched_rate")] < 0.6
    from vqa_harness_leaderboard import tables_of

    (table,) = [t for t in tables_of([out.rundir.path])["decoys-small"] if t.layout_id == "unmatched"]
    assert table.title.startswith("Decoys: answers matching no candidate (%)")
    assert table.headers == ("model", "input", "Orig", "IoU+QoU")
    body = {row[1]: row for row in table.body}
    assert set(body) == {"image + question", "[QA: no image]", "[IA: no question]", "[A: answers only]"}
    value = float(body["image + question"][2])
    assert value == round(100 * rows[("words", "orig", "mc_unmatched_rate")], 1)


def test_wrong_number_of_scores_fails_the_example_with_the_plugin_name(tmp_path: Path, toy_examples) -> None:
    host = make_host(_Pick(), builtins=True)
    out = run_in_process(host, model="wrong-count", suite="decoys-small", tmp_path=tmp_path)
    assert out.example_errors > 0 and out.exit_code != 0
    # Every failed example names the model plugin (the runner's containment).
    assert out.rows and all(r.value == 0.0 for r in out.rows if r.metric == "mc_accuracy")


def test_mlp_models_train_on_decoy_sets(toy_examples) -> None:
    from vqa_harness_plugins.datasets.multiple_choice import ToyVQAMC
    from vqa_harness_plugins.models.mlp import MLPA, MLPIQA

    data = ToyVQAMC(images=40, decoys="orig")
    train, val = data.load("train"), data.load("val")
    model = MLPA(hidden=32, epochs=15, lr=0.05)
    torch.manual_seed(123)
    caller = torch.get_rng_state()
    model.fit(train, seed=0)
    assert torch.equal(torch.get_rng_state(), caller)  # the program's generator is left as it was
    scores = model.score_choices(val)
    assert all(len(s) == len(ex.choices) for s, ex in zip(scores, val))
    acc = np.mean([ex.choices[int(np.argmax(s))] == ex.meta["mc_target"] for ex, s in zip(val, scores)])
    assert acc > 0.4  # answers alone beat chance (0.25) on the shortcut-laden Orig decoys
    fp = model.fingerprint()
    model.fit(train, seed=0)
    assert model.fingerprint() == fp and model.score_choices(val[:5]) == scores[:5]  # deterministic
    iqa = MLPIQA(hidden=16, epochs=1)
    iqa.fit(train[:50], seed=0)
    assert len(iqa.score_choices(val[:3])[0]) == len(val[0].choices)


def test_precomputed_image_features_report_unknown_ids(tmp_path: Path, toy_examples) -> None:
    from vqa_harness_plugins.models.mlp import MLPIA

    path = tmp_path / "feats.npz"
    np.savez(path, **{toy_examples[0].image_id: np.ones(4, np.float32)})
    model = MLPIA(hidden=8, epochs=1, image_features=str(path))
    with pytest.raises(DataError, match=r"unknown image id\(s\)"):
        model.fit(toy_examples, seed=0)


def _visual7w(tmp_path: Path, *, decoy_equal: bool = False) -> Path:
    images = []
    for i in range(6):
        pairs = []
        for j, (q, a, mc) in enumerate([("What color is the car?", "Red.", ["Blue.", "Green.", "Black."]),
                                        ("How many dogs?", "Two.", ["Three.", "One.", "Four."]),
                                        ("What is on the table?", "A cup.", ["A vase.", "A book.", "A plate."])]):
            if decoy_equal and i == 0 and j == 0:
                mc = ["Red", "Green.", "Black."]
            pairs.append({"qa_id": i * 10 + j, "image_id": i, "question": q, "answer": a,
                          "multiple_choices": mc, "type": "what"})
        images.append({"image_id": i, "filename": f"v7w_{i}.jpg", "split": "train" if i < 4 else "test",
                       "qa_pairs": pairs})
    path = tmp_path / "dataset_v7w_telling.json"
    path.write_text(json.dumps({"images": images}))
    return path


def test_visual7w_loader_normalizes_and_reads_released_decoys(tmp_path: Path) -> None:
    from vqa_harness_plugins.datasets.multiple_choice import Visual7W

    path = _visual7w(tmp_path)
    exs = Visual7W(file=str(path)).load("train")
    assert len(exs) == 12 and exs[0].meta["mc_target"] == "red"
    assert sorted(exs[0].choices) == ["black", "blue", "green", "red"]
    decoys = tmp_path / "decoys.json"
    decoys.write_text(json.dumps({"0": {"IoU_decoys": ["two", "a cup"], "QoU_decoys": ["white"]}}))
    # A released file must cover every question of the split (the other 11 are missing).
    with pytest.raises(DataError, match="11 question\\(s\\) have no IoU_decoys / QoU_decoys for decoys=all"):
        Visual7W(file=str(path), decoy_file=str(decoys), decoys="all").load("train")
    with pytest.raises(DataError, match="11 question\\(s\\) have no IoU_decoys for decoys=iou"):
        Visual7W(file=str(path), decoy_file=str(decoys), decoys="iou").load("train")
    full = {ex.id: {"IoU_decoys": ["zebra"], "QoU_decoys": ["kiwi"]} for ex in exs[1:]}
    decoys.write_text(json.dumps({"0": {"IoU_decoys": ["two", "a cup"], "QoU_decoys": ["white"]}, **full}))
    exs = Visual7W(file=str(path), decoy_file=str(decoys), decoys="all").load("train")
    assert sorted(exs[0].choices) == ["a cup", "black", "blue", "green", "red", "two", "white"]
    # A qa_id with no question, and a decoy equal to its target: counted, never patched.
    decoys.write_text(json.dumps({"999": {"IoU_decoys": [], "QoU_decoys": []}}))
    with pytest.raises(DataError, match="1 qa_id\\(s\\) have no question"):
        Visual7W(file=str(path), decoy_file=str(decoys), decoys="iou").load("train")
    decoys.write_text(json.dumps({"0": {"IoU_decoys": ["Red."], "QoU_decoys": []}}))
    with pytest.raises(DataError, match="list the target as a decoy"):
        Visual7W(file=str(path), decoy_file=str(decoys), decoys="iou").load("train")
    with pytest.raises(DataError, match="1 question\\(s\\) list the target among their original decoys"):
        Visual7W(file=str(_visual7w(tmp_path, decoy_equal=True))).load("train")


def test_visual_genome_split_is_50_20_30_by_image_and_seeded() -> None:
    from vqa_harness_plugins.datasets.multiple_choice import split_images

    ids = [str(i) for i in range(1000)]
    split = split_images(ids, 0)
    counts = {s: sum(1 for v in split.values() if v == s) for s in ("train", "val", "test")}
    assert counts == {"train": 500, "val": 200, "test": 300}
    assert split == split_images(list(reversed(ids)), 0)
    assert split != split_images(ids, 1)


def test_cli_generate_writes_released_shape(tmp_path: Path, toy_examples, monkeypatch) -> None:
    from click.testing import CliRunner

    import vqa_harness_plugins.generators.decoys.generate as gen
    from vqa_harness_plugins.probes.decoys.command import decoys

    # WordNet is exercised elsewhere; a cheap stand-in keeps this CLI test fast.
    monkeypatch.setattr(gen, "default_wup", lambda: (lambda a, b: 1.0 if a == b else 0.0))
    out = tmp_path / "toy_decoys.json"
    res = CliRunner().invoke(decoys, ["generate", "--dataset", TOY, "--split", "val", "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    first = data[toy_examples[0].id]
    assert set(first) == {"IoU_decoys", "QoU_decoys"} and len(first["IoU_decoys"]) <= 3
    same_image = {e.meta["mc_target"] for e in toy_examples if e.image_id == toy_examples[0].image_id}
    assert set(first["IoU_decoys"]) <= same_image | set(toy_examples[0].meta["decoys"]["orig"])
