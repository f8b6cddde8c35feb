"""The accuracy a question is scored with follows one stated rule: VQA accuracy needs at least
4 human answers; a one-answer dataset is scored by label accuracy and the report says so, never
a silent 0.0 (issue 26, finding 4)."""

from __future__ import annotations

import pytest

from harness.api import Model
from harness.metrics import MIN_VQA_ANSWERS, accuracy_metric, reference_label, vqa_accuracy
from harness.testing import dataset_plugin, hookimpl, make_host, run_in_process
from harness.types import Example

ONE_ANSWER = [Example(f"e{i}", f"what shape {i}?", answers=("circle" if i % 4 else "square",)) for i in range(8)]


class Circle(Model):
    name = "always-circle"

    def answer(self, batch):
        return ["circle" for _ in batch]


class Plugin:
    @hookimpl
    def register_models(self, register):
        register(Circle)


@pytest.fixture(scope="module")
def host():
    data = dataset_plugin("one-answer", {"val": ONE_ANSWER}, suite="one-answer-suite",
                          probes=("accuracy", "image-ablation"))
    return make_host(Plugin(), data, builtins=True, names=["rule-model", "one-answer"])


def test_the_rule() -> None:
    ten = Example("a", "q", answers=("red",) * 10)
    assert accuracy_metric(ten) == "vqa_accuracy" and vqa_accuracy("red", ten.answers) == 1.0
    assert accuracy_metric(Example("b", "q", answers=("red",) * MIN_VQA_ANSWERS)) == "vqa_accuracy"
    for n in (1, 2, 3):  # the official leave-one-out caps a right answer at (n - 1) / 3 < 1
        few = Example("c", "q", answers=("red",) * n)
        assert vqa_accuracy("red", few.answers) == pytest.approx((n - 1) / 3)
        assert accuracy_metric(few) == "label_accuracy" and reference_label(few) == "red"
    assert reference_label(Example("d", "q", answers=("b", "a", "b"))) == "b"
    # Counted as compared: "red" and "Red " are one answer, given twice, against one "Blue".
    assert reference_label(Example("f", "q", answers=("Blue", "red", "Red "))) == "red"
    assert reference_label(Example("e", "q", answers=("b", "a"), label="z")) == "z"
    assert accuracy_metric(Example("f", "q")) == ""


def test_a_one_answer_dataset_is_scored_by_label_accuracy_and_says_so(host, tmp_path) -> None:
    out = run_in_process(host, model="always-circle", suite="one-answer-suite", tmp_path=tmp_path)
    acc = {(r.probe, r.variant, r.metric): r for r in out.rows}
    assert not [k for k in acc if k[2].startswith("vqa_accuracy")]  # never the 0.0 a leave-one-out gives
    assert acc[("accuracy", "", "label_accuracy")].value == pytest.approx(6 / 8)
    assert acc[("image-ablation", "real", "label_accuracy")].value == pytest.approx(6 / 8)
    report = (out.rundir.path / "report.md").read_text()
    assert "8 of 8 question(s) have fewer than 4 human answers" in report
