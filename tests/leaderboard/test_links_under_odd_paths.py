"""Links of the site and of `harness report` reach their files when the runs sit in a folder
whose name a URL reads otherwise: `runs #2` (a raw '#' starts a fragment), `50%41` (an
escape, read as 'A'), `a?b` (a query), a space, a non-ASCII letter."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import urljoin, urlsplit
from urllib.request import url2pathname

from helpers_samples import write_sample_runs

from vqa_harness_cli import main
from vqa_harness_leaderboard.html import file_url

ODD = "runs #2 50%41 a?b é"
_LINK = re.compile(r'\b(?:href|src)="([^"]*)"')


def _broken_links(page: Path) -> list[str]:
    """The page's links to local files that do not resolve, as a browser resolves them."""
    broken = []
    for raw in _LINK.findall(page.read_text(encoding="utf-8")):
        link = html.unescape(raw)
        if link.startswith(("#", "data:")) or "://" in link:
            continue
        target = urlsplit(urljoin(page.resolve().as_uri(), link))
        if not Path(url2pathname(target.path)).exists():
            broken.append(link)
    return broken


def test_site_links_reach_runs_under_a_folder_with_url_characters(tmp_path: Path, capsys) -> None:
    runs_dir = tmp_path / ODD
    write_sample_runs(runs_dir, suites=("counterfactual", "image-ablation"))
    out = tmp_path / "site"
    assert main(["leaderboard", "build", str(runs_dir), "--out", str(out)]) == 0
    pages = sorted(out.rglob("*.html"))
    text = "".join(p.read_text(encoding="utf-8") for p in pages)
    assert "/artifacts/" in text and "<img src=" in text  # the links this test is about exist
    assert {str(p.relative_to(out)): b for p in pages if (b := _broken_links(p))} == {}


def test_run_report_links_reach_the_run_under_a_folder_with_url_characters(tmp_path: Path, capsys) -> None:
    run = next(p for p in write_sample_runs(tmp_path / ODD, suites=("counterfactual",))
               if p.name.endswith("qonly-counterfactual"))
    out = tmp_path / "report"
    assert main(["report", str(run), "--out", str(out)]) == 0
    assert "/artifacts/" in (out / "report.html").read_text(encoding="utf-8")
    assert _broken_links(out / "report.html") == []


def test_a_name_python_could_not_decode_is_linked_by_its_bytes() -> None:
    """Under an ASCII locale (PYTHONUTF8=0 LC_ALL=C) `--out rüns` reaches the code as the
    surrogates of its UTF-8 bytes; the link holds those bytes, not a UnicodeEncodeError (which
    ended the run's leaderboard build in a traceback)."""
    assert file_url("../r\udcc3\udcbcns/a b#1") == "../r%C3%BCns/a%20b%231" == file_url("../rüns/a b#1")
