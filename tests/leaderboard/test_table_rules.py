"""Table rules that protect the reader: inapplicable cells say "n/a" with the reason (also
for runs written before the probes tagged them), and rows without a direction are neither
bolded nor called better."""

from __future__ import annotations

from pathlib import Path

from harness.layouts import RowTags
from harness.types import ResultRow
from vqa_harness_leaderboard.notapplicable import na_tag, report_tags
from vqa_harness_leaderboard.tables import TagIndex, build_tables, render_markdown
from vqa_harness_plugins.probes.balanced.tables import COUNTEREXAMPLE_LAYOUTS
from vqa_harness_plugins.probes.counterfactual.display import COUNTERFACTUAL_DISPLAY

#: The counterfactual probe's declared rule (`Display.degenerate`): the leaderboard knows no probe.
CF = {"counterfactual": COUNTERFACTUAL_DISPLAY}

DATA = "toyvqa:variant=balanced"
REASON = ("not applicable: the model's score for its answer is the same on every candidate image of all 300 "
          "questions (its answer scores do not depend on the image), so the ranking would be the random tie-break")


def _row(run: str, model: str, variant: str, value: float, train: str = f"{DATA}/train") -> ResultRow:
    return ResultRow(run, model, "toy", DATA, "val", "counter-examples", variant, "counterexample/recall@5",
                     value, 300, None, None, True, "fraction", train)


def _report(reason: str) -> str:
    return ("# Run r1\n\n## Metrics not computed\n\n"
            f"- {DATA}/val [UB]: `counterexample/recall@5 (model)` — {reason}\n"
            f"- {DATA}/val [BB]: `counterexample/recall@5 (model)` — {reason}\n"
            f"- {DATA}/val [BB]: `counterexample/recall@5 (trained)` — the model has no `score_images` capability\n"
            "\n## Probes skipped\n\n- x/val: `nle` — lacks explain\n")


def test_report_lines_of_older_runs_become_na_tags_matched_to_the_rows() -> None:
    rows = [_row("r1", "prior", v, 0.2) for v in ("chance", "random", "distance")]
    rows += [_row("r1", "prior", "random", 0.2, train="toyvqa:variant=unbalanced/train")]
    found = report_tags(_report(REASON), rows)
    assert {t.train for t in found} == {f"{DATA}/train", "toyvqa:variant=unbalanced/train"}
    assert all(t.tags == {na_tag("counterexample/recall@5", "model"): REASON} for t in found)
    # Only "not applicable" reasons (a missing capability is not), and never over a tag the run has.
    have = [RowTags("counter-examples", DATA, "val", f"{DATA}/train", {na_tag("counterexample/recall@5", "model"): "x"})]
    assert [t.train for t in report_tags(_report(REASON), rows, have)] == ["toyvqa:variant=unbalanced/train"]
    # Lines of one data/split/metric that disagree are not guessed between.
    mixed = _report(REASON).replace(f"[BB]: `counterexample/recall@5 (model)` — {REASON}",
                                    "[BB]: `counterexample/recall@5 (model)` — not applicable: another reason")
    assert report_tags(mixed, rows) == []


def test_na_cell_has_its_reason_as_hover_text_and_note() -> None:
    rows = [_row("r1", "prior", v, 0.2) for v in ("chance", "random", "distance")]
    rows += [_row("r2", "cnn", v, 0.3) for v in ("chance", "random", "distance", "model")]
    tags = TagIndex({"r1": [RowTags("counter-examples", DATA, "val", f"{DATA}/train",
                                    {na_tag("counterexample/recall@5", "model"): REASON})]})
    table = build_tables(rows, {"counter-examples": list(COUNTEREXAMPLE_LAYOUTS)}, tags)["toy"][0].compact()
    model_col = table.headers.index("Model")
    prior = next(i for i, r in enumerate(table.body) if r[0] == "prior")
    cnn = next(i for i, r in enumerate(table.body) if r[0] == "cnn")
    assert table.body[prior][model_col] == "n/a" and table.hints[prior][model_col] == REASON
    assert table.body[cnn][model_col] != "n/a" and table.hints[cnn][model_col] == ""
    assert "n/a (prior): not applicable, the model's score" in table.note
    assert "| n/a" in render_markdown(table)
    # Without the tag, an absent cell stays "-".
    plain = build_tables(rows, {"counter-examples": list(COUNTEREXAMPLE_LAYOUTS)})["toy"][0].compact()
    assert plain.body[prior][model_col] == "-" and "n/a" not in plain.note


