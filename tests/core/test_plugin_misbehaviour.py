"""What third-party model, probe and dataset code gets wrong while a run goes on: each is one
line naming the plugin (a failed example, a failed probe, a refused load), what was computed
stays, and no row reaches results.jsonl that the leaderboard would refuse or misread."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest
from helpers_mistakes import Echo, Share, plugin_with

from harness.api import DatasetPlugin
from harness.errors import PluginError
from harness.testing import dataset_plugin, make_host, run_in_process
from harness.types import Answer, Example

EXAMPLES = [Example(id=f"q{i}", question=f"what color is {i}?", answers=("red",) * 10) for i in range(4)]


def _run(tmp_path, models=(Echo,), probes=(Share,), examples=EXAMPLES, split="val"):
    data = dataset_plugin("colors", {split: examples})
    plugin = plugin_with(models=models, probes=probes, suite_probes=[p.name for p in probes])
    return run_in_process(make_host(data, plugin, names=["data", "mine0"]), model=models[0].name, suite="s",
                          tmp_path=tmp_path)


class Exits(BaseException):
    """What some libraries raise to abort (not an Exception)."""


# ------------------------------------------------------------------------ models


@pytest.mark.parametrize("returned, says", [
    (Answer(None), "answer text must be a str, got NoneType"),
    (Answer(3), "answer text must be a str, got int"),
    (Answer("red", {"red": float("nan")}), "answer scores hold NaN"),
])
def test_an_answer_that_is_not_text_or_has_nan_scores_is_a_failed_example_not_a_scored_string(returned, says,
                                                                                              tmp_path):
    model = type("Odd", (Echo,), {"name": "odd", "answer": lambda self, batch: [returned for _ in batch]})
    outcome = _run(tmp_path, models=(model,))
    assert outcome.exit_code == 1 and outcome.example_errors == 4
    [row] = outcome.rows
    assert row.value == 0.0  # no answer "None" or "3" counted as the model's
    text = (outcome.rundir.path / "report.md").read_text()
    assert f"plugin mine0:odd: TypeError: {says}" in text or f"plugin mine0:odd: ValueError: {says}" in text


@pytest.mark.parametrize("raised", [SystemExit("no GPU"), Exits("abort")])
def test_a_model_raising_systemexit_or_a_baseexception_fails_that_example_only(raised, tmp_path):
    def answer(self, batch):
        if any(ex.id == "q1" for ex in batch):
            raise raised
        return ["red" for _ in batch]

    outcome = _run(tmp_path, models=(type("Quits", (Echo,), {"name": "quits", "answer": answer}),))
    assert outcome.exit_code == 1 and outcome.example_errors == 1
    assert [r.value for r in outcome.rows] == [0.75]


def test_report_names_what_asked_each_failed_example(tmp_path):
    # One example failing in the plain view, in an ablation and in a second probe: one line each
    # in report.md saying which probe and variant asked (before: identical "`q1`: ..." lines).
    def answer(self, batch):
        if any(ex.question.endswith("1?") for ex in batch):
            raise RuntimeError("cannot")
        return ["red" for _ in batch]

    class Views(Share):
        name = "views"

        def run(self, ctx):
            ctx.predict(ctx.examples, "answer")
            ctx.predict(ctx.ablate(ctx.examples, "image"), "answer", variant="no-image")
            return [ctx.row("n", 1.0, 1)]

    model = type("Fails", (Echo,), {"name": "fails", "answer": answer})
    outcome = _run(tmp_path, models=(model,), probes=(Views, Share))
    assert outcome.exit_code == 1 and outcome.example_errors == 3  # a failed answer is asked again
    text = (outcome.rundir.path / "report.md").read_text()
    lines = [line for line in text.splitlines() if line.startswith("- `q1`")]
    assert [line.split(": plugin")[0] for line in lines] == [
        "- `q1` (colors/val views)", "- `q1` (colors/val views/no-image)", "- `q1` (colors/val share)"]
    assert all(line.endswith("RuntimeError: cannot") for line in lines)


def test_a_model_changing_the_examples_it_gets_does_not_change_them_for_later_probes(tmp_path):
    seen = []

    def answer(self, batch):
        for ex in batch:
            ex.meta["touched"] = True
            object.__setattr__(ex, "question", "changed")
        return ["red" for _ in batch]

    class Looks(Share):
        name = "looks"

        def run(self, ctx):
            seen.extend((ex.question, dict(ex.meta)) for ex in ctx.examples)
            return super().run(ctx)

    model = type("Mutates", (Echo,), {"name": "mutates", "answer": answer})
    outcome = _run(tmp_path, models=(model,), probes=(Share, Looks),
                   examples=[ex.with_(meta={"k": 1}) for ex in EXAMPLES])
    assert outcome.exit_code == 0 or outcome.rows
    assert len(seen) == 4 and all(q.startswith("what color is") and m == {"k": 1} for q, m in seen)


def test_examples_whose_meta_is_a_read_only_mapping_reach_the_model(tmp_path):
    # The model gets copies of the examples (above); a meta the dataset made read-only is still
    # a mapping of JSON values (Example.to_row): copied as one, not failing every example.
    frozen = [ex.with_(meta=MappingProxyType({"k": {"n": [1]}})) for ex in EXAMPLES]
    outcome = _run(tmp_path, examples=frozen)
    assert outcome.exit_code == 0 and outcome.example_errors == 0 and [r.value for r in outcome.rows] == [1.0]


# ------------------------------------------------------------------------ probes


@pytest.mark.parametrize("raised, says", [(SystemExit(3), "SystemExit: 3"), (Exits("abort"), "Exits: abort")])
def test_a_probe_raising_systemexit_or_a_baseexception_is_a_probe_failure_and_the_run_goes_on(raised, says,
                                                                                              tmp_path):
    class Quits(Share):
        name = "quits"

        def run(self, ctx):
            raise raised

    outcome = _run(tmp_path, probes=(Quits, Share))
    assert outcome.exit_code == 1 and [r.metric for r in outcome.rows] == ["share"]
    [failure] = outcome.probe_failures
    assert failure.plugin == "mine0" and failure.message == says


def _rows_probe(make):
    class Rows(Share):
        name = "rows"

        def run(self, ctx):
            ctx.predict(ctx.examples, "answer")
            return make(ctx)

    return Rows


@pytest.mark.parametrize("make, says", [
    (lambda ctx: [ctx.row("m", 0.5, 4, higher_is_better="yes")], "higher_is_better 'yes' is not True, False or None"),
    (lambda ctx: [ctx.row("m", 0.5, -4)], "n -4 is not a non-negative integer"),
    (lambda ctx: [dataclasses.replace(ctx.row("m", 0.5, 4), n=True)], "n True is not a non-negative integer"),
    (lambda ctx: [ctx.row("m", 0.5, 4, variant=None)], "variant None is not a string"),
    (lambda ctx: [ctx.row("", 0.5, 4)], "the metric is empty"),
    (lambda ctx: [ctx.row("m", 0.5, 4), ctx.row("m", 0.25, 4)], "two rows for metric 'm' (variant '')"),
    (lambda ctx: [ctx.row("m", 0.5, 4, dataset="vqa2")], "a row for dataset 'vqa2', which the probe did not read"),
])
def test_a_row_the_leaderboard_would_refuse_or_misread_fails_its_probe(make, says, tmp_path):
    outcome = _run(tmp_path, probes=(_rows_probe(make), Share))
    assert outcome.exit_code == 1 and [r.metric for r in outcome.rows] == ["share"]
    [failure] = outcome.probe_failures
    assert failure.plugin == "mine0" and says in failure.message, failure.message


def test_a_row_for_a_dataset_the_probe_read_is_kept(tmp_path):
    def make(ctx):
        ctx.examples_of("colors", "val")
        return [ctx.row("m", 0.5, 4, dataset="colors", variant="reference")]

    outcome = _run(tmp_path, probes=(_rows_probe(make),))
    assert outcome.exit_code == 0 and [r.metric for r in outcome.rows] == ["m"]


def test_a_row_for_a_dataset_read_inside_a_memo_is_kept_when_the_memo_is_reused(fresh_cache, tmp_path):
    def make(ctx):  # a model-independent reference value, computed once (docs/plugins.md, ctx.memo)
        n = ctx.memo("reference", {}, lambda: len(ctx.examples_of("shapes", "val")))
        return [ctx.row("m", 0.5, n, dataset="shapes", variant="reference")]

    shapes = dataset_plugin("shapes", {"val": EXAMPLES[:2]})
    plugin = plugin_with(probes=(_rows_probe(make),), suite_probes=["rows"])
    for i in range(2):  # the second run reads the reference from the memo
        outcome = run_in_process(make_host(dataset_plugin("colors", {"val": EXAMPLES}), shapes, plugin,
                                           names=["data", "shapes", "mine0"]),
                                 model="echo", suite="s", tmp_path=tmp_path / str(i))
        assert outcome.exit_code == 0 and [(r.dataset, r.n) for r in outcome.rows] == [("shapes", 2)], \
            outcome.probe_failures


def test_rows_of_one_metric_on_two_splits_the_probe_read_are_not_duplicates(tmp_path):
    def make(ctx):
        ctx.examples_of(ctx.dataset, "val")
        row = ctx.row("m", 0.5, 4)
        return [row, dataclasses.replace(row, split="other", value=0.25)]

    outcome = _run(tmp_path, probes=(_rows_probe(make),))
    assert outcome.exit_code == 0 and [(r.split, r.value) for r in outcome.rows] == [("val", 0.5), ("other", 0.25)]


@pytest.mark.parametrize("name", ["../../../outside.txt", "/tmp/vqa-harness-absolute-artifact.txt", "a/../../b"])
def test_an_artifact_name_outside_the_probes_folder_fails_the_probe_and_writes_nothing(name, tmp_path):
    def make(ctx):
        ctx.artifact(name).write_text("x")
        return [ctx.row("m", 0.5, 4)]

    outcome = _run(tmp_path, probes=(_rows_probe(make), Share))
    [failure] = outcome.probe_failures
    assert failure.plugin == "mine0" and "ctx.artifact" in failure.message and "outside" in failure.message
    assert not any(p.name.endswith(".txt") and "outside" in p.name for p in tmp_path.rglob("*"))


def test_a_probe_changing_its_examples_list_does_not_change_it_for_the_next_probe(tmp_path):
    class Trims(Share):
        name = "trims"

        def run(self, ctx):
            del ctx.examples[1:]
            return super().run(ctx)

    outcome = _run(tmp_path, probes=(Trims, Share))
    assert sorted((r.probe, r.n) for r in outcome.rows) == [("share", 4), ("trims", 1)]


# ---------------------------------------------------------------------- datasets


class Loads(DatasetPlugin):
    name = "loads"
    splits = ("val",)
    change: dict = {}

    def load(self, split):
        return [ex.with_(**self.change) for ex in EXAMPLES]


@pytest.mark.parametrize("change, says", [
    ({"id": 7}, "field 'id' of example 7 is int, not str"),
    ({"question": None}, "field 'question' of example 'q0' is NoneType, not str"),
    ({"answers": "red"}, "field 'answers' of example 'q0' is str, not a tuple of str"),
    ({"answers": ("red", 1)}, "field 'answers' of example 'q0' holds int 1, not str"),
    ({"image": None}, "field 'image' of example 'q0' is NoneType, not str"),
])
def test_a_loaded_example_whose_fields_have_the_wrong_type_is_one_plugin_error(change, says, tmp_path):
    dataset = type("Bad", (Loads,), {"change": change})
    host = make_host(plugin_with(datasets=(dataset,), suite_dataset="loads"), names=["mine0"])
    with pytest.raises(PluginError) as caught:
        run_in_process(host, model="echo", suite="s", tmp_path=tmp_path)
    assert str(caught.value).startswith(f"plugin mine0:loads: load('val') returned examples whose {says}")


def test_a_split_named_dot_dot_keeps_its_files_in_the_datasets_folder(tmp_path):
    data = dataset_plugin("colors", {"..": EXAMPLES}, suite="dots", probes=("share",), eval_split="..")
    host = make_host(data, plugin_with(), names=["data", "mine0"])
    outcome = run_in_process(host, model="echo", suite="dots", tmp_path=tmp_path)
    assert outcome.exit_code == 0
    files = [p.relative_to(outcome.rundir.path).parts for p in outcome.rundir.path.rglob("*.jsonl")
             if p.name != "results.jsonl"]
    assert files and all(parts[:2] == ("predictions", "colors") and ".." not in parts for parts in files)
