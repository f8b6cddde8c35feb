"""`wordnet_identity` / `tagger_identity`: the copy read now, by the bytes of its files (for
cache keys and the manifest), not by its path; cached by the files' stamps."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

import pytest
from helpers_resources import isolated, tiny_tagger, tiny_wordnet  # noqa: F401  (autouse fixture)

from vqa_harness_plugins.nlp import identity, tagger_identity, wordnet_identity


def test_copies_with_the_same_bytes_are_one_identity_and_an_edit_another(tmp_path: Path, monkeypatch) -> None:
    tiny_wordnet(tmp_path / "a")
    tiny_tagger(tmp_path / "a")
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "a"))
    wn, tagger = wordnet_identity(), tagger_identity()
    assert wn["version"] == "?" and len(wn["sha256"]) == 64 and len(tagger["sha256"]) == 64
    shutil.copytree(tmp_path / "a", tmp_path / "b")  # new modification times, same bytes
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "b"))
    assert wordnet_identity() == wn and tagger_identity() == tagger
    data = tmp_path / "b" / "corpora" / "wordnet" / "data.noun"
    data.write_text(data.read_text().replace("genus Canis", "genus Felis"))
    assert wordnet_identity()["sha256"] != wn["sha256"]


def test_the_digest_is_read_once_per_copy_then_from_the_cache(tmp_path: Path, monkeypatch) -> None:
    folder = tiny_wordnet(tmp_path / "a")
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "a"))
    first = wordnet_identity()
    reads = []
    monkeypatch.setattr(identity, "_content", lambda *a: reads.append(a) or "x")
    identity._MEMO.clear()
    assert wordnet_identity() == first and reads == []  # the cache file, by the files' stamps
    st = (folder / "index.noun").stat()
    os.utime(folder / "index.noun", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert wordnet_identity()["sha256"] == "x" and len(reads) == 1  # a touched file is read again


def test_only_nltks_zip_and_nothing_at_all(tmp_path: Path, monkeypatch) -> None:
    assert "not installed" in wordnet_identity()["missing"].lower()
    assert "missing" in tagger_identity()
    (tmp_path / "z" / "corpora").mkdir(parents=True)
    with zipfile.ZipFile(tmp_path / "z" / "corpora" / "wordnet.zip", "w") as zf:
        zf.writestr("wordnet/data.noun", "x")
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "z"))
    found = wordnet_identity()
    assert found["zip"] is True and len(found["sha256"]) == 64


@pytest.fixture(autouse=True)
def _fresh_memo():
    identity._MEMO.clear()
    yield
    identity._MEMO.clear()