# ------------------------------------------------------------------ directions


class _Ctx:
    """Just enough of a ProbeContext for a probe's row helpers."""

    def row(self, metric, value, n, *, ci=None, variant="", higher_is_better=True, unit="fraction", dataset=None):
        return ResultRow("r", "m", "s", "d", "val", "counterfactual", variant, metric, value, n,
                         None if ci is None else ci[0], None if ci is None else ci[1], higher_is_better, unit)

    def metric_unavailable(self, metric, reason):  # pragma: no cover - unused here
        pass


def test_counterfactual_rows_have_a_direction_only_where_one_is_better() -> None:
    from vqa_harness_plugins.probes.counterfactual.metrics import KindSummary
    from vqa_harness_plugins.probes.counterfactual.probe import _kind_rows

    s = KindSummary(10, 2, 0.2, (0.1, 0.3), 0.5, (0.4, 0.6), 0.4, (0.3, 0.5), 0.2, (0.1, 0.3))
    wordnet = {r.metric: r.higher_is_better for r in _kind_rows(_Ctx(), "hypernym_noun", s, True)}
    assert wordnet == {"answer_change_rate": False, "acc_q": True, "acc_q_cf": None, "acc_reduction": False}
    color_max = {r.metric: r.higher_is_better for r in _kind_rows(_Ctx(), "color_max_common", s, True)}
    assert color_max == {"answer_change_rate": True, "acc_q": True, "acc_q_cf": None, "acc_reduction": None}


def test_model_free_decoy_rows_and_ablated_inputs_have_no_direction(tmp_path) -> None:
    from harness.api import Model, Suite, Task
    from harness.hookspecs import hookimpl
    from harness.testing import make_host, run_in_process
    from vqa_harness_leaderboard import collect, tables_of
    from vqa_harness_leaderboard.paired import ScoreIndex
    from vqa_harness_leaderboard.sigmarks import mark_table

    toy = "toyvqa-mc:images=40"

    class First(Model):
        name = "first-choice"

        def score_choices(self, batch):
            return [[1.0] + [0.0] * (len(ex.choices) - 1) for ex in batch]

    class Last(First):
        name = "last-choice"

        def score_choices(self, batch):
            return [[0.0] * (len(ex.choices) - 1) + [1.0] for ex in batch]

    class Plugin:
        @hookimpl
        def register_models(self, register):
            register(First)
            register(Last)

        @hookimpl
        def register_suites(self, register):
            register(Suite("decoys-dir", "toy decoys", (Task(f"{toy},decoys=orig", "val", ("decoys", "decoy-audit"),
                                                             train=(f"{toy},decoys=orig", "train"), label="orig",
                                                             probe_options={"decoys": {"variants": "orig"},
                                                                            "decoy-audit": {"variants": "orig"}}),)))

    host = make_host(Plugin(), builtins=True)
    runs = []
    for model in ("first-choice", "last-choice"):
        out = run_in_process(host, model=model, suite="decoys-dir", tmp_path=tmp_path / model)
        assert out.exit_code == 0, out.probe_failures
        runs.append(out.rundir.path)
        directions = {(r.probe, r.metric): r.higher_is_better for r in out.rows}
        assert {d for (p, _), d in directions.items() if p == "decoy-audit"} == {None}
        assert directions[("decoys", "mc_accuracy")] is True
        assert directions[("decoys", "mc_accuracy/QA")] is None and directions[("decoys", "random_accuracy")] is None
    tables = tables_of(runs)["decoys-dir"]
    audit = next(t for t in tables if t.probe == "decoy-audit").compact()
    assert set(audit.directions) == {""}  # no "split ↓" on counts
    decoys = mark_table(next(t for t in tables if t.probe == "decoys"), ScoreIndex(collect(runs).runs)).compact()
    col = decoys.headers.index("Orig")
    assert decoys.directions[col] == "↑"  # from the image + question rows
    inputs = [row[1] for row in decoys.body]
    marked = {inputs[i] for i, m in enumerate(decoys.marks) if m and m[col][0]}
    assert marked == {"image + question"}  # the ablated rows are never "best" nor "≈"


