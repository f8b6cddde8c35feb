"""Paired significance: hand-computed tests, and `harness compare` on runs of constructed models
whose per-question correctness is known (a 20-point difference, and two identical runs)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.api import Model
from harness.testing import dataset_plugin, hookimpl, make_host, run_in_process, use_host
from harness.types import Example
from vqa_harness_leaderboard.compare import compare_runs
from vqa_harness_leaderboard.runs import load_run
from vqa_harness_leaderboard.significance import is_binary, mcnemar_exact, paired_bootstrap

# ------------------------------------------------------------------ by hand


def test_mcnemar_exact_by_hand() -> None:
    a = np.array([1.0] * 20 + [0.0] * 80)
    b = np.zeros(100)
    assert mcnemar_exact(a, b).p == pytest.approx(2 * 0.5**20)  # b = 20, c = 0
    # b = 3, c = 1: p = 2 * (C(4,0) + C(4,1)) / 2^4 = 0.625.
    t = mcnemar_exact([1, 1, 1, 0, 1], [0, 0, 0, 1, 1])
    assert (t.b, t.c) == (3, 1) and t.p == pytest.approx(0.625)
    assert mcnemar_exact([1, 0], [1, 0]).p == 1.0  # no discordant pair
    assert mcnemar_exact([1, 0, 1, 0], [0, 1, 0, 1]).p == 1.0  # b = c: capped at 1
    with pytest.raises(ValueError):
        mcnemar_exact([0.5, 1], [0, 1])
    assert is_binary([0, 1.0, 1]) and not is_binary([0, 0.3])


def test_paired_bootstrap_by_hand() -> None:
    same = paired_bootstrap([1, 0, 0.3, 1], [1, 0, 0.3, 1], n_boot=500)
    assert (same.diff, same.low, same.high, same.p) == (0.0, 0.0, 0.0, 1.0)
    # Every question one point better: the interval collapses and no resample reaches 0.
    shift = paired_bootstrap([1.0, 1.0, 1.0], [0.0, 0.0, 0.0], n_boot=999)
    assert (shift.diff, shift.low, shift.high) == (1.0, 1.0, 1.0) and shift.p == 1 / 1000
    # Differences (1, 0): resampled means 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4; the share of
    # means <= 0 is F = 1/4 and of means >= 0 is G = 1, so p = 2 min(F, G) is about 0.5 (the
    # interval-inverting p of leaderboard.significance), and the interval is [0, 1].
    half = paired_bootstrap([1.0, 0.0], [0.0, 0.0], n_boot=20_000, seed=1)
    assert (half.low, half.high) == (0.0, 1.0) and half.p == pytest.approx(0.5, abs=0.02)
    with pytest.raises(ValueError):
        paired_bootstrap([1, 2], [1])


def test_mcnemar_p_never_underflows_to_zero() -> None:
    # 2,000 questions only A gets right: p = 2 * 0.5^2000 = 2^-1999, about 10^-601.8, below the
    # smallest float. The tail is summed in log space; printed "< 1e-300", never "0".
    from harness.types import ResultRow
    from vqa_harness_leaderboard.compare import render_comparisons
    from vqa_harness_leaderboard.paired import Comparison
    from vqa_harness_leaderboard.runs import RunInfo
    from vqa_harness_leaderboard.significance import P_FLOOR, p_cell, p_text

    t = mcnemar_exact(np.ones(2000), np.zeros(2000))
    assert (t.b, t.c) == (2000, 0) and t.log10_p == pytest.approx(-1999 * math.log10(2))
    assert t.p < P_FLOOR and p_cell(t.p) == "< 1e-300" and p_text(t.p) == "< 1e-300"
    assert mcnemar_exact([1, 1, 1, 0, 1], [0, 0, 0, 1, 1]).log10_p == pytest.approx(math.log10(0.625))
    row = ResultRow("r", "m", "s", "d", "val", "accuracy", "", "label_accuracy", 1.0, 2000)
    test = paired_bootstrap(np.ones(2000), np.zeros(2000), n_boot=200)
    info = RunInfo(Path("x"), "r", {}, (), (), "", ())
    line = render_comparisons(info, info, [Comparison(row, row, test, t, 2000, 2000)], wide=True).splitlines()[-1]
    assert "< 1e-300 (2000/0)" in line and "| 0 " not in line


def test_bootstrap_p_agrees_with_its_interval() -> None:
    # The p-value inverts the percentile interval: p < 0.05 exactly when the 95% interval
    # excludes 0. Here the former shifted-null p (0.053 with these resamples) called a
    # difference whose interval [-75, -12.5] points excludes 0 not significant.
    t = paired_bootstrap([1, 0, 0, 0, 1, 0, 1, 1], [1, 1, 1, 1, 1, 0, 1, 1], n_boot=2000, seed=0)
    assert t.high < 0 and t.p < 0.05
    rng = np.random.default_rng(7)
    for trial in range(150):
        n = int(rng.integers(5, 40))
        a = (rng.random(n) < rng.random()).astype(float)
        b = np.clip(a + rng.normal(0, 0.6, n).round(), 0, 1) if trial % 2 else (rng.random(n) < 0.5).astype(float)
        t = paired_bootstrap(a, b, n_boot=1000, seed=trial)
        assert (t.low > 0 or t.high < 0) == (t.p < 0.05), (trial, t)


# ------------------------------------------------------------------ constructed models


class _Scripted(Model):
    """Answers "yes" (right) for the first `right` questions, "no" (wrong) for the others (the
    number is in the question: models see their input, not the example id)."""

    right = 0

    def answer(self, batch):
        return ["yes" if int(ex.question.split()[2]) < self.right else "no" for ex in batch]


class ModelA(_Scripted):
    name, right = "scripted-a", 60


class ModelB(_Scripted):
    name, right = "scripted-b", 40


class _Models:
    @hookimpl
    def register_models(self, register):
        register(ModelA)
        register(ModelB)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare")
    questions = [Example(id=f"q-{i}", question=f"is thing {i} there?", answers=("yes",) * 10, answer_type="yes/no")
                 for i in range(100)]
    host = make_host(dataset_plugin("yes-data", {"val": questions}, suite="yes-suite"), _Models(), builtins=True)
    out: dict[str, Path] = {}
    with use_host(host):
        for key, model in (("a", "scripted-a"), ("b", "scripted-b")):
            outcome = run_in_process(host, model=model, suite="yes-suite", tmp_path=root / key)
            assert outcome.exit_code == 0
            out[key] = outcome.rundir.path
    out["a2"] = root / "copy-of-a"
    shutil.copytree(out["a"], out["a2"])
    return out


def _by_metric(found) -> dict[str, Any]:
    return {c.a.metric: c for c in found}


def test_known_difference(runs: dict[str, Path]) -> None:
    found, notes = compare_runs(load_run(runs["a"]), load_run(runs["b"]))
    assert notes == []
    c = _by_metric(found)["vqa_accuracy"]
    t = c.test
    assert t.n == 100 and (t.mean_a, t.mean_b) == (0.6, 0.4)
    assert t.diff == pytest.approx(0.2)
    assert 0.1 < t.low < 0.2 < t.high < 0.3 and t.p < 0.001
    # Per question: 20 questions only A gets right, none only B.
    assert (c.mcnemar.b, c.mcnemar.c) == (20, 0)
    assert c.mcnemar.p == pytest.approx(2 * 0.5**20)


def test_identical_runs_differ_by_zero_with_p_one(runs: dict[str, Path]) -> None:
    found, _ = compare_runs(load_run(runs["a"]), load_run(runs["a2"]))
    assert found
    for c in found:
        assert (c.test.diff, c.test.low, c.test.high, c.test.p) == (0.0, 0.0, 0.0, 1.0)
        assert c.mcnemar is None or c.mcnemar.p == 1.0


def test_cli_prints_the_comparison_and_writes_json(runs: dict[str, Path], tmp_path: Path, capsys) -> None:
    from vqa_harness_cli import main

    out = tmp_path / "cmp.json"
    assert main(["compare", str(runs["a"]), str(runs["b"]), "--n-boot", "2000", "--json", str(out), "--wide"]) == 0
    text = capsys.readouterr().out
    # One line first: the answer.
    assert text.splitlines()[0].startswith("A (scripted-a) better on ") and ", worse on 0, " in text.splitlines()[0]
    line = next(ln for ln in text.splitlines() if "| vqa_accuracy " in ln)
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    assert cells[5] == "VQA accuracy"  # the probe's own name beside the id
    assert cells[6:9] == ["100", "60.00", "40.00"] and cells[9].startswith("20.00 [")
    # The bootstrap's floor says what 2,000 resamples can say; McNemar is exact.
    assert cells[10] == "< 0.0005" and cells[11] == "1.9e-06 (20/0)" and cells[12] == "A"
    data = json.loads(out.read_text())
    row = next(c for c in data["comparisons"] if c["metric"] == "vqa_accuracy")
    assert row["diff"] == pytest.approx(0.2) and math.isclose(row["mcnemar"]["p"], 2 * 0.5**20)


def test_cli_fits_the_terminal_names_metrics_once_and_refuses_unknown_probes(runs: dict[str, Path], capsys,
                                                                          monkeypatch) -> None:
    from vqa_harness_cli import main

    monkeypatch.setenv("COLUMNS", "80")
    assert main(["compare", str(runs["a"]), str(runs["b"]), "--n-boot", "2000"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0].startswith("A (scripted-a) better on ")
    table = lines[lines.index(next(ln for ln in lines if ln.startswith("== "))):]
    assert max(len(ln) for ln in table) <= 80, max(table, key=len)  # wrapped into blocks, not 230 columns
    assert "VQA accuracy" in text and "vqa_accuracy " not in text  # readable names, not ids
    # One line per metric in each block of columns (no metric repeated), the answer type named.
    blocks = sum(1 for ln in table if ln.startswith("metric "))
    assert blocks >= 1 and sum(1 for ln in table if ln.startswith("VQA accuracy  ")) == blocks
    assert "VQA accuracy by answer type:" in text and "\nyes/no" in text  # the type named (wrapped)
    assert main(["compare", str(runs["a"]), str(runs["b"]), "--probe", "acuracy"]) == 2
    err = capsys.readouterr().err
    assert "--probe 'acuracy'" in err and "did you mean: accuracy" in err and "Traceback" not in err


def test_cli_without_per_question_scores_is_one_line_error(runs: dict[str, Path], tmp_path: Path, capsys) -> None:
    from vqa_harness_cli import main

    bare = tmp_path / "bare"
    shutil.copytree(runs["b"], bare)
    shutil.rmtree(bare / "artifacts")
    assert main(["compare", str(runs["a"]), str(bare)]) == 3
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("error: no metric has per-question scores in both")
    assert "Traceback" not in err
    assert main(["compare", str(runs["a"]), str(tmp_path)]) == 2  # not a run folder
    # No result rows at all: that is the reason, not "no metric has per-question scores in both".
    (bare / "results.jsonl").write_text("")
    capsys.readouterr()
    assert main(["compare", str(runs["a"]), str(bare)]) == 3
    assert capsys.readouterr().err.strip() == f"error: run B ({bare}) has no result rows: {bare / 'results.jsonl'} is empty"
    (bare / "results.jsonl").unlink()
    assert main(["compare", str(bare), str(runs["a"])]) == 3
    assert capsys.readouterr().err.strip() == f"error: run A ({bare}) has no result rows: {bare / 'results.jsonl'} is missing"


def test_cli_json_into_a_run_folder_or_nowhere_is_refused_before_the_work(runs: dict[str, Path], tmp_path: Path,
                                                                          capsys) -> None:
    """`--json runs/A/results.jsonl` replaced run A's results with the comparison; `--json
    /proc/x.json` ended in a traceback after the work. Both are one line (exit 2) now."""
    from vqa_harness_cli import main

    run = tmp_path / "run-b"
    shutil.copytree(runs["b"], run)
    results = (run / "results.jsonl").read_bytes()
    for target in (run / "results.jsonl", run / "manifest.json", run / "cmp.json"):
        assert main(["compare", str(runs["a"]), str(run), "--n-boot", "100", "--json", str(target)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and f"--json {target} is inside the run folder {run}" in err
    assert (run / "results.jsonl").read_bytes() == results and not (run / "cmp.json").exists()
    assert main(["compare", str(runs["a"]), str(run), "--n-boot", "100", "--json", "/proc/no/x.json"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "/proc/no" in err and "Traceback" not in err


def test_cli_names_a_run_compared_with_itself(runs: dict[str, Path], capsys) -> None:
    from vqa_harness_cli import main

    assert main(["compare", str(runs["a"]), str(runs["a"]) + "/.", "--n-boot", "100"]) == 0
    err = capsys.readouterr().err
    assert "note: RUN_A and RUN_B are the same run folder" in err
    assert main(["compare", str(runs["a"]), str(runs["a2"]), "--n-boot", "100"]) == 0  # a copy: compared, no note
    assert "same run folder" not in capsys.readouterr().err


def test_per_question_scores_that_do_not_average_to_their_row_are_not_compared(runs: dict[str, Path],
                                                                               tmp_path: Path, capsys) -> None:
    """A per-question score edited to 7 (of a fraction) or -1 shifted B's mean and the test
    silently; the scores behind a row average to its value (harness.perexample), so such a
    file is a note and the metric is left out."""
    from vqa_harness_cli import main

    for bad in (7.0, -1.0):
        run = tmp_path / f"edited-{bad}"
        shutil.copytree(runs["b"], run)
        (path,) = [p for p in run.rglob("per_example/*.json") if "vqa_accuracy" in json.loads(p.read_text())["scores"]]
        data = json.loads(path.read_text())
        data["scores"]["vqa_accuracy"][0] = bad
        path.write_text(json.dumps(data))
        out = tmp_path / "cmp.json"
        assert main(["compare", str(runs["a"]), str(run), "--n-boot", "100", "--json", str(out)]) == 0
        err = capsys.readouterr().err
        assert f"note: {path}: the per-question scores of 'vqa_accuracy' average to" in err
        assert "not 0.4 as its result row says" in err and "file deleted?" not in err
        assert "vqa_accuracy" not in {c["metric"] for c in json.loads(out.read_text())["comparisons"]}


def test_each_cell_is_tested_against_the_row_above_on_hover(runs: dict[str, Path], tmp_path: Path) -> None:
    # The site's tables: besides "≈ the best", every cell carries (in its hover text only) the
    # paired test against the cell above it: difference, 95% interval and p.
    from vqa_harness_leaderboard import build_leaderboard, collect, tables_of
    from vqa_harness_leaderboard.paired import ScoreIndex
    from vqa_harness_leaderboard.sigmarks import ABOVE_NOTE, mark_table

    table = next(t for t in tables_of([runs["a"], runs["b"]]).values() for t in t if t.probe == "accuracy")
    marked = mark_table(table, ScoreIndex(collect([runs["a"], runs["b"]]).runs)).compact()
    col = marked.headers.index("All")
    rows = [r[0] for r in marked.body]
    below = rows.index("scripted-b")
    assert rows.index("scripted-a") == below - 1
    kind, why = marked.marks[below][col]
    assert kind == "differs" and "vs the best (scripted-a): -20.00 [" in why
    assert "vs the row above (scripted-a): -20.00 [" in why and "p < 0.0005" in why and "n = 100 paired items" in why
    assert marked.marks[below - 1][col][0] == "best" and "row above" not in marked.marks[below - 1][col][1]
    assert ABOVE_NOTE in marked.note
    site = tmp_path / "site"
    build_leaderboard([runs["a"], runs["b"]], site)
    html = (site / "index.html").read_text(encoding="utf-8")
    assert "vs the row above (scripted-a): -20.00 [" in html  # in a title attribute, not in the cell text
    assert ">vs the row above" not in html


def test_two_image_blind_runs_keep_conditions_apart_and_note_no_missing_files(tmp_path: Path) -> None:
    """prior and qonly ignore the image, so the accuracy probe's VQA accuracy equals the image
    ablation's under a gray and a swapped image: only the real-image row is the same
    measurement (it merges with accuracy's); the others stay apart with their own direction.
    Breakdown rows that never had per-question scores are not reported as deleted files."""
    from harness.api import Suite, Task
    from vqa_harness_leaderboard.compare import unique_comparisons

    suite = Suite("blind", "test", (Task("toyvqa:variant=balanced", "val", ("accuracy", "image-ablation")),))
    host = make_host(builtins=True)
    with use_host(host):
        a, b = (run_in_process(host, model=m, suite=suite, tmp_path=tmp_path / m, limit=40) for m in ("prior", "qonly"))
    found, notes = compare_runs(load_run(a.rundir.path), load_run(b.rundir.path))
    assert not [n for n in notes if "missing" in n], notes
    merged = {(c.a.metric, c.a.variant, c.a.higher_is_better): probes for c, probes in unique_comparisons(found)}
    assert merged[("vqa_accuracy", "", True)] == ["accuracy", "image-ablation"] or \
        merged[("vqa_accuracy", "real", True)] == ["image-ablation", "accuracy"]
    for variant in ("blank", "swap", "no-question"):
        assert merged[("vqa_accuracy", variant, None)] == ["image-ablation"]
