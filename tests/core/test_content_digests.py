"""`file_content` remembers each file's digest in the harness cache, by absolute path, size,
modification and change times, inode and device: a new process stats a file it has digested
before instead of reading it (a cached re-run of an image model read every image first), a
file rewritten is read again even with its size and modification time put back (`touch -r`,
`cp -p`: the change time moves), and a damaged store is ignored and written anew."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from harness.cache import contents as digests
from harness.cache.artifacts import cache_status, clear_cache
from harness.cache.contents import file_content, forget_contents, save_contents
from harness.digest import DIGEST_LENGTH, digest_bytes
from vqa_harness_cli import main


@pytest.fixture
def settled(fresh_cache, monkeypatch):
    """A fresh cache, and files counted as settled however recently written (no sleeping)."""
    monkeypatch.setattr(digests, "_SETTLED_NS", -10**18)
    _new_process()
    yield fresh_cache
    _new_process()


def _new_process() -> None:
    """What a new process knows: nothing in memory."""
    forget_contents()


def _no_reads(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("a file was read")
    monkeypatch.setattr(digests, "digest_bytes", refuse)


def _store_path(cache):
    return cache / "digests" / "files.jsonl"


def _store(cache) -> dict:
    """The stored entries, the last line for a path winning."""
    lines = _store_path(cache).read_text(encoding="utf-8").splitlines()
    return {entry[0]: entry[1:] for entry in map(json.loads, filter(None, lines))}


def _put_back(path, data: bytes) -> None:
    """New bytes at the same path and inode, with the old size and times (`cp -p`, `touch -r`);
    only the change time differs (waited for: a coarse clock can give the same one)."""
    before = os.stat(path)
    while True:
        with open(path, "r+b") as fh:
            fh.write(data)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        if os.stat(path).st_ctime_ns != before.st_ctime_ns:
            return


def test_a_new_process_stats_instead_of_reading(settled, tmp_path, monkeypatch):
    images = [tmp_path / f"{i}.jpg" for i in range(3)]
    for i, path in enumerate(images):
        path.write_bytes(b"image %d" % i)
    first = [file_content(p) for p in images]
    save_contents()
    assert sorted(_store(settled)) == sorted(str(p) for p in images)
    _new_process()
    _no_reads(monkeypatch)
    assert [file_content(p) for p in images] == first


def test_a_file_put_back_with_its_size_and_times_is_read_again(settled, tmp_path):
    image = tmp_path / "a.jpg"
    image.write_bytes(b"old image")
    old = file_content(image)
    _put_back(image, b"new image")
    assert file_content(image) != old  # in this process (before: its memo ignored the change time)
    save_contents()
    _new_process()
    assert file_content(image) == digest_bytes(b"new image", DIGEST_LENGTH)


def test_a_copied_folder_is_read_once_with_the_same_digests(settled, tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.jpg").write_bytes(b"picture")
    before = file_content(tmp_path / "a" / "x.jpg")
    shutil.copytree(tmp_path / "a", tmp_path / "b", copy_function=shutil.copy2)
    assert file_content(tmp_path / "b" / "x.jpg") == before
    save_contents()
    _new_process()
    _no_reads(monkeypatch)
    assert file_content(tmp_path / "b" / "x.jpg") == before


def test_a_file_just_written_is_not_remembered(fresh_cache, tmp_path):
    _new_process()
    image = tmp_path / "a.jpg"
    image.write_bytes(b"fresh")
    assert file_content(image)
    save_contents()
    assert not _store_path(fresh_cache).exists()  # its times may not move yet on a rewrite
    _new_process()


@pytest.mark.parametrize("damage", [b"\x00garbage{", b'{"version": 1, "files": [1]}',
                                    b'{"version": 1, "files": {"/x": 3}}', b"[" * 100_000, "folder"])
def test_a_damaged_store_is_ignored_and_written_anew(settled, tmp_path, damage):
    image = tmp_path / "a.jpg"
    image.write_bytes(b"bytes")
    store = _store_path(settled)
    store.parent.mkdir(parents=True)
    if damage == "folder":
        store.mkdir()
    else:
        store.write_bytes(damage)
        forget_contents()
    assert file_content(image) == digest_bytes(b"bytes", DIGEST_LENGTH)
    save_contents()  # no error
    if damage != "folder":
        assert str(image) in _store(settled)


def test_the_store_is_cut_to_files_that_still_stat_the_same(settled, tmp_path, monkeypatch):
    monkeypatch.setattr(digests, "CONTENTS_LIMIT", 2)
    files = [tmp_path / f"{i}.jpg" for i in range(4)]
    for i, path in enumerate(files[:3]):
        path.write_bytes(b"%d" % i)
        file_content(path)
    save_contents()
    files[0].unlink()
    _put_back(files[1], b"9")
    files[3].write_bytes(b"3")
    file_content(files[3])
    save_contents()
    assert sorted(_store(settled)) == sorted(str(p) for p in files[2:])


def test_cache_status_and_clear_know_the_digests(settled, tmp_path, capsys):
    (tmp_path / "a.jpg").write_bytes(b"bytes")
    file_content(tmp_path / "a.jpg")
    save_contents()
    assert [(s.kind, s.entries) for s in cache_status() if s.kind == "digests"] == [("digests", 1)]
    assert main(["cache", "status"]) == 0 and "digests" in capsys.readouterr().out
    assert [s.kind for s in clear_cache(["digests"])] == ["digests"]
    assert not (settled / "digests").exists()
    (tmp_path / "b.jpg").write_bytes(b"more")
    file_content(tmp_path / "b.jpg")
    save_contents()  # after a clear during a run: the kind again, not a foreign folder
    assert (settled / "digests" / "CACHEDIR.TAG").is_file() and list(_store(settled)) == [str(tmp_path / "b.jpg")]


def test_a_save_appends_the_new_digests_without_rewriting_the_store(settled, tmp_path):
    """Before: each save (after every task, every `images_key`) read, merged and rewrote the
    whole store: 2.7 s for a full one of 400,000 entries (62 MB), per task of a suite."""
    first, second = tmp_path / "a.jpg", tmp_path / "b.jpg"
    first.write_bytes(b"one")
    second.write_bytes(b"two")
    file_content(first)
    save_contents()
    store = _store_path(settled)
    before, blob = os.stat(store), store.read_bytes()
    _new_process()
    file_content(second)
    save_contents()
    assert os.stat(store).st_ino == before.st_ino and store.read_bytes().startswith(blob)
    assert sorted(_store(settled)) == sorted([str(first), str(second)])


def test_a_file_changed_within_the_settling_time_is_not_memoized(fresh_cache, tmp_path, monkeypatch):
    """A file system whose timestamps are coarse (ext3, HFS+, FAT, NFS exports of them; older
    kernels' jiffy clock) keeps every stamp of a file rewritten in place within one tick, the
    same size: the process's memo then served the old bytes' digest (a cached answer for
    another image). Simulated: the rewrite keeps the stat the file had."""
    _new_process()
    image = tmp_path / "a.jpg"
    image.write_bytes(b"old image")
    frozen, real_stat = os.stat(image), os.stat
    monkeypatch.setattr(os, "stat", lambda path, **kw: frozen if str(path) == str(image) else real_stat(path, **kw))
    assert file_content(image) == digest_bytes(b"old image", DIGEST_LENGTH)
    image.write_bytes(b"new image")
    assert file_content(image) == digest_bytes(b"new image", DIGEST_LENGTH)
    _new_process()
