"""ProbeContext hides a dataset's multiple-choice view from open-ended answer calls; a probe's
rows are finite numbers or the probe fails."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.api import Model, Probe
from harness.hookspecs import hookimpl
from harness.testing import dataset_plugin, make_host, run_in_process
from harness.types import Example


class PeekModel(Model):
    """Answers with the first candidate it is shown, else 'nothing shown'."""

    name = "peek"

    def answer(self, batch):
        return [ex.choices[0] if ex.choices else "nothing shown" for ex in batch]


class PeekPlugin:
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
    host = make_host(accuracy, data, PeekPlugin(), names=["acc", "data", "peek"])
    out = run_in_process(host, model="peek", suite="peek-suite", tmp_path=tmp_path)
    values = {r.metric: r.value for r in out.rows}
    assert values["vqa_accuracy"] == 0.0  # the candidates ("red" first) were hidden
    assert values["label_accuracy"] == 1.0  # a closed label set keeps its choices


class NotANumber(Probe):
    """Returns one good row, then one whose value or interval is not a finite number."""

    name = "nan-probe"
    requires = ("answer",)
    bad = {"value": float("nan")}

    def run(self, ctx):
        good = ctx.row("good", 0.5, 4)
        return [good, replace(ctx.row("mean_of_nothing", 0.5, 0, ci=(0.1, 0.9)), **self.bad)]


@pytest.mark.parametrize("bad", [{"value": float("nan")}, {"ci_high": float("inf")}, {"value": "0.5"}])
def test_a_row_that_is_not_a_finite_number_fails_its_probe_and_never_reaches_results(bad, tmp_path):
    class Plugin:
        @hookimpl
        def register_probes(self, register):
            register(type("Bad", (NotANumber,), {"bad": bad}))

    examples = [Example(id=f"o{i}", question="what color?", answers=("red",) * 10) for i in range(4)]
    data = dataset_plugin("nandata", {"val": examples}, suite="nan-suite", probes=("nan-probe",))
    host = make_host(data, Plugin(), PeekPlugin(), names=["data", "nan-plugin", "peek"])
    out = run_in_process(host, model="peek", suite="nan-suite", tmp_path=tmp_path)
    assert out.exit_code != 0 and out.rows == []
    (failure,) = out.probe_failures
    assert failure.plugin == "nan-plugin" and "metric 'mean_of_nothing'" in failure.message
    assert ("is not a finite number" if bad.get("value") != "0.5" else "value '0.5' is a str, not a float") \
        in failure.message
    results = (out.rundir.path / "results.jsonl").read_text()
    assert "NaN" not in results and "Infinity" not in results
