"""Generated output never lands in a source package, and the wheel ships only code.

The scenario of the bug this guards against: a user runs the main job from a clone, then
builds a wheel from it; the run folders and the leaderboard used to land in the
`leaderboard/` source package and ship in the wheel.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The only non-Python files the packages may carry (the site's stylesheet and script).
PACKAGE_DATA = {"vqa_harness_leaderboard/site.css", "vqa_harness_leaderboard/site.js"}


def _clone(dest: Path) -> Path:
    """A copy of the tracked source tree (what a clone holds), without build leftovers."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    names = [n for n in listed.stdout.decode().split("\0") if n] if listed.returncode == 0 else []
    if not names:
        pytest.skip("not a git checkout")
    for name in names:
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def test_wheel_built_after_a_run_holds_no_generated_file(tmp_path, monkeypatch):
    from vqa_harness_cli import main

    clone = _clone(tmp_path / "clone")
    monkeypatch.chdir(clone)  # the run writes where a user in the clone would: ./results/
    assert main(["run", "--model", "prior", "--suite", "vqa-accuracy", "--limit", "20", "--device", "cpu",
                 "--cache", str(tmp_path / "c.sqlite")]) == 0
    assert (clone / "results" / "leaderboard" / "index.html").is_file()
    assert list((clone / "results" / "runs").iterdir())
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(tmp_path / "dist"), str(clone)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    data = {n for n in names if not n.endswith(".py") and ".dist-info/" not in n}
    assert data == PACKAGE_DATA
    assert not any(n.startswith("results/") or "/runs/" in n for n in names)
    assert "vqa_harness_leaderboard/publisher.py" in names and "harness/run/execute.py" in names


def test_output_inside_a_package_is_refused(tmp_path, monkeypatch, capsys):
    from vqa_harness_cli import main

    clone = _clone(tmp_path / "clone")
    monkeypatch.chdir(clone)
    code = main(["run", "--model", "prior", "--suite", "vqa-accuracy", "--limit", "5", "--leaderboard", "leaderboard",
                 "--cache", str(tmp_path / "c.sqlite")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "inside the Python package" in err[0]
    assert err[0].endswith("choose a folder outside any package (default: results/)"), err  # the default named
    assert not (clone / "results").exists() and not (clone / "leaderboard" / "index.html").exists()
