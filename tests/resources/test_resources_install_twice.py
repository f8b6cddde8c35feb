"""Two `harness resources install` into one folder at once (two shells, a provisioning script
run twice) take turns: both found WordNet missing and copied it, the second copy's rename
removed the first one's finished folder for a moment, and the first install, checking it just
then, said `error: some resources are missing: wordnet` and exited non-zero."""

from __future__ import annotations

import threading
from pathlib import Path

from vqa_harness_plugins import nlp as resources
from vqa_harness_plugins.nlp import wordnet_corpus as wordnet_mod

from helpers_resources import isolated, tiny_wordnet  # noqa: F401  (autouse fixture)


def _debian(tmp_path: Path, monkeypatch) -> None:
    """A tiny WordNet where Debian's files would be, for `install` to copy."""
    src = tiny_wordnet(tmp_path / "debian")
    monkeypatch.setenv("WNSEARCHDIR", str(src))


def test_a_second_install_waits_for_the_one_under_way(tmp_path, monkeypatch):
    _debian(tmp_path, monkeypatch)
    target = tmp_path / "nltk"
    copies: list[Path] = []
    real = wordnet_mod._copy_debian
    monkeypatch.setattr(wordnet_mod, "_copy_debian", lambda src, to: copies.append(to) or real(src, to))
    waiting = threading.Event()
    found: list[list[resources.ResourceStatus]] = []

    def second() -> None:
        found.append(resources.install(target, waiting=waiting.set))

    with resources.install_turn(target):  # another install under way
        thread = threading.Thread(target=second)
        thread.start()
        for _ in range(600):  # until it waits or copies (no clock in the assertions)
            if waiting.wait(0.1) or copies:
                break
        assert copies == []  # it waits: before, it copied beside the first one
    thread.join(60)
    assert len(copies) == 1 and found and found[0][0].present


def test_an_install_that_waited_finds_the_resources_in_place(tmp_path, monkeypatch):
    _debian(tmp_path, monkeypatch)
    target = tmp_path / "nltk"
    assert resources.install(target)[0].present
    copies: list[Path] = []
    monkeypatch.setattr(wordnet_mod, "_copy_debian", lambda src, to: copies.append(to))
    assert resources.install(target)[0].present and copies == []  # nothing copied again
