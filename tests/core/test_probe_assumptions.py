"""A probe's assumption about what a dataset means is checked against what the dataset
declares: where it does not hold, the run says so and the rows relying on it are never
ranked best (issue 26, finding 5: qonly bolded "most robust" on easy-VQA)."""

from __future__ import annotations

import json
from typing import ClassVar, Mapping

import pytest

from harness.api import Model, Probe, Suite, Task
from harness.testing import ListDataset, hookimpl, make_host, run_in_process
from harness.types import Example
from vqa_harness_leaderboard import tables_of

QUESTIONS = [Example(f"c{i}", f"is the shape {c}?", answers=("yes",) * 10) for i, c in enumerate(["red", "blue"] * 3)]


class Colors(ListDataset):
    """Answers decided by the exact colour named (like easy-VQA)."""

    name = "exact-colors"
    splits = ("val",)
    data = {"val": QUESTIONS}
    answers_depend_on = frozenset({"color"})


class Photos(Colors):
    """The same questions, nothing declared (VQA-like photographs)."""

    name = "photos"
    answers_depend_on = frozenset()


class NearColor(Probe):
    """Like the counterfactual probe: replaces the colour by a near one and reads a low
    answer change as robustness (variant "near"), and by a far one (variant "far")."""

    name = "near-color"
    requires = ("answer",)
    assumes: ClassVar[Mapping[str, str]] = {"near": "color"}

    def run(self, ctx):
        base = ctx.predict(ctx.examples, "answer")
        near = ctx.predict([ex.with_(question=ex.question.replace("red", "crimson")) for ex in ctx.examples],
                           "answer", variant="near")
        changed = sum(a.answer != b.answer for a, b in zip(base, near)) / len(base)
        return [ctx.row("answer_change_rate", changed, len(base), variant="near", higher_is_better=False),
                ctx.row("answer_change_rate", 1.0, len(base), variant="far", higher_is_better=True)]


class Ignorer(Model):
    name = "word-ignorer"

    def answer(self, batch):
        return ["yes" for _ in batch]


class Reader(Model):
    name = "word-reader"

    def answer(self, batch):
        return ["yes" if "red" in ex.question or "blue" in ex.question else "no" for ex in batch]


class Plugin:
    @hookimpl
    def register_datasets(self, register):
        register(Colors)
        register(Photos)

    @hookimpl
    def register_probes(self, register):
        register(NearColor)

    @hookimpl
    def register_models(self, register):
        register(Ignorer)
        register(Reader)

    @hookimpl
    def register_suites(self, register):
        register(Suite("near-colors", "", (Task("exact-colors", "val", ("near-color",)),
                                           Task("photos", "val", ("near-color",)))))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    host = make_host(Plugin(), builtins=True, names=["assumptions-test"])
    tmp = tmp_path_factory.mktemp("assume")
    return {m: run_in_process(host, model=m, suite="near-colors", tmp_path=tmp / m) for m in ("word-ignorer",
                                                                                           "word-reader")}


def test_rows_relying_on_an_unmet_assumption_have_no_better_direction(runs) -> None:
    out = runs["word-ignorer"]
    rows = {(r.dataset, r.variant): r for r in out.rows}
    assert rows[("exact-colors", "near")].higher_is_better is None  # not "robust" on exact colours
    assert rows[("exact-colors", "far")].higher_is_better is True  # assumes nothing
    assert rows[("photos", "near")].higher_is_better is False  # nothing declared: the probe's reading stands
    tags = json.loads((out.rundir.path / "tables.json").read_text())["tags"]
    assert {(t["dataset"], t["tags"].get("assumptions_not_met")) for t in tags} == {("exact-colors", "near")}


def test_the_run_says_so(runs) -> None:
    out = runs["word-ignorer"]
    (warning,) = out.warnings
    assert warning.startswith("exact-colors/val: probe 'near-color': dataset 'exact-colors' declares that its "
                              "answers depend on color, but near assume(s) that the exact colour named")
    assert "never ranked best or most robust" in warning
    assert "assumptions not met" in (out.rundir.path / "report.md").read_text()


def test_the_leaderboard_does_not_mark_the_ignorer_best(runs) -> None:
    tables = tables_of([r.rundir.path for r in runs.values()])["near-colors"]
    cells = [c for t in tables for row in t.cells for c in row if c is not None]
    near = [c for c in cells if c.dataset == "exact-colors" and c.variant == "near"]
    assert {c.model for c in near} == {"word-ignorer", "word-reader"}
    assert all(c.higher_is_better is None for c in near)


def test_built_in_declarations() -> None:
    host = make_host(builtins=True)
    cf = host.probes["counterfactual"].assumes
    assert cf["color_min_common"] == "color" and cf["hypernym_noun"] == "object" and "color_max_common" not in cf
    for name in ("toyvqa", "toyvqa-half", "toyvqa-mc"):
        assert host.datasets[name].answers_depend_on == {"color", "object"}
    assert host.datasets["vqa2"].answers_depend_on == frozenset()
