"""The same number reads the same, with the same labels, in every output (terminal summary,
run report, leaderboard tables): no output drops a label that tells two numbers apart, and
no output rounds a number another shows with more digits."""

from __future__ import annotations

from pathlib import Path

from helpers_samples import write_sample_runs

from harness.report import format_value
from harness.types import ResultRow
from vqa_harness_leaderboard.runs import collect
from vqa_harness_leaderboard.summary import headline_text
from vqa_harness_leaderboard.tables import format_cell


def test_terminal_headlines_name_the_training_data(tmp_path: Path) -> None:
    # UB and BB are both tested on toyvqa (balanced), val; only the training data differs.
    # The run report's headline table has a "trained on" column; the terminal had none, so
    # two lines read alike with different numbers.
    write_sample_runs(tmp_path / "runs", suites=("balanced-vqa",))
    text = headline_text(collect([tmp_path / "runs"]), 400)
    assert "trained on" in text
    lines = [ln for ln in text.splitlines() if ln.startswith("prior ")]
    labels = [ln.rsplit("  ", 1)[0].rstrip() for ln in lines]  # all but the value column
    assert len(lines) >= 4 and len(set(labels)) == len(labels), lines
    assert any("toyvqa (unbalanced), train" in ln for ln in lines)


def _count(value: float) -> ResultRow:
    return ResultRow(run_id="r", model="m", suite="s", dataset="d", split="val", probe="p", variant="",
                     metric="candidates_per_question", value=value, n=30, unit="count")


def test_a_count_that_is_not_whole_reads_the_same_in_the_report_and_the_leaderboard() -> None:
    # decoy-audit's candidates per question on the 'all' set is a mean (9.4): the leaderboard
    # printed 9.40, the run report 9; a mean of 0.5 read 0 (round half to even): a zero where
    # the number is not zero.
    for value, text in ((9.4, "9.40"), (0.5, "0.50"), (2.5, "2.50"), (4.0, "4")):
        assert format_cell(_count(value)) == text
        assert format_value(_count(value)) == text


def test_the_docs_say_which_outputs_print_one_decimal() -> None:
    # docs/metrics.md said "reports and leaderboards print them as percentages with two
    # decimals"; the reliance table, the cards (and the terminal's reliance table) print one
    # (pairs answered differently: 0.0 [0.0, 16.1] there, 0.00 [0.00, 16.11] in the pairs table).
    docs = Path(__file__).resolve().parents[2] / "docs"
    metrics = (docs / "metrics.md").read_text(encoding="utf-8")
    assert "one decimal" in metrics and "two decimals" in metrics
    board = (docs / "leaderboard.md").read_text(encoding="utf-8")
    reliance = board[board.index("## Does it use the image?"):board.index("**Like with like.**")]
    card = board[board.index("## The image-reliance card"):]
    assert "one decimal" in reliance and "one decimal" in card[:3000]
