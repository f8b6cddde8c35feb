"""The static leaderboard site: tables, charts, run pages, bad rows, byte-identical rebuilds."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_samples import write_sample_runs

from harness.showcase import read_examples
from harness.testing import make_host, run_in_process, use_host
from vqa_harness_leaderboard import build_leaderboard, collect, tables_of
from vqa_harness_leaderboard.charts import derive_charts
from vqa_harness_leaderboard.tabletypes import TagIndex

CHART_IDS = {"answer-types", "decoy-ablations", "perturbations", "evil-scores", "image-ablation"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """Real toy runs (prior and qtype-prior on vqa-accuracy, prior on image-ablation-toy; 50
    questions per task) + sample runs of every other suite + one run folder with bad rows."""
    root = tmp_path_factory.mktemp("lb")
    host = make_host(builtins=True)
    with use_host(host):
        for model, suite in (("prior", "vqa-accuracy"), ("qtype-prior", "vqa-accuracy"), ("prior", "image-ablation-toy")):
            outcome = run_in_process(host, model=model, suite=suite, tmp_path=root, limit=50)
            assert outcome.exit_code == 0 and outcome.rows
    write_sample_runs(root / "runs")
    bad = root / "runs" / "20250101-000000-bad-rows"
    bad.mkdir()
    good = json.loads((root / "runs" / "20250101-000000-mlp-a-decoys" / "results.jsonl").read_text().splitlines()[0])
    lines = [json.dumps({**good, "schema_version": 99}), json.dumps({k: v for k, v in good.items() if k != "metric"}),
             "{not json"]
    (bad / "results.jsonl").write_text("\n".join(lines) + "\n")
    (bad / "manifest.json").write_text("{}")  # a run writes its manifest first
    return root / "runs"


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_site_has_every_suite_table_and_chart(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    written = build_leaderboard([runs], out)
    tables = tables_of([runs])
    # The markdown and data files are still written, and the site next to them.
    for name in ("index.md", "results.csv", "results.json", "problems.txt", "index.html"):
        assert out / name in written
    assert set(tables) == {"vqa-accuracy", "balanced-vqa", "decoys", "counterfactual", "e-vil", "image-ablation-toy",
                           "image-ablation"}
    html = (out / "index.html").read_text(encoding="utf-8")
    for suite, suite_tables in tables.items():
        assert (out / f"{suite}.md").is_file()
        assert f'id="suite-{suite}"' in html
        for i, _ in enumerate(suite_tables, 1):
            assert f'id="suite-{suite}-t{i}"' in html
    # One chart per kind, each derived from its suite's rows (as its probe declares it), written
    # as one SVG per panel and embedded.
    charts = sorted(p.name for p in (out / "charts").glob("*.svg"))
    found = {cid for cid in CHART_IDS if any(re.search(rf"-{cid}-\d+\.svg$", name) for name in charts)}
    assert found == CHART_IDS
    for name in charts:
        assert f'src="charts/{name}"' in html
        svg = (out / "charts" / name).read_text()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg
        assert "<dc:date>" not in svg  # no timestamp: rebuilds are byte-identical
        assert (out / "charts" / (name.rsplit("-", 1)[0] + ".sha256")).is_file()
    # Every run that contributed rows links to its report page (relative link, page exists).
    for run_id in {r.run_id for r in collect([runs]).rows}:
        assert f'href="run-reports/{run_id}.html"' in html
        page = (out / "run-reports" / f"{run_id}.html").read_text(encoding="utf-8")
        assert "seed" in page and "Headline numbers" in page
    # Self-contained: no external fetches.
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert "<style>" in html and "<script>" in html
    # Filters list the models and datasets.
    for model in ("prior", "mlp-iqa", "explainer-template"):
        assert f'<option value="{model}">' in html
    assert '<option value="e-snli-ve">' in html


def test_bad_rows_are_reported_with_file_and_line(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build_leaderboard([runs], out)
    problems = (out / "problems.txt").read_text().splitlines()
    bad = runs / "20250101-000000-bad-rows" / "results.jsonl"
    assert problems == [f"{bad}:1: unknown schema_version 99 (this leaderboard reads 1 and 2; results from a newer vqa-harness?)",
                        f"{bad}:2: missing field(s) metric",
                        f"{bad}:3: not JSON (Expecting property name enclosed in double quotes)"]
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "3 result row(s) were skipped" in html
    for p in problems:
        assert p.replace('"', "&quot;") in html


def test_rebuild_is_byte_identical_and_charts_are_not_redrawn(runs: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    build_leaderboard([runs], first)
    before = _snapshot(first)
    mtimes = {p: p.stat().st_mtime_ns for p in (first / "charts").glob("*.svg")}
    build_leaderboard([runs], first)
    assert _snapshot(first) == before
    assert {p: p.stat().st_mtime_ns for p in (first / "charts").glob("*.svg")} == mtimes  # not redrawn
    # A fresh folder, built by another process (other hash seeds, fresh matplotlib): same bytes.
    code = ("import sys; from pathlib import Path; from vqa_harness_leaderboard import build_leaderboard; "
            "build_leaderboard([Path(sys.argv[1])], Path(sys.argv[2]))")
    env = {**os.environ, "PYTHONHASHSEED": "123"}
    subprocess.run([sys.executable, "-c", code, str(runs), str(second)], check=True, env=env)
    assert _snapshot(second) == before
    # A suite page left by an earlier build whose runs are gone is removed; a user's file stays.
    (first / "gone-suite.md").write_text("# Suite `gone-suite`\n\nold\n", encoding="utf-8")
    (first / "notes.md").write_text("my notes\n", encoding="utf-8")
    build_leaderboard([runs], first)
    assert not (first / "gone-suite.md").exists() and (first / "notes.md").read_text() == "my notes\n"


def test_chart_redrawn_only_when_its_rows_change(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("decoys", "counterfactual"))
    out = tmp_path / "site"
    build_leaderboard([runs], out)
    decoy_svg, cf_svg = out / "charts" / "decoys-decoy-ablations-3.svg", out / "charts" / "counterfactual-perturbations-1.svg"
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in (decoy_svg, cf_svg)}
    results = runs / "20250101-000000-mlp-iqa-decoys" / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    rows[0]["value"] = 0.99
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    os.utime(cf_svg, ns=(1, 1))  # an untouched chart keeps this stamp if it is not redrawn
    build_leaderboard([runs], out)
    assert decoy_svg.read_bytes() != before[decoy_svg][1]
    assert cf_svg.stat().st_mtime_ns == 1 and cf_svg.read_bytes() == before[cf_svg][1]


def test_charts_only_where_rows_exist(runs: Path) -> None:
    found = collect([runs])
    rows, displays, tags = found.rows, found.displays, TagIndex(found.tags)
    by_suite = {s: {c.id for c in derive_charts([r for r in rows if r.suite == s], displays, tags)}
                for s in {r.suite for r in rows}}
    assert by_suite == {"vqa-accuracy": {"answer-types"}, "balanced-vqa": {"answer-types"},
                        "decoys": {"decoy-ablations"}, "counterfactual": {"perturbations"}, "e-vil": {"evil-scores"},
                        "image-ablation-toy": {"image-ablation"}, "image-ablation": {"image-ablation"}}
    (chart,) = derive_charts([r for r in rows if r.suite == "decoys"], displays, tags)
    # Small multiples: one panel per model, each line an input, the model-free references last.
    panels = {p.title: p for p in chart.panels}
    assert sorted(panels) == sorted({r.model for r in rows if r.suite == "decoys"})
    assert chart.max_series <= 8
    # Orig..All in the paper's order; values are percentages of the rows' fractions.
    assert panels["mlp-a"].categories == ("Orig", "IoU", "QoU", "IoU+QoU", "All")
    row = next(r for r in rows if r.suite == "decoys" and r.model == "mlp-a" and r.variant == "orig"
               and r.metric == "mc_accuracy")
    series = next(s for s in panels["mlp-a"].series if s.label == "image + question")
    assert [s.label for s in panels["mlp-a"].series][-1] == "Random" and panels["mlp-a"].style == "points"
    assert panels["mlp-a"].references == ("Random",)  # model-free, drawn gray
    assert [s.label for s in panels["mlp-iqa"].series][:2] == ["image + question", "no image"]
    assert series.values[0] == pytest.approx(100 * row.value)


def test_empty_runs_folder_gives_a_page_that_says_so(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    out = tmp_path / "site"
    build_leaderboard([tmp_path / "runs"], out)
    html = (out / "index.html").read_text(encoding="utf-8")
    assert 'id="empty"' in html and "No results yet" in html
    assert not list((out / "charts").glob("*.svg")) if (out / "charts").exists() else True


def test_cli_build_writes_the_site(runs: Path, tmp_path: Path) -> None:
    from vqa_harness_cli import main

    out = tmp_path / "cli-site"
    assert main(["leaderboard", "build", str(runs), "--out", str(out)]) == 0
    assert (out / "index.html").is_file() and (out / "charts").is_dir()


def _blocks(html: str) -> list[str]:
    return re.findall(r'<div class="table-block[^"]*"[^>]*>(.*?)</table></div>', html, flags=re.S)


def test_every_table_explains_itself_and_scrolls_in_its_own_box(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build_leaderboard([runs], out)
    for page in [out / "index.html", *sorted((out / "models").glob("*.html"))]:
        html = page.read_text(encoding="utf-8")
        blocks = _blocks(html)
        assert len(blocks) == html.count('<table class="lb')
        for block in blocks:
            assert '<p class="explain">' in block, (page.name, block[:200])
            assert '<div class="scroll"><table class="lb' in block
    html = (out / "index.html").read_text(encoding="utf-8")
    # Readable titles, the spec in small type, the paper table and the direction in the line.
    assert '<h3 class="table-title">Accuracy on toyvqa (balanced), val</h3>' in html
    assert '<div class="spec"><code>toyvqa:variant=balanced/val' in html
    assert "Reproduces: <a href=" in html and "Goyal et al. 2017, Table 1</a>" in html
    assert '<span class="dir" title="higher is better">↑</span>' in html


def test_cards_model_pages_and_metadata(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build_leaderboard([runs], out)
    html = (out / "index.html").read_text(encoding="utf-8")
    models = sorted({r.model for r in collect([runs]).rows})
    section = html[html.index('id="reliance"'):html.index('id="models"')]
    assert section.count('<article class="card"') == len(models)
    for model in models:
        page = (out / "models" / f"{model}.html").read_text(encoding="utf-8")
        assert f"Model <code>{model}</code>" in page and "Does it use the image?" in page
        assert f'href="models/{model}.html"' in html
    # prior ran the image ablation: its card has the drop with an interval and a link to the run.
    prior = section[section.index('id="card-prior"'):]
    prior = prior[:prior.index("</article>")]
    assert "no measurable use of the image" in prior
    assert re.search(r"Accuracy drop, gray image[^<]*<small class=\"reading\">[^<]*</small></th><td class=\"num\" "
                     r"data-sort=\"0.0\">0.0<small class=\"ci\">\[0.0, 0.0\]</small>", prior)
    assert 'href="run-reports/' in prior
    # The real image-ablation run's examples (written by the probe into its task folder) are
    # on prior's page, with the gray image the model saw.
    shown, problems = read_examples(next(runs.glob("*-prior-image-ablation-toy")))
    assert shown and not problems and {s.probe for s in shown} == {"image-ablation"}
    page = (out / "models" / "prior.html").read_text(encoding="utf-8")
    assert "Examples, with the images the model saw" in page and "gray image" in page
    # A model no run ablated: every line says not measured, no number invented.
    mlp = section[section.index('id="card-mlp-a"'):]
    mlp = mlp[:mlp.index("</article>")]
    assert "no direct test of image use (an image ablation) for this model yet" in mlp
    assert re.search(r"Accuracy drop, gray image<small class=\"reading\">[^<]*</small></th><td class=\"num\">-<", mlp)
    # The models table: plugin, distribution, training data, run date.
    models_html = html[html.index('id="models"'):html.index('id="suite-')]
    assert "<th" in models_html and ">baselines<" in models_html and "vqa-harness" in models_html


def test_rows_not_significantly_different_from_the_best_are_marked(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build_leaderboard([runs], out)
    html = (out / "index.html").read_text(encoding="utf-8")
    block = next(b for b in _blocks(html) if "Accuracy on toyvqa (balanced), val" in b)
    marks = re.findall(r'data-sig="(best|same|differs)"', block)
    # Two models with per-question scores on the same 50 questions: in every column (All, each
    # answer type, All lenient) the other cell is tested against the best, and the best is bold
    # only where that test finds a significant difference.
    assert marks.count("same") + marks.count("differs") == 5 and marks.count("best") == marks.count("differs")
    titles = re.findall(r'data-sig="(?:same|differs)"[^>]*title="([^"]*)"', block)
    for title in titles:
        assert re.search(r"vs the best \(q?t?y?p?e?-?prior\): [-+]\d+\.\d\d \[[-+][\d.]+, [-+][\d.]+\] points, "
                         r"p (= [\d.e-]+|&lt; 0.0005), n = \d+ paired items", title), title
    assert any("n = 50 paired items" in t for t in titles)  # the All column: every question


def test_global_rules_are_shortened_and_linked_in_full(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build_leaderboard([runs], out)
    html = (out / "index.html").read_text(encoding="utf-8")
    full = out / "full" / "counterfactual-counterfactual-rules.html"
    assert 'href="full/counterfactual-counterfactual-rules.html"' in html
    page = full.read_text(encoding="utf-8")
    # 2 models x 8 concepts per kind in full; per model its 3 most and 3 least robust on the
    # index, each with its rank.
    first = _blocks(page)[0]
    assert first.count("<tr") == 1 + 16
    shown = next(b for b in _blocks(html) if "Counterfactual global rules" in b)
    assert shown.count("<tr") == 1 + 12 and "4 more row(s)" in html
    assert "rank (1 = most robust)" in shown and "answers unchanged (%)" in shown and ">value" not in shown
    for model in ("cnn-lstm", "qonly"):
        ranks = re.findall(rf"<td>{model}</td><td>([^<]*)</td>", shown)
        assert ranks == ["1 of 8", "2 of 8", "3 of 8", "6 of 8", "7 of 8", "8 of 8"], (model, ranks)


def test_docs_sections_linked_from_tables_exist() -> None:
    from harness.host import get_host
    from vqa_harness_leaderboard.labels import slug

    docs = Path(__file__).resolve().parents[2] / "docs"
    targets = [e.obj.display().docs for e in get_host().probes]
    assert all(targets)  # every built-in probe says where its docs are
    for target in targets:
        name, _, anchor = target.partition("#")
        text = (docs / name).read_text(encoding="utf-8")
        if anchor:
            heads = [slug(line) for line in text.splitlines() if line.startswith("#")]
            assert anchor in heads, (target, heads)


def test_docs_links_work_wherever_the_site_folder_goes(runs: Path, tmp_path: Path, monkeypatch) -> None:
    # The linked docs pages are carried inside the site (docs/<page>.html, with the section
    # anchors), so the links still land after the folder is moved; with VQA_HARNESS_DOCS_URL
    # set, links point there and no copy is written.

    monkeypatch.delenv("VQA_HARNESS_DOCS_URL", raising=False)
    build_leaderboard([runs], tmp_path / "site")
    moved = tmp_path / "elsewhere" / "published"
    moved.parent.mkdir()
    shutil.move(str(tmp_path / "site"), str(moved))
    for page, up in (("index.html", ""), ("models/cnn-lstm.html", "../")):
        html = (moved / page).read_text(encoding="utf-8")
        links = re.findall(r'Reproduces: <a href="([^"]+)"', html)
        assert links, page
        for href in links:
            assert href.startswith(f"{up}docs/") and "://" not in href, href
            target, _, anchor = href.partition("#")
            doc = (moved / page).parent / target
            assert doc.is_file(), href
            assert not anchor or f'id="{anchor}"' in doc.read_text(encoding="utf-8"), href
    monkeypatch.setenv("VQA_HARNESS_DOCS_URL", "https://example.org/vqa-harness/docs")
    build_leaderboard([runs], tmp_path / "remote")
    html = (tmp_path / "remote" / "index.html").read_text(encoding="utf-8")
    assert 'href="https://example.org/vqa-harness/docs/balanced-vqa.md#probes-and-metrics"' in html
    assert not (tmp_path / "remote" / "docs").exists()


def test_an_artifact_line_holding_a_lone_surrogate_is_shown_not_a_traceback(runs: Path, tmp_path: Path) -> None:
    """Run pages show artifact records leniently (bad bytes replaced); a `\\ud800` escape in a
    hand-edited or foreign artifact made writing the page raise UnicodeEncodeError."""

    copy = tmp_path / "runs"
    shutil.copytree(runs, copy)
    artifact = next(p for p in sorted(copy.glob("*/artifacts/**/*.jsonl")) if p.read_text().strip())
    first = json.loads(artifact.read_text().splitlines()[0])
    key = next(k for k, v in first.items() if isinstance(v, str) and k != "image")
    artifact.write_text(json.dumps({**first, key: first[key] + "\ud800"}) + "\n" + artifact.read_text())
    out = tmp_path / "site"
    build_leaderboard([copy], out)
    run = artifact.relative_to(copy).parts[0]
    page = (out / "run-reports" / f"{run}.html").read_text(encoding="utf-8")
    assert "\ufffd" in page  # the surrogate, replaced where the record is shown
