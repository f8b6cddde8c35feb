"""The site's script on awkward tables: the model filter with a model whose name holds the
filter's separator (a spec such as `peek:note=a|b`, an option value with `|`) keeps its rows
when it is the model picked; sorting a column puts the rows without a value ("-", not
measured) last in both directions, so the best value is on top when sorted descending."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_browser import Browser, find_chromium
from helpers_samples import write_sample_runs

from vqa_harness_leaderboard import build_leaderboard

pytestmark = pytest.mark.browser

ODD = "qonly:note=a|b <i>"


def _edit_rows(runs: Path, edit) -> None:
    """Rewrite every run's results.jsonl with `edit(rows)`."""
    for path in runs.glob("*/results.jsonl"):
        rows = edit([json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()])
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _rename(runs: Path, old: str, new: str) -> None:
    _edit_rows(runs, lambda rows: [{**r, "model": new if r["model"] == old else r["model"]} for r in rows])


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


#: Per row of the first table with a "-" cell in a numeric column: that column's cell texts
#: after clicking its header (once: ascending, twice: descending).
SORTED = """
(() => {
  for (const t of document.querySelectorAll('table.sortable[id]')) {
    const rows = Array.from(t.tBodies[0].rows);
    const n = t.tHead.rows[0].cells.length;
    for (let c = 1; c < n; c++) {
      const cells = rows.map(r => r.cells[c]);
      if (cells.some(x => x.getAttribute('data-sort')) && cells.some(x => x.textContent.trim() === '-')) {
        const th = t.tHead.rows[0].cells[c];
        const texts = () => Array.from(t.tBodies[0].rows).map(r => r.cells[c].textContent.trim());
        th.click(); const up = texts(); th.click(); const down = texts();
        return [up, down];
      }
    }
  }
  return null;
})()
"""


def _drop_rows(runs: Path, model: str, variant: str) -> None:
    _edit_rows(runs, lambda rows: [r for r in rows if not (r["model"] == model and r["variant"] == variant)])


def test_sorting_puts_missing_values_last_both_ways(tmp_path: Path) -> None:
    if find_chromium() is None:
        pytest.skip("chromium is not installed (bash scripts/install.sh --test installs it)")
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    _drop_rows(runs, "qonly", "blank")  # qonly's gray-image cells: "-"
    build_leaderboard([runs], tmp_path / "site")
    with Browser.launch() as b:
        b.open((tmp_path / "site" / "index.html").resolve().as_uri())
        found = b.evaluate(SORTED)
    assert found is not None
    for texts in found:
        assert texts[-1] == "-" and texts[0] != "-", texts


def test_the_reliance_table_sorts_by_a_column_of_evidence(tmp_path: Path) -> None:
    """"Does it use the image?" listed its models alphabetically with no way to sort: with 60
    models, finding the one whose answers change most meant reading every row."""
    if find_chromium() is None:
        pytest.skip("chromium is not installed (bash scripts/install.sh --test installs it)")
    runs = tmp_path / "runs"
    write_sample_runs(runs, suites=("image-ablation",))
    build_leaderboard([runs], tmp_path / "site")
    with Browser.launch() as b:
        b.open((tmp_path / "site" / "index.html").resolve().as_uri())
        found = b.evaluate("""(() => {
          const t = document.getElementById('reliance-table');
          if (!t.classList.contains('sortable')) return null;
          const keys = () => Array.from(t.tBodies[0].rows).map(r => r.cells[2].getAttribute('data-sort'))
            .filter(k => k !== null && k !== '').map(Number);
          const th = t.tHead.rows[0].cells[2];
          th.click(); const up = keys(); th.click(); const down = keys();
          return [up, down]; })()""")
    assert found is not None, "the reliance table is not sortable"
    up, down = found
    assert len(up) >= 2 and up == sorted(up) and down == sorted(down, reverse=True), found
