"""Tiny WordNet and tagger folders written into tmp_path, and the isolation the tests of
damaged or misplaced resources share."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqa_harness_plugins.nlp import wordnet_corpus as wordnet_mod
from vqa_harness_plugins.nlp.perceptron import TAGGER_DIR, TAGGER_FILES

nltk_data = pytest.importorskip("nltk.data")

#: A two-synset WordNet in the 3.0 file format: entity.n.01 and its hyponym dog.n.01.
DATA_NOUN = ("00000001 03 n 01 entity 0 001 ~ 00000060 n 0000 | that which is perceived\n"
             "00000060 05 n 01 dog 0 001 @ 00000001 n 0000 | a member of the genus Canis\n")
INDEX_NOUN = "dog n 1 1 @ 1 0 00000060\nentity n 1 1 ~ 1 0 00000001\n"


def tiny_wordnet(root: Path) -> Path:
    """`root/corpora/wordnet` with every file NLTK's reader and the index read."""
    folder = root / "corpora" / "wordnet"
    folder.mkdir(parents=True)
    for name in wordnet_mod.REQUIRED_FILES:
        (folder / name).write_text("", encoding="utf-8")
    (folder / "data.noun").write_text(DATA_NOUN, encoding="utf-8")
    (folder / "index.noun").write_text(INDEX_NOUN, encoding="utf-8")
    (folder / "index.sense").write_text("dog%1:05:00:: 00000060 1 3\n", encoding="utf-8")
    (folder / "lexnames").write_text(wordnet_mod.lexnames_text(manpage=None)[0], encoding="utf-8")
    return folder


def tiny_tagger(root: Path) -> Path:
    folder = root / TAGGER_DIR
    folder.mkdir(parents=True)
    for name, value in zip(TAGGER_FILES, ({"bias": {"NN": 1.0}}, {"the": "DT"}, ["DT", "NN"])):
        (folder / name).write_text(json.dumps(value), encoding="utf-8")
    return folder


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No NLTK data of the machine, a cache and data home of this test, no Debian WordNet."""
    monkeypatch.setattr(nltk_data, "path", [])
    monkeypatch.delenv("NLTK_DATA", raising=False)
    monkeypatch.setenv("VQA_HARNESS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("VQA_HARNESS_CACHE", str(tmp_path / "cache"))
    (tmp_path / "no-debian").mkdir()
    monkeypatch.setenv("WNSEARCHDIR", str(tmp_path / "no-debian"))