def _cf(run: str, model: str, kind: str, metric: str, value: float, hib: bool | None) -> ResultRow:
    return ResultRow(run, model, "cf", "toyvqa:variant=unbalanced", "val", "counterfactual", kind, metric, value, 500,
                     max(0.0, value - 0.02), value + 0.02, hib, "fraction", "t/train")


def test_a_model_that_never_changes_its_answer_is_not_the_best_and_the_note_says_why() -> None:
    from harness.api import Layout
    from vqa_harness_leaderboard.degenerate import degenerate_tasks
    from vqa_harness_plugins.probes.counterfactual.tables import COUNTERFACTUAL_LAYOUTS

    rows = []
    for kind in ("color_max_common", "hypernym_noun", "sibling_noun"):
        rows += [_cf("r1", "prior", kind, "answer_change_rate", 0.0, kind.startswith("color_max")),
                 _cf("r1", "prior", kind, "acc_reduction", 0.0, False),
                 _cf("r2", "qonly", kind, "answer_change_rate", 0.2, kind.startswith("color_max")),
                 _cf("r2", "qonly", kind, "acc_reduction", 0.1, False)]
    assert list(degenerate_tasks(rows, CF)) == [("r1", "counterfactual", "toyvqa:variant=unbalanced", "val", "t/train")]
    # One kind with no change is not degenerate (a robust model can keep every answer).
    assert degenerate_tasks([r for r in rows if r.variant == "hypernym_noun"], CF) == {}
    # Without the probe's declaration there is no rule: the leaderboard names no probe itself.
    assert degenerate_tasks(rows, {}) == {}
    layouts: list[Layout] = list(COUNTERFACTUAL_LAYOUTS)
    table = next(t for t in build_tables(rows, {"counterfactual": layouts}, displays=CF)["cf"] if t.layout_id == "table-3")
    prior = next(i for i, r in enumerate(table.body) if r[0] == "prior")
    assert all(c is None or c.higher_is_better is None for c in table.cells[prior])
    assert "prior changed no answer under any of the 3 perturbation kinds" in table.note
    assert "↓" in table.compact().directions  # the column keeps its direction (from qonly)
    # The data files keep the rows as recorded; only the display and the comparison drop it.
    assert rows[0].higher_is_better is True


def test_compare_says_no_better_for_a_metric_without_direction() -> None:
    from dataclasses import replace

    from vqa_harness_leaderboard.compare import render_comparisons
    from vqa_harness_leaderboard.paired import Comparison
    from vqa_harness_leaderboard.runs import RunInfo
    from vqa_harness_leaderboard.significance import PairedTest

    a = _cf("r1", "a", "hypernym_noun", "answer_change_rate", 0.0, False)
    b = replace(a, run_id="r2", model="b", value=0.3)
    test = PairedTest(500, 0.0, 0.3, -0.3, -0.35, -0.25, 0.0001)
    info = RunInfo(Path("x"), "r", {}, (), (), "", ())
    lines = render_comparisons(info, info, [Comparison(a, b, test, None, 500, 500)]).splitlines()
    assert lines[-1].rstrip("| ").endswith("A")  # significantly fewer changes: A is better
    lines = render_comparisons(info, info, [Comparison(replace(a, higher_is_better=None), b, test, None, 500, 500)])
    assert lines.splitlines()[-1].rstrip("| ").endswith("-")


