"""NLTK data found elsewhere ($NLTK_DATA) while the harness's data home cannot be created (a
read-only home, here one under a file): a look-up creates no folder, only an install does."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_resources import isolated, tiny_tagger, tiny_wordnet  # noqa: F401

from harness.errors import UsageError
from vqa_harness_plugins.nlp import install, pos_tag, status, wordnet


def test_resources_in_nltk_data_are_used_when_the_data_home_cannot_be_created(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: every look-up made `~/.local/share/vqa-harness/nltk_data` first, so `status`, a
    decoy or counterfactual run all ended "... cannot be used as a folder; set VQA_HARNESS_HOME"."""
    (tmp_path / "file").write_text("", encoding="utf-8")
    monkeypatch.setenv("HOME", str(tmp_path / "file" / "home"))
    monkeypatch.delenv("VQA_HARNESS_HOME")
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    shared = tmp_path / "shared-nltk"
    tiny_wordnet(shared)
    tiny_tagger(shared)
    monkeypatch.setenv("NLTK_DATA", str(shared))
    found = {s.name: s for s in status()}
    assert found["wordnet"].present and found["pos-tagger"].present, found
    assert type(wordnet()).__name__ == "WordNetCorpusReader"
    assert pos_tag(["the"]) == [("the", "DT")]
    assert not (tmp_path / "file" / "home").exists()
    with pytest.raises(UsageError, match="cannot be used as a folder"):
        install()  # an install into that home is still one line naming the folder


def test_an_existing_default_target_that_is_not_writable_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     capsys) -> None:
    """The data home's nltk_data exists but is read-only (another account's, mode 555): the
    default target skipped the write check, and install ended in a raw PermissionError on its
    lock file. (Root writes anywhere, so the check's answer is what the test takes away.)"""
    import os

    from vqa_harness_cli import main

    home = tmp_path / "home"
    (home / "nltk_data").mkdir(parents=True)
    monkeypatch.setenv("VQA_HARNESS_HOME", str(home))
    real = os.access
    def access(path, mode, **kw):
        return False if Path(path) == home / "nltk_data" else real(path, mode, **kw)

    monkeypatch.setattr(os, "access", access)
    assert main(["resources", "install"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"error: {home / 'nltk_data'} cannot be used as a folder (Permission denied); set VQA_HARNESS_HOME "
                   f"to a writable folder (now {home})"), err
