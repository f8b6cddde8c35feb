"""Too few questions to tell: `harness compare` tests a metric only on at least MIN_PAIRED
paired questions, and a card's verdict rests only on rows over at least as many (a model run
with `--limit 1`, interval [100, 100], neither "uses the image" nor significantly better;
docs/compare.md, docs/leaderboard.md "Enough paired questions")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers_samples import write_sample_runs

from harness.fileio import write_jsonl
from harness.perexample import write_scores
from harness.project import SCHEMA_VERSION
from vqa_harness_cli import main
from vqa_harness_leaderboard import collect
from vqa_harness_leaderboard.cards import build_cards, card_markdown, verdict
from vqa_harness_leaderboard.paired import MIN_PAIRED
from vqa_harness_leaderboard.reliance import reliance_table

DATA, TRAIN = "toyvqa:variant=balanced", "toyvqa:variant=balanced/train"
SAMPLE = "20250101-000000-qonly-image-ablation"


class _Ctx:
    """What `write_scores` needs of a probe context."""

    def __init__(self, path: Path) -> None:
        self.path, self.probe, self.dataset, self.split, self.train = path, "image-ablation", DATA, "val", TRAIN

    def artifact(self, name: str) -> Path:
        out = self.path / "artifacts" / self.probe / name
        out.parent.mkdir(parents=True, exist_ok=True)
        return out


def _add_run(runs: Path, model: str, k: int) -> Path:
    """A run of `model` on the first `k` questions of the samples (q0...), each answered right
    with the image only: every drop is 1, its interval [100, 100]."""
    path = runs / f"20250101-000001-{model}-image-ablation"
    path.mkdir()
    shutil.copy(runs / SAMPLE / "tables.json", path / "tables.json")
    manifest = json.loads((runs / SAMPLE / "manifest.json").read_text(encoding="utf-8"))
    (path / "manifest.json").write_text(json.dumps({**manifest, "run_id": path.name, "model": model}),
                                        encoding="utf-8")
    ids, ones = [f"q{i}" for i in range(k)], [1.0] * k

    def row(variant: str, metric: str) -> dict:
        return {"schema_version": SCHEMA_VERSION, "run_id": path.name, "model": model, "suite": "image-ablation",
                "dataset": DATA, "split": "val", "probe": "image-ablation", "variant": variant, "metric": metric,
                "value": 1.0, "n": k, "ci_low": 1.0, "ci_high": 1.0, "higher_is_better": True, "unit": "fraction",
                "train": TRAIN}

    rows = [row("real", "vqa_accuracy")]
    write_scores(_Ctx(path), ids, {"vqa_accuracy": ones}, variant="real")
    for cond in ("blank", "swap"):
        rows += [row(cond, m) for m in ("vqa_accuracy_drop", "answer_change_rate")]
        write_scores(_Ctx(path), ids, {"vqa_accuracy_drop": ones, "answer_change_rate": ones}, variant=cond)
    write_jsonl(path / "results.jsonl", rows)
    return path


def test_compare_does_not_test_a_metric_on_too_few_paired_questions(tmp_path: Path, capsys, monkeypatch) -> None:
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    tiny, enough = _add_run(runs, "tiny", 3), _add_run(runs, "enough", MIN_PAIRED)
    out = tmp_path / "cmp.json"
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["compare", str(tiny), str(runs / SAMPLE), "--n-boot", "2000", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    first = text.splitlines()[0]
    assert "better on 0 metrics, worse on 0, no difference on 0 (" in first, first
    assert f"not tested: fewer than {MIN_PAIRED} paired questions" in first
    line = next(ln for ln in text.splitlines() if ln.startswith("VQA accuracy ") and "3 of 3/200" in ln)
    assert "not tested" in line and "(too few paired questions: 3)" in line and "0.0005" not in line, line
    data = json.loads(out.read_text())["comparisons"]
    assert data and all(c["not_tested"] == "too few paired questions: 3" and c["n"] == 3 for c in data)
    assert all(c["p_bootstrap"] is None and c["mcnemar"] is None and c["ci_low"] is None for c in data)
    assert main(["compare", str(tiny), str(runs / SAMPLE), "--n-boot", "2000", "--wide"]) == 0
    wide = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in capsys.readouterr().out.splitlines()
            if ln.startswith("| toyvqa")]
    assert wide and all(cells[10] == "not tested" and cells[11] in ("not tested", "-") for cells in wide), wide
    assert all(cells[12] == "(too few paired questions: 3)" for cells in wide)
    # At the minimum the metric is tested: a p-value, and its interval, are printed.
    assert main(["compare", str(enough), str(runs / SAMPLE), "--n-boot", "2000", "--json", str(out)]) == 0
    assert "not tested" not in capsys.readouterr().out
    assert all(c["not_tested"] is None and c["p_bootstrap"] is not None
               for c in json.loads(out.read_text())["comparisons"])


def test_a_card_over_too_few_questions_gives_no_verdict(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    _add_run(runs, "tiny", 1)  # drop 100 [100, 100] over one question
    _add_run(runs, "enough", MIN_PAIRED)
    found = collect([runs])
    tiny, enough = build_cards(found.rows, found.displays, ["tiny", "enough"])
    assert verdict(tiny) == f"too few questions to tell: n = 1 (fewer than {MIN_PAIRED})"
    assert f"**too few questions to tell: n = 1 (fewer than {MIN_PAIRED}).**" in card_markdown(tiny)
    assert verdict(enough).startswith("uses the image")  # the same interval over 6 questions says so
    table = reliance_table(found.rows, found.displays, models=["tiny", "enough", "cnn-lstm", "prior"])
    said = dict(zip(table.models, table.verdicts))
    assert said == {"tiny": "too few questions to tell: n = 1", "enough": "uses the image",
                    "cnn-lstm": "uses the image", "prior": "no measurable use"}, said
