"""A leaderboard build changes the published files all at once: a build that fails part-way
(a full disk after some pages, say) leaves every file of the site as it was, with no
temporary file beside them, and says so in one line; a build that succeeds replaces them."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

import pytest
from helpers_samples import write_sample_runs

from harness import fileio
from vqa_harness_cli import main


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("after", [1, 12, None])  # None: at index.html, the last of about 34 writes
def test_a_build_that_fails_part_way_leaves_the_old_site(tmp_path: Path, capsys, monkeypatch,
                                                         after: int | None) -> None:
    runs, out = tmp_path / "runs", tmp_path / "lb"
    write_sample_runs(runs, suites=("image-ablation",))
    assert main(["leaderboard", "build", str(runs), "--out", str(out)]) == 0
    before = _files(out)
    write_sample_runs(runs, seed=1, suites=("image-ablation", "decoys"))  # new numbers, a new suite
    real, calls = fileio.atomic_path, []

    def full_disk(path):
        calls.append(path)
        if len(calls) > after if after is not None else Path(path).name == "index.html":
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path)

    monkeypatch.setattr(fileio, "atomic_path", full_disk)
    capsys.readouterr()
    assert main(["leaderboard", "build", str(runs), "--out", str(out)]) != 0
    assert len(calls) > (after or 20)  # the failure came after some pages were written
    err = capsys.readouterr().err
    assert "Traceback" not in err and "No space left on device" in err and str(out) in err, err
    assert _files(out) == before  # not a page of the new build, nothing removed, no temporary file
    monkeypatch.undo()
    assert main(["leaderboard", "build", str(runs), "--out", str(out)]) == 0
    assert (out / "decoys.md").is_file() and _files(out) != before


def test_a_successful_build_prunes_what_it_no_longer_shows(tmp_path: Path) -> None:
    runs, out = tmp_path / "runs", tmp_path / "lb"
    write_sample_runs(runs, suites=("image-ablation", "decoys"))
    assert main(["leaderboard", "build", str(runs), "--out", str(out)]) == 0
    assert (out / "decoys.md").is_file()
    for run in runs.iterdir():
        if "decoys" in run.name:
            shutil.rmtree(run)
    assert main(["leaderboard", "build", str(runs), "--out", str(out)]) == 0
    assert not (out / "decoys.md").exists() and not any(p.name.endswith(".tmp") for p in out.rglob("*"))
