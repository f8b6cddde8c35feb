"""The generated site in a real headless Chromium: sorting, filters, charts, no console errors.

Also the reader's checks: no table wider than the viewport (1280 and 420 px) outside its own
scroll container, every table with its one-line explanation, at most 8 series per chart
panel, one image-reliance card per model. Skipped only when no Chromium is installed
(`bash scripts/install.sh --test` installs Debian's). The browser is driven over the DevTools protocol on a pipe
(vqa_harness_leaderboard.browser), with the standard library only. A screenshot of the
index page at 1280 and 420 px is written to the test's temporary folder (paths printed; never
committed).
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest
from helpers_browser import Browser, find_chromium
from helpers_samples import write_sample_runs

from vqa_harness_leaderboard import build_leaderboard

pytestmark = pytest.mark.browser

#: A table and numeric column whose rows are not yet in ascending order (JS; null if none).
PICK_COLUMN = """
(() => {
  for (const t of document.querySelectorAll('table.sortable[id]')) {
    const n = t.tHead.rows[0].cells.length;
    for (let c = 1; c < n; c++) {
      const keys = Array.from(t.tBodies[0].rows).map(r => r.cells[c] && r.cells[c].getAttribute('data-sort'));
      if (keys.length < 3 || keys.some(k => k === null || k === '')) continue;
      const v = keys.map(Number);
      if (v.some((x, i) => i > 0 && v[i - 1] > x)) return [t.id, c];
    }
  }
  return null;
})()
"""

ROW_ORDER = "Array.from(document.getElementById(%r).tBodies[0].rows).map(r => r.textContent)"
COLUMN = "Array.from(document.getElementById(%r).tBodies[0].rows).map(r => Number(r.cells[%d].getAttribute('data-sort')))"

RENDERED = """
(() => ({
  tables: Array.from(document.querySelectorAll('table.lb[id^="suite-"]')).map(t => ({
      id: t.id, rows: t.tBodies[0].rows.length, height: t.getBoundingClientRect().height})),
  charts: Array.from(document.querySelectorAll('figure.chart img')).map(i => ({
      src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0, width: i.getBoundingClientRect().width})),
  ready: document.body.getAttribute('data-ready'),
}))()
"""


#: Tables wider than the viewport that do not sit in a scroll container of their own (one whose
#: right edge is inside the viewport), and whether the page itself scrolls sideways.
OVERFLOW = """
(() => {
  const vw = document.documentElement.clientWidth;
  const bad = [];
  for (const t of document.querySelectorAll('table')) {
    const r = t.getBoundingClientRect();
    if (r.width === 0 || r.right <= vw + 1) continue;
    let p = t.parentElement, boxed = false;
    while (p && p !== document.body) {
      const s = getComputedStyle(p);
      if ((s.overflowX === 'auto' || s.overflowX === 'scroll') && p.getBoundingClientRect().right <= vw + 1) {
        boxed = true; break;
      }
      p = p.parentElement;
    }
    if (!boxed) bad.push(t.id || t.getAttribute('aria-label') || t.className);
  }
  return {bad: bad, pageScrolls: document.documentElement.scrollWidth > vw + 1, vw: vw};
})()
"""

#: Tables without a non-empty one-line explanation in their block.
UNEXPLAINED = """
Array.from(document.querySelectorAll('table.lb')).filter(t => {
  const block = t.closest('.table-block');
  const line = block && block.querySelector('p.explain');
  return !(line && line.textContent.trim().length > 20);
}).map(t => t.id || t.getAttribute('aria-label') || '?')
"""

#: Each chart image's rendered width over its natural width (1: not shrunk).
CHART_SCALE = ("Array.from(document.querySelectorAll('figure.chart img'))"
               ".map(i => [i.getAttribute('src'), i.getBoundingClientRect().width / i.naturalWidth])")

CHART_SERIES = ("Array.from(document.querySelectorAll('figure.chart')).map(f => [Array.from(f.querySelectorAll('img'))"
                ".map(i => i.getAttribute('src')), Number(f.dataset.panels), Number(f.dataset.maxSeries)])")

#: The reliance table: its rows, where it ends, its marks (visible text), legend lines, the
#: smallest type of its values, and its right edge.
RELIANCE = """
(() => {
  const t = document.getElementById('reliance-table');
  const r = t.getBoundingClientRect();
  const sigs = Array.from(t.querySelectorAll('.sig')).map(s => s.textContent.trim());
  const vals = Array.from(t.querySelectorAll('.val, td.verdict, tbody th'));
  return {rows: t.tBodies[0].rows.length, bottom: r.bottom, right: r.right, marks: sigs.length,
          glyphs: Array.from(new Set(sigs.map(s => s[0]))),
          legend: t.closest('.table-block').querySelectorAll('ul.legend li').length,
          minFont: Math.min(...vals.map(v => parseFloat(getComputedStyle(v).fontSize)))};
})()
"""

#: Example thumbnails on a page: loaded images, gray stand-ins and files said to be missing.
THUMBS = """
(() => ({
  loaded: Array.from(document.querySelectorAll('figure.thumb img')).filter(i => i.complete && i.naturalWidth > 0).length,
  broken: Array.from(document.querySelectorAll('figure.thumb img')).filter(i => !(i.complete && i.naturalWidth > 0)).length,
  gray: document.querySelectorAll('figure.thumb .gray').length,
  missing: document.querySelectorAll('figure.thumb .missing').length,
}))()
"""


def _svg_series(svg: Path) -> list[int]:
    """Series per panel, as the SVG's description metadata states them."""
    import re

    text = svg.read_text(encoding="utf-8")
    return [int(n) for n in re.findall(r"panel \d+: (\d+) series", text)]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    write_sample_runs(root / "runs")
    build_leaderboard([root / "runs"], root / "site")
    return root / "site"


