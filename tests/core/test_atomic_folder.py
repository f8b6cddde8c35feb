"""`harness.fileio.atomic_folder`: what it puts in place is readable by others (like a
folder made by mkdir under the umask) and on disk before it takes its name."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from harness import fileio


def test_atomic_folder_has_ordinary_permissions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fileio, "_UMASK", 0o022)  # read once at import: the process's umask may be 077
    with fileio.atomic_folder(tmp_path / "out") as partial:
        (partial / "a.txt").write_text("a")
        (partial / "sub").mkdir()
    mode = stat.S_IMODE((tmp_path / "out").stat().st_mode)
    assert mode == 0o755, oct(mode)  # not mkdtemp's 0700


def test_atomic_folder_syncs_every_file_and_folder_before_the_rename(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    def replace(src, dst) -> None:
        synced.append(f"replace {dst}")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    with fileio.atomic_folder(tmp_path / "out") as partial:
        (partial / "sub").mkdir()
        (partial / "a.txt").write_text("a")
        (partial / "sub" / "b.txt").write_text("b")
    rename = synced.index(f"replace {tmp_path / 'out'}")
    before = [Path(p).name for p in synced[:rename]]
    assert {"a.txt", "b.txt", "sub", partial.name} <= set(before), synced
    assert (tmp_path / "out" / "sub" / "b.txt").read_text() == "b"


def test_a_file_whose_name_is_near_the_limit_is_written_atomically(tmp_path: Path) -> None:
    """The temporary name beside it (".NAME.xxxxxxxx.tmp") was 14 bytes longer than the name:
    a legal 250-byte name failed with "File name too long" once the output was complete."""
    path = tmp_path / ("y" * 244 + ".jsonl")
    fileio.atomic_write_text(path, "{}\n")
    assert path.read_text() == "{}\n" and [p.name for p in tmp_path.iterdir()] == [path.name]


def test_a_non_ascii_name_near_the_limit_is_written_atomically(tmp_path: Path) -> None:
    """The cut is counted in bytes: 84 characters of three bytes (244 bytes with ".txt", a
    legal name) gave a temporary name of 258 bytes when 100 characters were kept."""
    path = tmp_path / ("日" * 80 + ".txt")
    fileio.atomic_write_text(path, "x\n")
    folder = tmp_path / ("é" * 125)
    with fileio.atomic_folder(folder) as tmp:
        (tmp / "a.txt").write_text("a")
    assert path.read_text() == "x\n" and (folder / "a.txt").read_text() == "a"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, folder.name])
