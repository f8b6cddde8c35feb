"""Comparisons the leaderboard claims only between like and like: enough paired questions
for a test (a model run on one question is never "significantly best"), one training
condition per ranking, one row per cell (a test-split copy of a val row gets its own place in
the table, the chart and the reliance table), and p at the bootstrap's floor printed as
"< 0.0005" (docs/leaderboard.md)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

from helpers_samples import write_sample_runs

from harness.display import ChartSpec
from harness.fileio import write_jsonl
from harness.host import get_host
from harness.layouts import Layout
from harness.perexample import write_scores
from harness.project import SCHEMA_VERSION
from harness.types import ResultRow
from vqa_harness_leaderboard import collect
from vqa_harness_leaderboard.charts import chart_of
from vqa_harness_leaderboard.paired import MIN_PAIRED, ScoreIndex, pairing_problem
from vqa_harness_leaderboard.reliance import reliance_table
from vqa_harness_leaderboard.sigmarks import mark_table
from vqa_harness_leaderboard.significance import p_text
from vqa_harness_leaderboard.tables import TagIndex, build_tables, render_markdown

DISPLAYS = {e.name: e.obj.display() for e in get_host().probes}
DATA, TRAIN = "toyvqa:variant=balanced", "toyvqa:variant=balanced/train"


class _Ctx:
    """What `write_scores` needs of a probe context."""

    def __init__(self, path: Path, probe: str, train: str = TRAIN, split: str = "val") -> None:
        self.path, self.probe, self.dataset, self.split, self.train = path, probe, DATA, split, train

    def artifact(self, name: str) -> Path:
        out = self.path / "artifacts" / self.probe / name
        out.parent.mkdir(parents=True, exist_ok=True)
        return out


def _json_row(run: str, model: str, probe: str, variant: str, metric: str, values: list[float], *,
              train: str = TRAIN, suite: str = "image-ablation") -> dict:
    value = sum(values) / len(values)
    return {"schema_version": SCHEMA_VERSION, "run_id": run, "model": model, "suite": suite, "dataset": DATA,
            "split": "val", "probe": probe, "variant": variant, "metric": metric, "value": value, "n": len(values),
            "ci_low": value, "ci_high": value, "higher_is_better": True, "unit": "fraction", "train": train}


def _add_tiny_run(runs: Path) -> None:
    """A model run on one question (`--limit 1`), which it answers right with the image only."""
    run = "20250101-000001-tiny-image-ablation"
    path = runs / run
    path.mkdir()
    like = runs / "20250101-000000-qonly-image-ablation"
    shutil.copy(like / "tables.json", path / "tables.json")
    manifest = json.loads((like / "manifest.json").read_text(encoding="utf-8"))
    (path / "manifest.json").write_text(json.dumps({**manifest, "run_id": run, "model": "tiny"}), encoding="utf-8")
    rows = [_json_row(run, "tiny", "image-ablation", "real", "vqa_accuracy", [1.0])]
    for cond in ("blank", "swap"):
        rows += [_json_row(run, "tiny", "image-ablation", cond, m, [1.0])
                 for m in ("vqa_accuracy_drop", "answer_change_rate")]
        write_scores(_Ctx(path, "image-ablation"), ["q0"], {"vqa_accuracy_drop": [1.0], "answer_change_rate": [1.0]},
                     variant=cond)
    write_scores(_Ctx(path, "image-ablation"), ["q0"], {"vqa_accuracy": [1.0]}, variant="real")
    write_jsonl(path / "results.jsonl", rows)


def test_the_minimum_of_paired_items_is_where_a_test_can_first_reach_p_below_005() -> None:
    # The exact two-sided sign test's smallest p over n paired items is 2 / 2^n.
    assert 2 / 2 ** (MIN_PAIRED - 1) > 0.05 > 2 / 2 ** MIN_PAIRED
    assert "too few paired items (1" in pairing_problem(1, 1, 2476)
    assert "only 900 paired items of 900 and 2476" in pairing_problem(900, 900, 2476)
    assert pairing_problem(2476, 2476, 2476) == "" and pairing_problem(2400, 2476, 2476) == ""


def test_one_question_is_never_significantly_best(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    _add_tiny_run(runs)
    found = collect([runs])
    index = ScoreIndex(found.runs)
    table = reliance_table(found.rows, found.displays, index=index, models=sorted({r.model for r in found.rows}))
    blank = [h.evidence.id for h in table.columns].index("ablation-blank")
    cells = {m: row[blank] for m, row in zip(table.models, table.cells)}
    assert cells["tiny"].row.value == 1.0  # the largest drop, over one question
    assert cells["tiny"].mark == "few" and not cells["tiny"].bold and cells["tiny"].sig() == "· 1 of 200 paired"
    tops = [m for m, c in cells.items() if c.mark == "top"]
    assert tops and "tiny" not in tops  # ▲ among means over comparable numbers of questions
    assert not any(c.bold for c in cells.values())  # tiny was not tested: "above every other" is not shown
    assert cells["prior"].mark == "less" and cells["prior"].sig() == "▼ p < 0.0005"
    # The suite table: tiny is neither bold nor "differs"; its hover says why.
    effect = next(t for t in build_tables(found.rows, found.layouts, TagIndex(found.tags), found.displays)
                  ["image-ablation"] if t.layout_id == "ablation-effect")
    marked = mark_table(effect, index).compact()
    tiny = next(i for i, line in enumerate(marked.body) if line[0] == "tiny")
    kinds = {k for k, _ in marked.marks[tiny] if k}
    assert kinds == {"untested"}, marked.marks[tiny]
    assert all("too few paired items (1" in why for k, why in marked.marks[tiny] if k)


def test_hover_text_prints_the_bootstrap_floor_as_less_than(tmp_path: Path) -> None:
    """The floor of 2,000 resamples is "< 0.0005", as docs/leaderboard.md and the reliance
    table say, never "p = 0.0005" (the smallest p 2,000 resamples can give, not a measurement)."""
    write_sample_runs(tmp_path / "runs", suites=("image-ablation",))
    found = collect([tmp_path / "runs"])
    effect = next(t for t in build_tables(found.rows, found.layouts, TagIndex(found.tags), found.displays)
                  ["image-ablation"] if t.layout_id == "ablation-effect")
    marked = mark_table(effect, ScoreIndex(found.runs)).compact()
    prior = next(i for i, line in enumerate(marked.body) if line[0] == "prior")
    said = " ".join(why for _, why in marked.marks[prior])
    assert "p < 0.0005" in said and "p = 0.0005" not in said
    assert p_text(1 / 2001, 2000) == "< 0.0005" and p_text(0.0312, 2000) == "= 0.0312" and p_text(0.0312) == "= 0.0312"


def _run_with_train(runs: Path, model: str, scores: dict[str, list[float]]) -> None:
    run = f"20250101-000000-{model}"
    path = runs / run
    rows = []
    for train, values in scores.items():
        write_scores(_Ctx(path, "pairs", train=train), [f"p{i}" for i in range(len(values))],
                     {"pair/different": values})
        rows.append(_json_row(run, model, "pairs", "", "pair/different", values, train=train, suite="s"))
    write_jsonl(path / "results.jsonl", rows)


def test_models_are_ranked_within_one_training_condition(tmp_path: Path) -> None:
    """The pairs table of the main job: cnn-lstm trained on B was bold against every model and
    training condition, and the U rows were tested against it, not against each other."""
    runs = tmp_path / "runs"
    n = 100
    _run_with_train(runs, "a", {"B/train": [1.0] * 90 + [0.0] * 10, "U/train": [1.0] * 10 + [0.0] * 90})
    _run_with_train(runs, "b", {"B/train": [1.0] * 50 + [0.0] * 50, "U/train": [1.0] * 50 + [0.0] * (n - 50)})
    found = collect([runs])
    layout = Layout(id="t", title="T", rows=("model", "train"), columns=("metric",))
    (table,) = build_tables(found.rows, {"pairs": [layout]}, TagIndex(found.tags))["s"]
    marked = mark_table(table, ScoreIndex(found.runs))
    kinds = {(line[0], line[1][0]): marked.marks[i][2][0] for i, line in enumerate(marked.body)}
    assert kinds == {("a", "B"): "best", ("b", "B"): "differs", ("a", "U"): "differs", ("b", "U"): "best"}
    why = {(line[0], line[1][0]): marked.marks[i][2][1] for i, line in enumerate(marked.body)}
    assert "vs the best (b)" in why[("a", "U")]  # tested within its condition
    assert "vs the row above (a, trained on B/train)" in why[("a", "U")]  # same questions, still paired


def _r(model: str, value: float, *, split: str = "val", train: str = TRAIN, probe: str = "image-ablation",
       variant: str = "blank", metric: str = "vqa_accuracy_drop") -> ResultRow:
    return ResultRow("r-" + model, model, "s", DATA, split, probe, variant, metric, value, 200, value - 0.05,
                     value + 0.05, True, "fraction", train)


#: A model's val row, a test-split copy of it with another value, and another model's val row.
SPLITS = [_r("a", 0.2), _r("a", 0.9, split="test"), _r("b", 0.1)]


def test_a_test_split_copy_of_a_val_row_gets_a_table_row_of_its_own() -> None:
    """The table showed one of the two in one cell, silently; now a row per split, and the note
    says why."""
    layout = Layout(id="t", title="T", rows=("model",), columns=("variant",))
    (table,) = build_tables(SPLITS, {"image-ablation": [layout]})["s"]
    shown = table.compact()
    assert [line[:3] for line in shown.body] == [("a", "test", "90.00 [85.00, 95.00]"),
                                                 ("a", "val", "20.00 [15.00, 25.00]"), ("b", "val", "10.00 [5.00, 15.00]")]
    assert 'differ in split: the "split" column tells them apart' in render_markdown(table)
    # Two rows that differ in none of those fields: the note says so instead of hiding one.
    (table,) = build_tables([_r("a", 0.2), _r("a", 0.25), _r("b", 0.1)], {"image-ablation": [layout]})["s"]
    assert "a: several rows for one cell" in table.note


def test_a_test_split_copy_of_a_val_row_gets_a_chart_panel_of_its_own() -> None:
    """The chart drew one of the two (not the one the table showed); now a panel per split."""
    spec = ChartSpec("c", "C", panels=("model",), categories="variant")
    chart = chart_of(spec, "image-ablation", SPLITS)
    assert [(p.title, p.series[0].values) for p in chart.panels] == [
        ("a · test", (90.0,)), ("a · val", (20.0,)), ("b · val", (10.0,))]


def test_the_reliance_column_compares_the_split_every_model_has() -> None:
    """The reliance table showed a's test row (the first listed) ▲ next to b's val row."""
    rel = reliance_table(SPLITS, DISPLAYS)
    blank = [h.evidence.id for h in rel.columns].index("ablation-blank")
    a, b = (row[blank] for row in rel.cells)
    assert a.row.value == 0.2 and a.of == 2 and not a.apart and a.mark == "top" and b.mark == "untested"
    assert rel.data[blank] == "toyvqa (balanced), val · trained on toyvqa (balanced), train"


def test_a_model_without_the_columns_training_data_is_named_and_not_compared() -> None:
    other = "toyvqa:variant=unbalanced/train"
    rows = [_r("a", 0.5, train=other), _r("b", 0.2), _r("c", 0.1)]
    rel = reliance_table(rows, DISPLAYS)
    blank = [h.evidence.id for h in rel.columns].index("ablation-blank")
    a, b, c = (row[blank] for row in rel.cells)
    assert a.apart == "trained on toyvqa (unbalanced), train" and a.mark == "" and not a.bold
    assert (b.mark, c.mark) == ("top", "untested")  # a's 0.5 is not the top of b and c's condition
    from vqa_harness_leaderboard.reliancerender import reliance_markdown

    md = reliance_markdown(rel)
    assert "(trained on toyvqa (unbalanced), train, not compared)" in md and "not tested against the others" in md
    # With every model of the condition, a later training set is not shown in its place.
    rel = reliance_table(rows + [replace(rows[0], train=TRAIN, value=0.3)], DISPLAYS)
    a = rel.cells[0][blank]
    assert a.row.value == 0.3 and a.of == 2 and not a.apart and a.mark == "top"
