"""Table rules that protect the reader: inapplicable cells say "n/a" with the reason (also
for runs written before the probes tagged them), and rows without a direction are neither
bolded nor called better."""

from __future__ import annotations

from harness.layouts import RowTags
from harness.types import ResultRow
from vqa_harness_leaderboard.notapplicable import na_tag, report_tags
from vqa_harness_leaderboard.tables import TagIndex, build_tables, render_markdown
from vqa_harness_plugins.probes.balanced.tables import COUNTEREXAMPLE_LAYOUTS

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
