"""The site's model filter with a model whose name holds the filter's separator: a spec such as
`peek:note=a|b` (an option value with `|`) keeps its rows when it is the model picked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_browser import Browser, find_chromium
from helpers_samples import write_sample_runs

from vqa_harness_leaderboard import build_leaderboard

pytestmark = pytest.mark.browser

ODD = "qonly:note=a|b <i>"


def _rename(runs: Path, old: str, new: str) -> None:
    for path in runs.glob("*/results.jsonl"):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        rows = [{**r, "model": new if r["model"] == old else r["model"]} for r in rows]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_the_model_filter_keeps_the_rows_of_a_name_with_a_bar(tmp_path: Path) -> None:
    if find_chromium() is None:
        pytest.skip("chromium is not installed (bash scripts/install.sh --test installs it)")
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    _rename(runs, "qonly", ODD)
    build_leaderboard([runs], tmp_path / "site")
    with Browser.launch() as b:
        b.open((tmp_path / "site" / "index.html").resolve().as_uri())
        shown = b.evaluate("""(() => { const s = document.getElementById('filter-model');
            s.value = %s; s.dispatchEvent(new Event('change'));
            return Array.from(document.querySelectorAll('tr[data-model]'))
              .filter(r => !r.classList.contains('hidden-by-filter')).length; })()""" % json.dumps(ODD))
        total = b.evaluate("document.querySelectorAll('tr[data-model]').length")
        # its row of the reliance table, of each ablation table and of the models table at least
        assert shown >= 3 and shown < total, (shown, total)
        other = b.evaluate("""(() => { const s = document.getElementById('filter-model');
            s.value = 'prior'; s.dispatchEvent(new Event('change'));
            return Array.from(document.querySelectorAll('tr[data-model]'))
              .filter(r => !r.classList.contains('hidden-by-filter')).length; })()""")
        assert other >= 3, other