@pytest.fixture(scope="module")
def browser():
    if find_chromium() is None:
        pytest.skip("chromium is not installed (bash scripts/install.sh --test installs it)")
    with Browser.launch() as b:
        yield b


def _check_rendered(b: Browser, site: Path) -> None:
    state = b.evaluate(RENDERED)
    assert state["ready"] == "1"
    expected_tables = (site / "index.html").read_text(encoding="utf-8").count('<table class="lb sortable" id="suite-')
    assert len(state["tables"]) == expected_tables >= 8
    for t in state["tables"]:
        assert t["rows"] > 0 and t["height"] > 0, t
    charts = sorted(p.name for p in (site / "charts").glob("*.svg"))  # one SVG per panel
    assert sorted(Path(c["src"]).name for c in state["charts"]) == charts and len(charts) >= 10
    assert len({Path(c["src"]).name.rsplit("-", 1)[0] for c in state["charts"]}) == 5  # five charts
    for c in state["charts"]:
        assert c["ok"] and c["width"] > 100, c


def test_site_in_headless_chromium(browser: Browser, site: Path, tmp_path: Path) -> None:
    b = browser
    b.open((site / "index.html").resolve().as_uri())
    _check_rendered(b, site)

    # Sorting: click a header, the rows reorder by that column (ascending, then descending).
    picked = b.evaluate(PICK_COLUMN)
    assert picked is not None
    table, col = picked
    before = b.evaluate(ROW_ORDER % table)
    b.evaluate(f"document.getElementById({table!r}).tHead.rows[0].cells[{col}].click()")
    after = b.evaluate(ROW_ORDER % table)
    assert after != before and sorted(after) == sorted(before)
    values = b.evaluate(COLUMN % (table, col))
    assert values == sorted(values)
    b.evaluate(f"document.getElementById({table!r}).tHead.rows[0].cells[{col}].click()")
    assert b.evaluate(COLUMN % (table, col)) == sorted(values, reverse=True)

    # Filter by model: only that model's rows stay visible in tagged rows.
    shown = b.evaluate("""(() => { const s = document.getElementById('filter-model'); s.value = 'mlp-a';
        s.dispatchEvent(new Event('change'));
        return Array.from(document.querySelectorAll('tr[data-model]'))
          .filter(r => !r.classList.contains('hidden-by-filter')).map(r => r.getAttribute('data-model')); })()""")
    assert shown and set(shown) == {"mlp-a"}
    b.evaluate("""(() => { const s = document.getElementById('filter-model'); s.value = '';
        s.dispatchEvent(new Event('change')); })()""")

    # Filter by dataset: the e-SNLI-VE rows stay, the VQA-X rows go.
    hidden = b.evaluate("""(() => { const s = document.getElementById('filter-dataset'); s.value = 'e-snli-ve';
        s.dispatchEvent(new Event('change'));
        return Array.from(document.querySelectorAll('tr[data-dataset]'))
          .filter(r => r.classList.contains('hidden-by-filter')).map(r => r.getAttribute('data-dataset')); })()""")
    assert hidden and "e-snli-ve" not in hidden
    # Paper tables name their data once (title, spec), not in a row: the whole table goes.
    blocks = b.evaluate("""Array.from(document.querySelectorAll('.table-block[data-dataset]')).map(
        t => [t.getAttribute('data-dataset'), t.classList.contains('hidden-by-filter')])""")
    assert any(hide for _, hide in blocks) and any(not hide for _, hide in blocks)
    assert all(hide == ("e-snli-ve" not in tags.split("|")) for tags, hide in blocks), blocks
    b.evaluate("""(() => { const s = document.getElementById('filter-dataset'); s.value = '';
        s.dispatchEvent(new Event('change')); })()""")

    # Readable at 1280 px: no table wider than the viewport outside its own scroll box, the page
    # never scrolls sideways; every table says what it measures; at most about 8 series per
    # chart panel (the figure and its SVG agree).
    state = b.evaluate(OVERFLOW)
    assert state["vw"] == 1280 and state["bad"] == [] and not state["pageScrolls"], state
    assert b.evaluate(UNEXPLAINED) == []
    # The checks see a wide, unexplained table outside a scroll box (added, checked, removed).
    b.evaluate("""(() => { const t = document.createElement('table'); t.className = 'lb'; t.id = 'probe-wide';
        t.innerHTML = '<tr><td style="min-width:3000px">x</td></tr>'; document.querySelector('main').appendChild(t); })()""")
    assert "probe-wide" in b.evaluate(OVERFLOW)["bad"] and "probe-wide" in b.evaluate(UNEXPLAINED)
    b.evaluate("document.getElementById('probe-wide').remove()")
    charts = b.evaluate(CHART_SERIES)
    assert len(charts) == 5
    for srcs, panels, series in charts:
        per_panel = [n for src in srcs for n in _svg_series(site / src)]
        assert len(per_panel) == panels == len(srcs) and max(per_panel) == series <= 8, (srcs, per_panel)
    # Chart text as drawn (>= 12.7 px): no panel is shrunk at 1280 px.
    for src, scale in b.evaluate(CHART_SCALE):
        assert scale >= 0.99, (src, scale)
    # Cards: one per model, each with its evidence table (folded under the reliance table).
    assert b.evaluate("document.querySelectorAll('#reliance article.card').length") == \
        b.evaluate("document.querySelectorAll('#filter-model option').length") - 1
    # The answer at a glance: the reliance table, marks as text, entirely above the fold at 1280 x 900.
    fold = b.evaluate(RELIANCE)
    assert fold["rows"] >= 4 and fold["bottom"] <= 900 and fold["marks"] >= 4, fold
    assert {"▲", "≈", "▼"} <= set(fold["glyphs"]) and fold["legend"] >= 3, fold

    shot = b.screenshot(tmp_path / "index-1280.png", full_page=False)
    print(f"screenshot: {shot}")
    assert shot.stat().st_size > 10_000
    assert b.console_errors == []

    # A phone-sized screen: still no sideways page scroll.
    b.send("Emulation.setDeviceMetricsOverride", {"width": 420, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    b.open((site / "index.html").resolve().as_uri())
    state = b.evaluate(OVERFLOW)
    assert state["vw"] == 420 and state["bad"] == [] and not state["pageScrolls"], state
    # Chart panels reflow one under the other at their natural size (their text as drawn).
    for src, scale in b.evaluate(CHART_SCALE):
        assert scale >= 0.99, (src, scale)
    # The reliance table becomes a block per model, inside the screen, its values in >= 12 px type.
    fold = b.evaluate(RELIANCE)
    assert fold["right"] <= 420 and fold["minFont"] >= 12, fold
    print(f"screenshot: {b.screenshot(tmp_path / 'index-420.png', full_page=False)}")
    b.send("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    assert b.console_errors == []

    # The error collection works (a console error in the page is seen).
    b.evaluate("console.error('deliberate test error')")
    b.evaluate("1")  # the console event arrives before this reply
    assert any("deliberate test error" in e for e in b.console_errors)
    b.console_errors.clear()

    # A run report page opens from its link, with no errors either.
    b.open((site / "index.html").resolve().as_uri())
    href = b.evaluate("document.querySelector('#runs a').getAttribute('href')")
    b.open((site / href).resolve().as_uri())
    assert b.evaluate("document.querySelector('h1').textContent").startswith("Run ")
    assert b.console_errors == []
    # The reader's checks on a run page (its 40-character hash, long command line, headline,
    # detail and example tables) and on a model page, at 1280 and at 420 px.
    _readable(b, site / href, tmp_path / "run")

    # A model page: its card, its examples with the images it saw, and its tables, each explained and boxed.
    b.open((site / "models" / "cnn-lstm.html").resolve().as_uri())
    assert b.evaluate("document.querySelectorAll('article.card').length") == 1
    thumbs = b.evaluate(THUMBS)  # real and swapped image loaded from the data's files, gray drawn, one missing
    assert thumbs["loaded"] >= 2 and thumbs["broken"] == 0 and thumbs["gray"] >= 1 and thumbs["missing"] >= 1, thumbs
    assert not any((site / "models").glob("*.png"))  # nothing copied into the site
    _readable(b, site / "models" / "cnn-lstm.html", tmp_path / "model")
    assert b.console_errors == []


def _readable(b: Browser, page: Path, shots: Path) -> None:
    """No table wider than the viewport outside its own scroll box, no sideways page scroll,
    every table explained, at 1280 and 420 px (screenshots into `shots`-*.png)."""
    for width in (1280, 420):
        b.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": 900, "deviceScaleFactor": 1,
                                                      "mobile": False})
        b.open(page.resolve().as_uri())
        state = b.evaluate(OVERFLOW)
        assert state["vw"] == width and state["bad"] == [] and not state["pageScrolls"], (page.name, state)
        assert b.evaluate(UNEXPLAINED) == [], page.name
        assert b.evaluate("document.querySelectorAll('table.lb').length") > 0
        print(f"screenshot: {b.screenshot(Path(f'{shots}-{width}.png'))}")
    b.send("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})


def test_site_from_a_loopback_server(browser: Browser, site: Path) -> None:
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        browser.open(f"http://127.0.0.1:{server.server_address[1]}/index.html")
        _check_rendered(browser, site)
        assert browser.console_errors == []
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # keep test output clean
        pass