def test_a_degenerate_model_is_never_the_most_robust_in_the_global_rules() -> None:
    from vqa_harness_plugins.probes.counterfactual.tables import COUNTERFACTUAL_LAYOUTS

    rows = []
    for kind in ("color_max_common", "hypernym_noun"):
        rows += [_cf("r1", "prior", kind, "answer_change_rate", 0.0, kind.startswith("color_max")),
                 _cf("r2", "qonly", kind, "answer_change_rate", 0.3, kind.startswith("color_max"))]
    for concept, value in (("red", 0.9), ("blue", 0.8), ("box", 0.2), ("ring", 0.1), ("cube", 0.5), ("star", 0.4)):
        rows.append(_cf("r2", "qonly", "hypernym_noun", f"unchanged/concept={concept}", value, True))
        rows.append(_cf("r1", "prior", "hypernym_noun", f"unchanged/concept={concept}", 1.0, True))
    tables = build_tables(rows, {"counterfactual": list(COUNTERFACTUAL_LAYOUTS)}, displays=CF)["cf"]
    rules = next(t for t in tables if t.layout_id == "rules")
    assert {r[0] for r in rules.body} == {"qonly"}  # prior's 100% unchanged is not "most robust"
    assert len(rules.body) == 6 and rules.cut == 6 and "Not ranked (no better direction, see docs/leaderboard.md): prior." in rules.note


def test_a_mean_over_the_datasets_shown_is_left_out_for_a_row_that_lacks_one() -> None:
    """e-ViL's Overall S_E: a model measured on one of two datasets gets "-", not the mean of
    the one it has (which no other row's mean is comparable with)."""
    from vqa_harness_plugins.probes.e_vil.tables import EVIL_LAYOUTS

    def row(run: str, model: str, data: str, metric: str, value: float) -> ResultRow:
        return ResultRow(run, model, "e-vil", data, "test", "nle", "", metric, value, 10, None, None, True, "score", "")

    rows = [row(run, model, data, metric, value)
            for run, model, datas in (("r1", "both", ("dx", "dy")), ("r2", "one", ("dx",))) for data in datas
            for metric, value in (("s_t", 0.5), ("s_e/e_vil_score_no_spice", 0.4 if data == "dx" else 0.8),
                                  ("s_o/e_vil_score_no_spice", 0.2))]
    tags = TagIndex({run: [RowTags("nle", d, "test", "", {"task": f"{d.upper()} (test)"}) for d in ("dx", "dy")]
                     for run in ("r1", "r2")})
    table = next(t for t in build_tables(rows, {"nle": list(EVIL_LAYOUTS)}, tags)["e-vil"]
                 if t.reference.endswith("Table 3"))
    assert table.headers[1] == "Overall S_E"
    assert {line[0]: line[1] for line in table.body} == {"both": "60.0", "one": "-"}  # "one" was 40.0


