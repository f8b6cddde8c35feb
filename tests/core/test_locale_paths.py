"""Paths that are not ASCII under a locale whose file names Python decodes as ASCII
(LC_ALL=C with PYTHONUTF8=0 and PYTHONCOERCECLOCALE=0):
Python keeps each undecodable byte as a lone surrogate (\\udcc3 for 0xc3), which a UTF-8
file cannot hold as such."""

from __future__ import annotations

import json
import os
from pathlib import Path

from helpers_core import core_plugins

from harness import fileio
from harness.testing import make_host, run_in_process

#: "résultats" as Python names the folder `résultats` when it decodes file names as ASCII:
#: the two UTF-8 bytes of "é" kept as two surrogates (os.fsdecode's surrogateescape).
UNDECODED = "r\udcc3\udca9sultats"


def test_a_file_naming_an_undecoded_path_is_written_with_the_bytes_of_the_name(tmp_path: Path) -> None:
    fileio.atomic_write_json(tmp_path / "m.json", {"out": UNDECODED})
    assert json.loads((tmp_path / "m.json").read_text(encoding="utf-8")) == {"out": "résultats"}


def test_a_run_under_a_folder_whose_name_python_could_not_decode_completes(tmp_path: Path) -> None:
    """Before, writing the manifest (whose argv names the output folder) raised
    UnicodeEncodeError: a traceback, and no run folder."""
    plugins, names = core_plugins()
    out = tmp_path / UNDECODED
    outcome = run_in_process(make_host(*plugins, names=names), model="echo", suite="tiny-suite", tmp_path=out,
                             argv=("run", "--model", "echo", "--out", str(out / "runs")))
    manifest = json.loads((outcome.rundir.path / "manifest.json").read_bytes().decode("utf-8"))
    assert manifest["status"] == "complete"
    assert manifest["argv"][-1] == os.fsencode(out / "runs").decode("utf-8")  # ".../résultats/runs"


def test_a_path_whose_bytes_are_not_utf8_leaves_the_file_utf8(tmp_path: Path) -> None:
    """A folder name holding a Latin-1 byte (`o\\xe9`) is kept by Python as `o\\udce9` under any
    locale. Written back as its byte, manifest.json was not UTF-8: `leaderboard build` skipped
    the run and `--resume` could not find it. It is shown as U+FFFD instead; other lone
    surrogates too, and the UTF-8 bytes of an undecoded name are still written as they were."""
    fileio.atomic_write_json(tmp_path / "m.json", {"out": "o\udce9", "mixed": UNDECODED + "\udce9\ud800"})
    assert json.loads((tmp_path / "m.json").read_bytes().decode("utf-8")) == {
        "out": "o\ufffd", "mixed": "résultats\ufffd\ufffd"}


def test_a_relative_data_dir_in_a_folder_named_with_a_byte_that_is_not_utf8_runs(
        tmp_path: Path, monkeypatch) -> None:
    """The run identity holds the absolute --data-dir, so the working folder's name is part of
    it: in a folder named `o\\xe9` (kept as `o\\udce9`), `--data-dir data` ended in a
    UnicodeEncodeError traceback while the identity was hashed, before any run folder."""
    here = tmp_path / "o\udce9"
    (here / "data").mkdir(parents=True)
    monkeypatch.chdir(here)
    plugins, names = core_plugins()
    outcome = run_in_process(make_host(*plugins, names=names), model="echo", suite="tiny-suite", tmp_path=tmp_path,
                             data_dir=Path("data"))
    assert json.loads((outcome.rundir.path / "manifest.json").read_bytes().decode("utf-8"))["status"] == "complete"
