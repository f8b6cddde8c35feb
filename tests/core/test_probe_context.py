"""ProbeContext hides a dataset's multiple-choice view from open-ended answer calls."""

from __future__ import annotations

from harness.api import Model
from harness.hookspecs import hookimpl
from harness.testing import dataset_plugin, make_host, run_in_process
from harness.types import Example


class PeekModel(Model):
    """Answers with the first candidate it is shown, else 'nothing shown'."""

    name = "peek"

    def answer(self, batch):
        return [ex.choices[0] if ex.choices else "nothing shown" for ex in batch]


class Plugin:
    @hookimpl
    def register_models(self, register):
        register(PeekModel)


def test_open_ended_questions_reach_the_model_without_choices(tmp_path):
    import vqa_harness_plugins.vqa as accuracy

    open_ended = [Example(id=f"o{i}", question="what color?", answers=("red",) * 10, choices=("red", "blue"))
                  for i in range(4)]
    closed = [Example(id=f"c{i}", question="a dog runs", label="entailment",
                      choices=("entailment", "neutral", "contradiction")) for i in range(4)]
    data = dataset_plugin("peekdata", {"val": open_ended + closed}, suite="peek-suite")
    host = make_host(accuracy, data, Plugin(), names=["acc", "data", "peek"])
    out = run_in_process(host, model="peek", suite="peek-suite", tmp_path=tmp_path)
    values = {r.metric: r.value for r in out.rows}
    assert values["vqa_accuracy"] == 0.0  # the candidates ("red" first) were hidden
    assert values["label_accuracy"] == 1.0  # a closed label set keeps its choices
