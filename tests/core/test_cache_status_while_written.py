"""`harness cache status` (and `clear`, which sizes what it removes) while another process
writes or clears the cache: a run renames its temporary files and folders into place, so a
file listed a moment ago can be gone when it is sized, and a concurrent `cache clear` removes
whole kinds. Both were a FileNotFoundError traceback."""

from __future__ import annotations

import pathlib

from harness.cache import artifacts
from harness.cache.artifacts import cache_status
from harness.paths import tag_cache_folder
from vqa_harness_cli import main


def _cache(root: pathlib.Path) -> pathlib.Path:
    entry = root / "artifacts" / "demo" / "0123"
    entry.mkdir(parents=True)
    (entry / "value.json").write_text("1", encoding="utf-8")
    (entry / ".complete").write_text("", encoding="utf-8")
    (entry.parent / ".tmp-abc").mkdir()
    (entry.parent / ".tmp-abc" / "part").write_text("12345", encoding="utf-8")
    tag_cache_folder(root / "artifacts")
    return entry


def test_a_file_renamed_away_while_it_is_sized_is_not_counted(tmp_path, monkeypatch):
    _cache(tmp_path)
    real_lstat = pathlib.Path.lstat

    def lstat(self):  # the writer renames its temporary folder between the listing and the stat
        if ".tmp-abc" in self.parts:
            raise FileNotFoundError(2, "No such file or directory", str(self))
        return real_lstat(self)

    monkeypatch.setattr(pathlib.Path, "lstat", lstat)
    (status,) = cache_status(tmp_path)
    assert (status.kind, status.entries, status.bytes) == ("demo", 1, 1)


def test_a_kind_cleared_by_another_process_meanwhile_is_left_out(tmp_path, monkeypatch):
    _cache(tmp_path)
    listed = artifacts.cache_kinds

    def kinds(root=None):  # another `harness cache clear` removes a kind after it was listed
        return listed(root) + [tmp_path / "artifacts" / "gone"]

    monkeypatch.setattr(artifacts, "cache_kinds", kinds)
    assert [s.kind for s in cache_status(tmp_path)] == ["demo"]
    assert [s.kind for s in artifacts.clear_cache(None, tmp_path)] == ["demo"]


def test_the_command_says_the_sizes_of_a_cache_being_written(tmp_path, monkeypatch, capsys):
    _cache(tmp_path)
    monkeypatch.setenv("VQA_HARNESS_CACHE", str(tmp_path))
    real_lstat = pathlib.Path.lstat

    def lstat(self):
        if self.name == "part":
            raise FileNotFoundError(2, "No such file or directory", str(self))
        return real_lstat(self)

    monkeypatch.setattr(pathlib.Path, "lstat", lstat)
    assert main(["cache", "status"]) == 0
    assert "demo" in capsys.readouterr().out
