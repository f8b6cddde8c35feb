"""Questions and answers written by crowd workers go into the run report's example tables
(accuracy, pairs, image ablation, counterfactual) through `harness.report.md_cell`: a `|`, a tab
or a newline cannot break the table, a `<script>` is text, and an HTML entity typed by a worker
("&amp;", "&#39;") is shown as typed, not as the character it names."""

from __future__ import annotations

from types import SimpleNamespace

from harness.types import Example

ODD = "Is | this a\tcup\nor a <script>x</script> &amp; &#39;?"


class _Ctx:
    def __init__(self, examples=()):
        self.examples, self.texts = list(examples), []

    def report(self, text: str) -> None:
        self.texts.append(text)


def _rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("|") and "---" not in line][1:]


def _check(row: str) -> None:
    assert row.count(" | ") == 3 and "\\|" in row, row  # 4 cells: the question's pipe is escaped
    assert "<script" not in row and "\t" not in row, row
    assert "&amp;amp;" in row and "&amp;#39;" in row, row  # the entities are shown as typed


def test_the_accuracy_table_escapes_odd_questions_and_answers():
    from vqa_harness_plugins.probes.accuracy import _report_examples

    ctx = _Ctx()
    ex = Example(id="1", question=ODD, answers=("a&amp;b",) * 9 + ("x|y",))
    _report_examples(ctx, [ex], ["&#39;"], [0.0])
    (row,) = _rows(ctx.texts[0])
    _check(row)
    assert "x\\|y" in row


def test_the_pairs_table_escapes_odd_questions():
    from vqa_harness_plugins.probes.balanced.pairs import _report_examples

    exs = [Example(id="1", question=ODD, label="a"), Example(id="2", question="q", label="b")]
    ctx = _Ctx(exs)
    answer = SimpleNamespace(answer="&amp;")
    _report_examples(ctx, [(0, 1)], [answer, answer], [SimpleNamespace(identical=True, both_correct=False)])
    (row,) = _rows(ctx.texts[0])
    assert row.count(" | ") == 3 and "<script" not in row and "\t" not in row and "&amp;amp;" in row, row


def test_the_image_ablation_table_escapes_odd_questions():
    from vqa_harness_plugins.probes.ablation.probe import _report

    ctx = _Ctx()
    ex = Example(id="1", question=ODD, answers=("a",) * 10)
    plan = SimpleNamespace(within_group=1, across_groups=0, left_out=0)
    preds = {"real": [SimpleNamespace(answer="&amp;")], "swap": [SimpleNamespace(answer="no")]}
    _report(ctx, [ex], plan, "all", preds, {"swap": ([0],)})
    (row,) = _rows(ctx.texts[0])
    assert row.count(" | ") == 3 and "<script" not in row and "\t" not in row and "&amp;amp;" in row, row


def test_the_counterfactual_table_escapes_odd_questions():
    from vqa_harness_plugins.generators.counterfactual import KINDS
    from vqa_harness_plugins.probes.counterfactual.metrics import Pair
    from vqa_harness_plugins.probes.counterfactual.report import render

    kind = KINDS[0]
    pair = Pair("1", ODD, ODD.replace("cup", "mug"), "&#39;", "a|b", "cup", "mug")
    from pathlib import Path
    text = render([kind], {kind.id: __import__("collections").Counter(applied=1)}, 1,
                  {kind.id: (None, [pair], [], [])}, [], Path("x.jsonl"), top=3)
    rows = [line for line in text.splitlines() if line.startswith(f"| {kind.label} | cup")]
    assert len(rows) == 1, text
    assert rows[0].count(" | ") == 3 and "<script" not in rows[0] and "\t" not in rows[0], rows[0]
    assert "&amp;#39;" in rows[0] and "a\\|b" in rows[0], rows[0]


def test_the_html_report_shows_an_escaped_cell_as_typed():
    import html

    from harness.report import md_cell
    from vqa_harness_leaderboard.html import markdown_to_html

    typed = "Is | a <script>x</script> &amp; &#39; a&b?"
    body = markdown_to_html("| q | a |\n|---|---|\n| " + md_cell(typed) + " | yes |\n")
    cell = body.split("<td>")[1].split("</td>")[0]
    assert "<script" not in cell and html.unescape(cell) == typed, cell