def test_several_runs_of_one_model_get_a_row_each_newest_first() -> None:
    """`--all-runs`: two runs of one model (another seed, another day) are both shown, with
    their run ids, newest first; the newest no longer hides the older one. With one run per
    model the tables are as before (no run column)."""
    from vqa_harness_plugins.probes.counterfactual.tables import COUNTERFACTUAL_LAYOUTS

    rows = [_row("r1", "prior", "model", 0.2), _row("r2", "prior", "model", 0.4), _row("r1", "cnn", "model", 0.3)]
    layouts = {"counter-examples": list(COUNTEREXAMPLE_LAYOUTS)}
    table = build_tables(rows, layouts, TagIndex())["toy"][0].compact()
    assert table.headers[:2] == ("model", "run")
    model = table.headers.index("Model")
    assert [(line[0], line[1], line[model]) for line in table.body] == [
        ("cnn", "r1", "30.00"), ("prior", "r2", "40.00"), ("prior", "r1", "20.00")]
    single = build_tables([r for r in rows if r.run_id == "r1"], layouts, TagIndex())["toy"][0].compact()
    assert "run" not in single.headers and [line[0] for line in single.body] == ["cnn", "prior"]
    # No paper layout (the generic pivot): the same rule.
    generic = build_tables(rows, {}, TagIndex())["toy"][0]
    assert generic.headers[:3] == ("model", "run", "trained on")
    assert [line[:2] for line in generic.body] == [("cnn", "r1"), ("prior", "r2"), ("prior", "r1")]
    trained = [_row(run, "prior", "model", 0.2, train=t) for run in ("r1", "r2") for t in ("z/train", "a/train")]
    generic = build_tables(trained, {}, TagIndex())["toy"][0]
    assert [line[:3] for line in generic.body] == [("prior", "r2", "a/train"), ("prior", "r2", "z/train"),
                                                    ("prior", "r1", "a/train"), ("prior", "r1", "z/train")]
    # Global rules keep each run's most and least robust concepts, ranked within the run.
    cf = [_cf(run, "qonly", "hypernym_noun", f"unchanged/concept={c}", v + shift, True)
          for run, shift in (("r1", 0.0), ("r2", 0.05)) for c, v in (("box", 0.2), ("ring", 0.1), ("cube", 0.5))]
    rules = next(t for t in build_tables(cf, {"counterfactual": list(COUNTERFACTUAL_LAYOUTS)}, displays=CF)["cf"]
                 if t.layout_id == "rules")
    assert rules.headers[:3] == ("model", "run", "rank (1 = most robust)")
    concept = rules.headers.index("concept")
    assert [(*line[:3], line[concept]) for line in rules.body] == [
        ("qonly", "r2", "1 of 3", "cube"), ("qonly", "r2", "2 of 3", "box"), ("qonly", "r2", "3 of 3", "ring"),
        ("qonly", "r1", "1 of 3", "cube"), ("qonly", "r1", "2 of 3", "box"), ("qonly", "r1", "3 of 3", "ring")]


def test_model_free_rows_of_two_tasks_stay_two_rows() -> None:
    """e-ViL's GT reference per task in the automatic-metrics table (rows: model, trained on,
    task): the VQA-X GT row used to overwrite the e-SNLI-VE one (both became "GT", "", "")."""
    from vqa_harness_plugins.probes.e_vil.tables import EVIL_LAYOUTS

    rows = [ResultRow("r1", "m", "e-vil", d, "test", "nle", variant, "s_e/bleu1", value, 10, None, None,
                      None if variant else True, "score", "")
            for d, base in (("dx", 0.3), ("dy", 0.7)) for variant, value in (("", base), ("gt", base + 0.1))]
    tags = TagIndex({"r1": [RowTags("nle", d, "test", "", {"task": f"{d.upper()} (test)"}) for d in ("dx", "dy")]})
    table = next(t for t in build_tables(rows, {"nle": list(EVIL_LAYOUTS)}, tags)["e-vil"] if t.layout_id == "metrics")
    assert [line for line in table.body if line[0] == "GT"] == [("GT", "", "DX (test)", "40.0"),
                                                                 ("GT", "", "DY (test)", "80.0")]


def test_a_table_arrow_names_the_columns_it_does_not_cover() -> None:
    """Color Maximal should change answers and Color Minimal not: the "change" column has no
    single direction, so the line under the title may not say "higher is better" for it."""
    from vqa_harness_plugins.probes.counterfactual.tables import COUNTERFACTUAL_LAYOUTS

    rows = [_cf("r1", "qonly", kind, metric, 0.3, hib)
            for kind, change in (("color_max_common", True), ("color_min_common", False))
            for metric, hib in (("acc_q", True), ("acc_q_cf", None), ("answer_change_rate", change))]
    table = next(t for t in build_tables(rows, {"counterfactual": list(COUNTERFACTUAL_LAYOUTS)}, displays=CF)["cf"]
                 if "color" in t.title).compact()
    assert table.explanation.endswith("(↑ higher is better; acc*_Q, change: no single better direction)")
    assert "no single better direction" in render_markdown(table)
