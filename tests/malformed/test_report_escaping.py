"""`harness report RUN` writes report_full.md with user text escaped the way report.md and
index.md escape it (`harness.report.md_cell` / `md_code` / `escape_markdown`): skipped
result rows, the manifest's model, suite, command and plugin failures, artifact records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers_malformed import run_cli, write

from harness.project import SCHEMA_VERSION

EVIL = "<script>alert(1)</script>"


def _row(**over) -> dict:
    row = {"schema_version": SCHEMA_VERSION, "run_id": "20250101-000000-m", "model": "m`x", "suite": "s",
           "dataset": "d", "split": "val", "probe": "accuracy", "variant": "", "metric": "vqa_accuracy",
           "value": 0.5, "n": 10, "ci_low": None, "ci_high": None, "higher_is_better": True, "unit": "fraction",
           "train": ""}
    row.update(over)
    return row


def _evil_run(root: Path) -> Path:
    run = root / "20250101-000000-m"
    rows = [json.dumps(_row()), json.dumps(_row(unit=EVIL)), json.dumps({EVIL: 1}), f"<img src=x onerror=alert(2)> {EVIL}"]
    write(run / "results.jsonl", "".join(r + "\n" for r in rows))
    write(run / "manifest.json", json.dumps({
        "run_id": run.name, "model": f"m`x {EVIL}", "model_plugin": "<b>plugin</b>", "suite": "s|t", "status": "complete",
        "argv": ["harness", "run", "--model", EVIL], "plugin_failures": ["evil: <iframe src=x>\nsecond line"]}))
    write(run / "report.md", f"# Run\n\n## Probe failures\n\n- probe p failed: &lt;b&gt; a\\|b\n\n## Notes\n\n{EVIL}\n")
    write(run / "artifacts" / "p" / "examples.jsonl",
          json.dumps({"question": f"Is it {EVIL}?", "answer": "<b>yes</b>", "explanation": "a|b `c`",
                      "references": ["<i>r</i>"]}) + "\n")
    return run


def test_report_full_md_escapes_user_text(capsys, tmp_path):
    run = _evil_run(tmp_path / "runs")
    code, out, err = run_cli(capsys, ["report", str(run)])
    assert code == 0 and "Traceback" not in out + err, err
    md = (run / "report_full.md").read_text(encoding="utf-8")
    for raw in ("<script", "<img", "<b>", "<i>", "<iframe"):
        assert raw not in md, (raw, md)
    skipped = md[md.index("## Result rows skipped"):].split("\n## ")[0]
    assert skipped.count("\n- ") == 3 and "got '&lt;script>alert(1)&lt;/script>'" in skipped
    facts = md[: md.index("Fractions are shown")]
    assert "- model: m\\`x &lt;script>" in facts and "- suite: s\\|t" in facts
    assert "- command: harness run --model &lt;script>" in facts
    assert "## Image reliance: `m'x &lt;script>alert(1)&lt;/script>`" in md  # a backtick in the model name cannot end the code span
    assert "- plugin failed to load: evil: &lt;iframe src=x> second line" in md  # one list item
    assert "- probe p failed: &lt;b&gt; a\\|b" in md  # report.md's escaping is kept, not doubled
    assert "| Is it &lt;script>alert(1)&lt;/script>? | &lt;b>yes&lt;/b> | a/b \\`c\\`" in md
    html = (run / "report.html").read_text(encoding="utf-8")
    assert EVIL not in html and "<b>plugin" not in html


def test_suite_names_are_code_spans_that_a_backtick_cannot_break(capsys, tmp_path):
    run = tmp_path / "runs" / "20250101-000000-m"
    write(run / "results.jsonl", json.dumps(_row(suite="s`<b>x")) + "\n")
    write(run / "manifest.json", json.dumps({"run_id": run.name, "model": "m", "suite": "s`<b>x", "status": "complete"}))
    code, out, err = run_cli(capsys, ["leaderboard", "build", str(tmp_path / "runs"), "--out", str(tmp_path / "lb")])
    assert code == 0, err
    index_md = (tmp_path / "lb" / "index.md").read_text()
    assert "## Suite `s'&lt;b>x`" in index_md and "<b>" not in index_md


def test_a_pipe_in_user_text_stays_in_its_cell_in_the_html_report():
    from harness.report import md_cell
    from vqa_harness_leaderboard.html import markdown_to_html

    table = "| question | answer |\n|---|---|\n| " + md_cell("is it a|b?") + " | yes |\n"
    body = markdown_to_html(table)
    assert "<td>is it a|b?</td><td>yes</td>" in body and body.count("<td>") == 2


def test_link_syntax_in_user_text_stays_text_in_markdown():
    from harness.report import md_cell
    from vqa_harness_leaderboard.tablemd import _md

    for escaped in (md_cell("m:[l](http://e.com)"), _md("m:[l](http://e.com)")):
        assert "](" not in escaped and "http://e.com" in escaped
    assert _md("0.5 [0.1, 0.9]") == "0.5 [0.1, 0.9]"  # an interval is not touched


def test_emphasis_and_code_marks_in_user_text_round_trip():
    # report.md showed "is it *red* or_blue" in italics; the HTML showed "]\(" with its backslash.
    from harness.report import md_cell
    from vqa_harness_leaderboard.html import markdown_to_html

    text = "is it *red* or_blue `x` [a](b) a\\*b **c** _d_"
    cell = md_cell(text)
    # an "_" inside a word opens no emphasis (CommonMark) and stays as typed: vqa_accuracy
    assert cell == "is it \\*red\\* or_blue \\`x\\` [a]\\(b) a\\\\\\*b \\*\\*c\\*\\* \\_d\\_"
    body = markdown_to_html(f"| question | n |\n|---|---|\n| {cell} | 1 |\n\n- {cell}\n\n`a\\_b` and **d**\n")
    shown = "is it *red* or_blue `x` [a](b) a\\*b **c** _d_"
    assert f"<td>{shown}</td>" in body and f"<li>{shown}</li>" in body
    assert "<p><code>a\\_b</code> and <strong>d</strong></p>" in body  # the harness's own markup stays


@pytest.mark.parametrize("text", ["__init__", "plugins/x/__init__.py failed", "a__b__c", "_x_", "vqa_accuracy"])
def test_a_run_of_underscores_is_escaped_whole_unless_inside_a_word(text):
    # "__init__" became "\__init_\_" (Python's \w counts "_" as a word character): CommonMark
    # read the inner "_init_" as emphasis. A run of "_" between two letters or digits stays.
    from harness.report import md_cell

    markdown_it = pytest.importorskip("markdown_it")
    assert markdown_it.MarkdownIt("commonmark").renderInline(md_cell(text)) == text
    assert md_cell("a__b") == "a__b" and md_cell("__init__") == "\\_\\_init\\_\\_"
