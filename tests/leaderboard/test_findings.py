"""The reader's findings on the tables (docs/leaderboard.md, "Findings"): every estimate with its
interval or a stated reason, one unit per column, readable names, bold only where a test
says so, global rules that say which row is which, markdown without escaped arrows."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from helpers_samples import write_sample_runs

from harness.host import get_host
from harness.types import ResultRow
from vqa_harness_leaderboard import build_leaderboard, collect
from vqa_harness_leaderboard.paired import ScoreIndex
from vqa_harness_leaderboard.sigmarks import mark_table
from vqa_harness_leaderboard.tables import TagIndex, build_tables, render_markdown

PROBES = get_host().probes
DISPLAYS = {e.name: e.obj.display() for e in PROBES}
LAYOUTS = {e.name: list(e.obj.layouts()) for e in PROBES}


def _tables(runs: Path) -> dict:
    found = collect([runs])
    return build_tables(found.rows, found.layouts, TagIndex(found.tags), found.displays)


def test_every_estimate_has_its_interval_or_a_reason(tmp_path: Path) -> None:
    write_sample_runs(tmp_path / "runs", suites=("counterfactual", "decoys", "e-vil"))
    tables = _tables(tmp_path / "runs")
    cf = next(t for t in tables["counterfactual"] if t.layout_id == "table-2").compact()
    assert all("[" in c for row in cf.body for c in row[-3:]), cf.body[0]  # pct1 keeps the interval
    decoys = next(t for t in tables["decoys"] if t.layout_id == "table-3").compact()
    mlp = next(row for row in decoys.body if row[0] == "mlp-iqa")
    assert all("[" in c for c in mlp[2:]), mlp
    # The Random row has no interval: the table says why, with the probe's reason.
    assert "No interval for Random (expected accuracy): the expected accuracy of a uniform pick" in decoys.note
    evil = next(t for t in tables["e-vil"] if t.layout_id == "table-3").compact()
    assert re.search(r"^\d+\.\d \[\d+\.\d, \d+\.\d\]$", evil.body[0][evil.headers.index("VQA-X (test) S_T")])
    said = re.search(r"No interval for ([^:]*): a corpus-level score", evil.note)
    # Labels holding a comma are told apart by semicolons ("S_E, BLEU-1, S_E, BLEU-2" read as four).
    assert said and {"S_O, e-ViL score (no SPICE)", "S_E, e-ViL score (no SPICE)"} <= set(said.group(1).split("; "))
    assert "Overall S_E: the mean of the row's values, no interval." in evil.note


def test_decoy_audit_has_one_unit_per_column_and_readable_names() -> None:
    rows = []
    for variant in ("orig", "iou+qou"):
        for metric, value, unit in (("eq2_rule_accuracy", 0.58, "fraction"), ("random_accuracy", 0.25, "fraction"),
                                    ("neutrality/decoys_never_target", 0.593, "fraction"),
                                    ("neutrality/decoy_use_vs_chance", 0.4065, "score"),
                                    ("candidates_per_question", 4.0, "count")):
            rows.append(ResultRow("r", "-", "s", f"toy-mc:decoys={variant}", "val", "decoy-audit", variant, metric,
                                  value, 2100, None, None, None, unit))
    for metric, count in (("generation/rejected_wup", 230), ("generation/iou/generated", 5710)):
        rows.append(ResultRow("r", "-", "s", "toy-mc:decoys=orig", "val", "decoy-audit", "", metric, count, 2100,
                              None, None, None, "count"))
    tags = TagIndex({"r": []})
    audit, generation = [t.compact() for t in build_tables(rows, LAYOUTS, tags, DISPLAYS)["s"]]
    assert audit.headers[0] == "decoy set" and "split" not in audit.headers
    assert audit.headers[1:] == ("Eq. 2 rule (%)", "Random (%)", "decoys never a target (%)",
                                 "decoy use vs chance (ratio; 1 = neutral)", "candidates per question")
    orig = audit.body[0]
    assert orig[0] == "Orig" and orig[1:4] == ("58.0", "25.0", "59.3") and orig[4] == "0.4065" and orig[5] == "4"
    assert [r[0] for r in generation.body] == ["IoU decoys generated", "candidates rejected: WUP similarity"]
    assert generation.headers[-1] == "count" and not any("generation/" in c for r in generation.body for c in r)


def test_global_rules_say_which_row_is_which_and_markdown_keeps_arrows(tmp_path: Path) -> None:
    write_sample_runs(tmp_path / "runs", suites=("counterfactual",))
    rules = [t for t in _tables(tmp_path / "runs")["counterfactual"] if t.layout_id == "rules"]
    md = render_markdown(rules[0])
    assert "rank (1 = most robust)" in md and "answers unchanged (%)" in md and "value" not in md.split("\n|")[1]
    assert "&gt;" not in md and "(X → Y)" in md
    for t in rules:  # every model: the same ranks in the same order, ties broken by name
        by_model: dict[str, list[str]] = {}
        for row in t.compact().body:
            by_model.setdefault(row[0], []).append(row[1])
        assert set(map(tuple, by_model.values())) == {("1 of 8", "2 of 8", "3 of 8", "6 of 8", "7 of 8", "8 of 8")}


def test_bold_only_where_a_test_says_so(tmp_path: Path) -> None:
    # Two model-independent rankers give every model the same hits: equal cells, p = 1, no bold.
    from harness.perexample import write_scores

    class Ctx:
        def __init__(self, path: Path, probe: str) -> None:
            self.path, self.probe, self.dataset, self.split, self.train = path, probe, "d", "val", ""

        def artifact(self, name: str) -> Path:
            out = self.path / "artifacts" / self.probe / name
            out.parent.mkdir(parents=True, exist_ok=True)
            return out

    from harness.fileio import write_jsonl
    from harness.project import SCHEMA_VERSION

    hits = {"random": [1.0, 0.0] * 50, "model-a": [1.0] * 90 + [0.0] * 10, "model-b": [1.0] * 30 + [0.0] * 70}
    for model in ("a", "b"):
        path = tmp_path / "runs" / f"2025-{model}"
        rows = []
        for variant in ("random", "model"):
            values = hits[variant if variant == "random" else f"model-{model}"]
            write_scores(Ctx(path, "counter-examples"), [f"q{i}" for i in range(100)],
                         {"counterexample/recall@5": values}, variant=variant)
            rows.append({"schema_version": SCHEMA_VERSION, "run_id": f"2025-{model}", "model": model, "suite": "s",
                         "dataset": "d", "split": "val", "probe": "counter-examples", "variant": variant,
                         "metric": "counterexample/recall@5", "value": float(np.mean(values)), "n": 100,
                         "ci_low": 0.0, "ci_high": 1.0, "higher_is_better": True, "unit": "fraction", "train": ""})
        write_jsonl(path / "results.jsonl", rows)
    found = collect([tmp_path / "runs"])
    (table,) = build_tables(found.rows, LAYOUTS, TagIndex(found.tags), DISPLAYS)["s"]
    marked = mark_table(table, ScoreIndex(found.runs)).compact()
    col = {h: j for j, h in enumerate(marked.headers)}
    kinds = {(row[0], h): marked.marks[i][j][0] for i, row in enumerate(marked.body) for h, j in col.items()}
    assert kinds[("a", "Random")] == "" and kinds[("b", "Random")] == "same"  # identical: nobody bold
    assert kinds[("a", "Model")] == "best" and kinds[("b", "Model")] == "differs"  # 90 vs 30 of 100: bold
    # A model's own page compares nothing: no cell is bold there.
    build_leaderboard([tmp_path / "runs"], tmp_path / "site")
    page = (tmp_path / "site" / "models" / "a.html").read_text(encoding="utf-8")
    assert 'data-sig="best"' not in page and 'class="num best"' not in page
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert index.count('data-sig="best"') == 1
