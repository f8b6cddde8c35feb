"""Rows the leaderboard leaves out say why: a shortened table's models not ranked because the
dataset does not meet the probe's assumption (the run's reason, not "no better direction"),
and a result row skipped as invalid (a NaN value) shows "invalid" with its problem, not "-"
(which means "no row")."""

from __future__ import annotations

import html
import json
from pathlib import Path
from types import SimpleNamespace

from helpers_samples import write_sample_runs

from harness.inputs import ASSUMPTIONS_TAG
from harness.layouts import RowTags
from harness.report import escape_markdown
from harness.run.assumptions import TAG, explain, neutralize, unmet_assumptions
from harness.types import ResultRow
from vqa_harness_leaderboard import build_leaderboard, tables_of
from vqa_harness_leaderboard.assumptions import assumption_tags
from vqa_harness_plugins.probes.counterfactual.probe import CounterfactualProbe

TOY = SimpleNamespace(name="toyvqa", answers_depend_on=frozenset({"color", "object"}))  # as the toy world declares
COLOUR = ("dataset 'toyvqa' declares that its answers depend on the exact colour named in the question, which these "
          "rows assume does not decide the answer (the run's report: \"counterfactual: assumptions not met\")")


def _as_the_run_writes_it(run: Path) -> None:
    """What `harness run` does on a dataset that does not meet the counterfactual probe's
    assumptions (harness.run.tasks): rows without a direction, the task tagged, the reason in
    report.md."""
    unmet = unmet_assumptions(CounterfactualProbe, TOY)
    rows = [ResultRow.from_json(json.loads(line)) for line in (run / "results.jsonl").read_text().splitlines()]
    (run / "results.jsonl").write_text("".join(json.dumps(r.to_json()) + "\n" for r in neutralize(rows, unmet)))
    tables = json.loads((run / "tables.json").read_text())
    task = RowTags("counterfactual", rows[0].dataset, rows[0].split, rows[0].train, {TAG: ",".join(sorted(unmet))})
    tables["tags"].append(task.to_json())
    (run / "tables.json").write_text(json.dumps(tables))
    section = f"### {rows[0].dataset}/{rows[0].split} — counterfactual: assumptions not met\n\n" \
              f"{explain('counterfactual', TOY, unmet)}.\n"
    with (run / "report.md").open("a", encoding="utf-8") as f:
        f.write("\n" + escape_markdown(section) + "\n")


def test_models_not_ranked_for_an_unmet_assumption_get_the_runs_reason(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    for run in write_sample_runs(runs, suites=("counterfactual",)):
        _as_the_run_writes_it(run)
    rules = {t.title.split(": ", 1)[1]: t for t in tables_of([runs])["counterfactual"]
             if t.title.startswith("Counterfactual global rules")}
    minimal = rules["Color Minimal (common)"]
    assert minimal.body == () and minimal.cut == 16  # none ranked: 2 models x 8 concepts, all on the full page
    assert f"Not ranked (cnn-lstm, qonly): {COLOUR}; their rows are kept without a better direction" in minimal.note
    assert "no better direction, see docs" not in minimal.note
    noun = rules["Hypernym Noun"].note
    assert "depend on the exact object or shape named by a noun of the question" in noun
    assert "Not ranked" not in rules["Color Maximal (common)"].note  # its assumption holds: ranked as before
    assert len(rules["Color Maximal (common)"].body) == 12
    out = tmp_path / "site"
    build_leaderboard([runs], out)
    assert html.escape(COLOUR) in (out / "index.html").read_text(encoding="utf-8")


def test_the_reason_without_a_report_line_and_the_tag_name_defined_once() -> None:
    assert TAG == ASSUMPTIONS_TAG
    tag = RowTags("counterfactual", "d", "val", "", {ASSUMPTIONS_TAG: "color_min_common,hypernym_noun"})
    (found,) = assumption_tags("# Run r\n", [tag])
    assert set(found.tags) == {"assumption:color_min_common", "assumption:hypernym_noun"}
    assert "tag assumptions_not_met" in found.tags["assumption:hypernym_noun"]


def _spoil(path: Path, pick, edit) -> int:
    """Rewrite the line of results.jsonl that `pick` chooses with `edit` (raw text); its line number."""
    lines = path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if pick(json.loads(line)))
    lines[at] = edit(lines[at], json.loads(lines[at]))
    path.write_text("\n".join(lines) + "\n")
    return at + 1


def test_a_row_skipped_as_invalid_says_so_in_its_cell(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("balanced-vqa",))
    results = runs / "20250101-000000-qonly-balanced-vqa" / "results.jsonl"
    bb = "toyvqa:variant=balanced/train"
    nan = _spoil(results, lambda r: r["metric"] == "vqa_accuracy" and r["train"] == bb,
                 lambda line, r: line.replace(f'"value": {r["value"]}', '"value": NaN'))
    inf = _spoil(results, lambda r: r["metric"] == "vqa_accuracy/answer_type=number" and r["train"] == bb,
                 lambda line, r: line.replace(f'"ci_high": {r["ci_high"]}', '"ci_high": 1e309'))
    tables = {t.title: t.compact() for t in tables_of([runs])["balanced-vqa"] if "Table 1" in t.title}
    table = tables["Goyal Table 1: VQA accuracy by train / test condition"]
    assert table.headers == ("model", "UU", "UB", "BB")
    qonly = next(i for i, row in enumerate(table.body) if row[0] == "qonly")
    assert table.body[qonly][3] == "invalid"  # was "-", which means "no row"
    why = f"skipped as invalid: results.jsonl:{nan}: not JSON (NaN is not a valid value)"
    assert table.hints[qonly][3] == why
    assert f"invalid (qonly): the row was {why} (problems.txt)." in table.note
    assert all(row[3] != "invalid" for i, row in enumerate(table.body) if i != qonly)
    out = tmp_path / "site"
    build_leaderboard([runs], out)
    index = (out / "index.md").read_text(encoding="utf-8")
    assert f"invalid (qonly): the row was skipped as invalid: results.jsonl:{inf}: field 'ci_high' must be finite" \
        in index
    problems = (out / "problems.txt").read_text()
    assert f"{results}:{nan}: not JSON (NaN is not a valid value)" in problems

