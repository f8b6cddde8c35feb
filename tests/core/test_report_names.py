"""report.md's "Headline numbers" names data, probes and metrics as `harness run` prints them
(readable names from the probes' `display()` and the dataset specs), each followed by its id
in code marks where the two differ, so a reader can filter results.jsonl by it."""

from __future__ import annotations

from helpers_core import core_plugins

from harness.display import Display
from harness.report import render_report
from harness.testing import make_host, run_in_process
from harness.types import ResultRow


def _headline(text: str) -> str:
    return text[text.index("## Headline numbers"):].split("\n## ")[0]


def test_headline_table_gives_readable_names_and_the_ids():
    row = ResultRow(run_id="r", model="m", suite="s", dataset="toyvqa:variant=balanced", split="val",
                    train="toyvqa:variant=unbalanced/train", probe="accuracy", variant="",
                    metric="vqa_accuracy", value=0.5, n=2)
    other = ResultRow(run_id="r", model="m", suite="s", dataset="tiny", split="val", probe="mine",
                      variant="", metric="hits", value=0.5, n=2)
    displays = {"accuracy": Display(title="Accuracy", metric_names={"vqa_accuracy": "VQA accuracy"})}
    head = _headline(render_report({"run_id": "r"}, [row, other], [], [], [], [], [],
                                   {"accuracy": [["vqa_accuracy", "*"]]}, displays))
    line = next(ln for ln in head.splitlines() if "vqa_accuracy" in ln)
    assert "toyvqa (balanced), val `toyvqa:variant=balanced/val`" in line
    assert "toyvqa (unbalanced), train `toyvqa:variant=unbalanced/train`" in line
    assert "Accuracy `accuracy`" in line and "VQA accuracy `vqa_accuracy`" in line
    # A name that is its id is written once; a probe without a display keeps its ids.
    line = next(ln for ln in head.splitlines() if "hits" in ln)
    assert "| tiny, val `tiny/val`" in line and "| mine " in line and "| hits " in line
    assert "`mine`" not in line and "`hits`" not in line


def test_a_run_writes_the_probes_names_into_report_md(tmp_path):
    plugins, names = core_plugins()
    outcome = run_in_process(make_host(*plugins, names=names), model="echo", suite="tiny-suite", tmp_path=tmp_path)
    head = _headline((outcome.rundir.path / "report.md").read_text(encoding="utf-8"))
    assert "Accuracy `accuracy`" in head and "VQA accuracy `vqa_accuracy`" in head
