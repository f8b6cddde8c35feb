"""Paths whose existence cannot even be asked about: a folder on the way this user may not
search (another user's home, mode 700: EACCES) or a name longer than the file system takes
(ENAMETOOLONG). Path.exists()/is_file() raise OSError for both, where they answer False for
"not there"; each command says so in one line (or lists the file as unreadable), never a
traceback. The tests use the long name: it fails alike for root and for any other user."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_malformed import expect_one_line, run_cli


@pytest.fixture
def too_long(tmp_path: Path) -> Path:
    return tmp_path / ("x" * 300)


def test_a_data_dir_that_cannot_be_searched_is_one_line_for_a_run(capsys, tmp_path, too_long):
    result = run_cli(capsys, ["run", "--model", "prior", "--suite", "goyal", "--data-dir", str(too_long),
                              "--out", str(tmp_path / "runs"), "--no-leaderboard", "--cache", str(tmp_path / "c.sqlite")])
    expect_one_line(result, str(too_long), "cannot read (File name too long)", code=3)


def test_data_status_lists_files_it_cannot_look_at_as_unreadable(capsys, too_long):
    code, out, err = run_cli(capsys, ["data", "status", "--data-dir", str(too_long)])
    assert (code, err) == (0, "")
    assert f"unreadable  {too_long}/vqa1/" in out


@pytest.mark.parametrize("suite", ["x" * 300, "{long}.yaml"])
def test_a_suite_name_or_file_that_cannot_be_looked_at_is_one_line(capsys, tmp_path, too_long, suite):
    suite = suite.format(long=too_long)
    result = run_cli(capsys, ["run", "--model", "prior", "--suite", suite, "--out", str(tmp_path / "runs"),
                              "--no-leaderboard"])
    line = expect_one_line(result, code=2)
    assert ("suite file" in line and "File name too long" in line) if suite.endswith(".yaml") else "x" * 300 in line


def test_an_output_folder_that_cannot_be_looked_at_is_one_line(capsys, tmp_path, too_long):
    for argv in (["run", "--model", "prior", "--suite", "toy", "--out", str(too_long), "--no-leaderboard"],
                 ["leaderboard", "build", str(tmp_path), "--out", str(too_long)]):
        expect_one_line(run_cli(capsys, argv), f"output folder {too_long} cannot be created or written "
                                               "(File name too long)", code=2)


@pytest.mark.parametrize("argv", [["perturb", "--dataset", "toyvqa", "--kind", "deletion_noun", "--out"],
                                  ["decoys", "generate", "--dataset", "toyvqa-mc", "--split", "val", "--out"]])
def test_an_output_file_name_too_long_is_one_line_before_the_work(capsys, tmp_path, argv):
    """Before, the name was refused only when the finished output was put in place: a
    traceback after the work."""
    out = tmp_path / ("x" * 300 + ".json")
    expect_one_line(run_cli(capsys, [*argv, str(out)]), f"--out {out}: the file name is longer", code=2)
