"""`harness report RUN`: one run as markdown and HTML (headline numbers, tables, examples,
local explanations, failures with plugin names, manifest)."""

from __future__ import annotations

import re
from pathlib import Path

from helpers_samples import write_sample_runs

from vqa_harness_cli import main
from vqa_harness_leaderboard.html import markdown_to_html
from vqa_harness_leaderboard.runreport import load_run, render_run_markdown


def test_report_of_a_run_with_failures_and_local_explanations(tmp_path: Path, capsys) -> None:
    runs = write_sample_runs(tmp_path / "runs", suites=("decoys", "counterfactual"))
    failing = next(p for p in runs if p.name.endswith("mlp-a-decoys"))
    assert main(["report", str(failing)]) == 0
    md = (failing / "report_full.md").read_text(encoding="utf-8")
    html = (failing / "report.html").read_text(encoding="utf-8")
    assert "## Headline numbers" in md and "MC accuracy (image + question)" in md  # readable names
    # The failure keeps the plugin's name, in both renderings.
    assert "plugin vqa_harness_plugins.probes.decoys" in md
    assert "plugin vqa_harness_plugins.probes.decoys" in html
    assert "seed" in html and "<table" in html and "Metrics not computed" in html

    cf = next(p for p in runs if p.name.endswith("qonly-counterfactual"))
    out = tmp_path / "elsewhere"
    assert main(["report", str(cf), "--out", str(out)]) == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    # Local explanations: the changed answer first, and a relative link to the artifact.
    assert page.index("what color is the solid?") < page.index("is the ball cyan?")
    assert 'href="../runs/20250101-000000-qonly-counterfactual/artifacts/counterfactual/' in page
    # Rendering twice gives the same bytes.
    first = page
    assert main(["report", str(cf), "--out", str(out)]) == 0
    assert (out / "report.html").read_text(encoding="utf-8") == first


def test_report_of_a_folder_that_is_not_a_run(tmp_path: Path, capsys) -> None:
    assert main(["report", str(tmp_path)]) != 0
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "not a run folder" in err and len(err.strip().splitlines()) == 1


def test_report_lists_skipped_rows(tmp_path: Path) -> None:
    (run,) = write_sample_runs(tmp_path / "runs", suites=("counterfactual",))[:1]
    with open(run / "results.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"schema_version": 42}\n')
    info = load_run(run)
    assert len(info.problems) == 1 and ":" in info.problems[0]
    assert "## Result rows skipped" in render_run_markdown(info)


def test_markdown_subset() -> None:
    html = markdown_to_html("# T\n\n- a `x`\n- **b**\n\n| h1 | h2 |\n|---|---|\n| 1.5 [1.0, 2.0] | y |\n\npara\ntext\n")
    assert "<h2>T</h2>" in html and "<li>a <code>x</code></li>" in html and "<strong>b</strong>" in html
    assert '<td data-sort="1.5" class="num" title="95% CI [1.0, 2.0]">1.5<small class="ci">[1.0, 2.0]</small></td>' in html
    assert "<p>para text</p>" in html


def test_run_page_reads_like_the_index(tmp_path: Path) -> None:
    # Readable names in the headline table (not raw specs and metric ids), one "Headline
    # numbers" heading, an explanation line for every table, skips without literal backticks.
    from vqa_harness_leaderboard.runreport import render_run_html

    run = next(p for p in write_sample_runs(tmp_path / "runs", suites=("decoys",)) if p.name.endswith("mlp-iqa-decoys"))
    info = load_run(run)
    html = render_run_html(info)
    head = html[html.index("<h2>Headline numbers</h2>"):html.index("<h2>Tables")]
    assert "MC accuracy (image + question)" in head and "MC accuracy, no image" in head and "IoU+QoU" in head
    assert ">mc_accuracy<" not in head and ">iou+qou<" not in head
    assert html.count("Headline numbers") == 1 and '<h3 class="table-title">Headline numbers' not in html
    assert len(re.findall(r'<div class="table-block"[^>]*>', html)) == html.count('<p class="explain">')
    skips = re.findall(r'<li class="skip">(.*?)</li>', html)
    assert skips and all("`" not in s and "<code>nle</code>" in s for s in skips)
    md = render_run_markdown(info)
    assert "| toy-mc, test " in md or "| toy-mc, test" in md.replace("  ", " ")
    assert "MC accuracy (image + question)" in md
