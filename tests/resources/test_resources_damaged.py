"""Damaged, zipped or misplaced resources: one line naming the file or option, never a
traceback, and `status` never calls a broken resource present. Every WordNet and tagger
here is a tiny one written into tmp_path."""

from __future__ import annotations

import json
import os
import pickle
import zipfile
from pathlib import Path

import pytest
from helpers_resources import DATA_NOUN, isolated, tiny_tagger, tiny_wordnet  # noqa: F401  (autouse fixture)

from harness.errors import ResourceError
from vqa_harness_cli import main
from vqa_harness_plugins import nlp as resources
from vqa_harness_plugins.nlp import tagger as tagger_mod
from vqa_harness_plugins.nlp import wordnet_corpus as wordnet_mod
from vqa_harness_plugins.nlp.perceptron import TAGGER_DIR, TAGGER_FILES


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def status_of(name: str, target: Path) -> resources.ResourceStatus:
    return {s.name: s for s in resources.status(target)}[name]


# --- finding 1: a damaged WordNet ------------------------------------------------------


def test_tiny_wordnet_reads(tmp_path: Path) -> None:
    target = tmp_path / "nltk_data"
    tiny_wordnet(target)
    assert status_of("wordnet", target).present
    ix = resources.wordnet_index(target)
    dog = ix.synsets("dogs", "n")
    assert [ix.name(s) for s in dog] == ["dog.n.01"] and ix.lemma_counts(dog[0]) == (3,)
    assert [ix.name(s) for s in ix.hypernyms(dog[0])] == ["entity.n.01"]


@pytest.mark.parametrize("damage, file, needle", [
    (lambda f: (f / "data.noun").write_text(DATA_NOUN[:len(DATA_NOUN) // 2 + 10]), "data.noun", "line 2"),
    (lambda f: (f / "data.noun").write_text(DATA_NOUN.splitlines()[1] + "\n"), "data.noun", "offset 1 "),
    (lambda f: (f / "index.noun").write_bytes(b"dog n 1 1 @ 1 0 000\xff0060\n"), "index.noun", "not UTF-8"),
    (lambda f: (f / "index.noun").write_text("dog n 2 1 @ 2 0 00000060\n"), "index.noun", "line 1"),
    (lambda f: (f / "lexnames").write_text("00\n"), "lexnames", "line 1"),
    (lambda f: (f / "index.sense").write_text("dog%1:05:00:: 00000060 1\n"), "index.sense", "line 1"),
])
def test_a_damaged_wordnet_is_one_line_naming_the_file(tmp_path: Path, capsys, damage, file, needle) -> None:
    target = tmp_path / "nltk_data"
    folder = tiny_wordnet(target)
    damage(folder)
    found = status_of("wordnet", target)
    assert not found.present, found  # was: present
    assert f"{folder / file}" in found.detail and needle in found.detail and "\n" not in found.detail
    with pytest.raises(ResourceError, match=f"{file}.*{needle}"):
        resources.wordnet_index(target)
    # The command line: the table says NO, install (no Debian copy here) exits 5 with one line.
    code, out, _ = cli(capsys, "resources", "status", "--target", str(target))
    assert code == 0 and "wordnet" in out and "NO" in out.split("wordnet", 1)[1].splitlines()[0]
    code, _, err = cli(capsys, "resources", "install", "--target", str(target))
    assert code == 5 and len(err.strip().splitlines()) == 1 and file in err


def test_install_replaces_a_damaged_copy_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    debian = tmp_path / "debian"
    source = tiny_wordnet(tmp_path / "src")
    source.rename(debian)
    (debian / "lexnames").unlink()  # Debian has none: install writes it
    monkeypatch.setenv("WNSEARCHDIR", str(debian))
    target = tmp_path / "nltk_data"
    folder = tiny_wordnet(target)
    (folder / "data.noun").write_text(DATA_NOUN[:50])
    assert wordnet_mod.install_wordnet(target).present  # repaired by the copy
    assert (folder / "data.noun").read_text() == DATA_NOUN
    assert status_of("wordnet", target).present


def test_a_damaged_foreign_wordnet_is_named_and_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "user_nltk"
    folder = tiny_wordnet(user)
    (folder / "data.noun").write_text("")
    monkeypatch.setenv("NLTK_DATA", str(user))
    found = wordnet_mod.install_wordnet(tmp_path / "nltk_data")
    assert not found.present and "data.noun" in found.detail and f"repair or remove {folder}" in found.detail
    assert (folder / "data.noun").read_text() == ""


# --- finding 2: a corrupt tagger JSON ---------------------------------------------------


@pytest.mark.parametrize("content", ["", "{not json", "[]", "\udcff"])
def test_a_corrupt_tagger_file_is_one_line_and_install_rewrites_it(tmp_path: Path, content: str) -> None:
    target = tmp_path / "nltk_data"
    folder = tiny_tagger(target)
    weights = folder / TAGGER_FILES[0]
    weights.write_bytes(content.encode("utf-8", "surrogateescape"))
    with pytest.raises(ResourceError, match=f"{weights}: (unreadable tagger weights|not tagger weights)"):
        resources.pos_tag(["the", "dog"], target)
    found = status_of("pos-tagger", target)
    assert not found.present and str(weights) in found.detail  # was: present
    if tagger_mod.aptagger_pickle() is not None:
        assert tagger_mod.install_tagger(target).present  # rewritten from textblob-aptagger
        assert json.loads(weights.read_text())


# --- finding 3: a --target that cannot be a folder ----------------------------------------


def test_a_target_that_cannot_be_a_folder_is_one_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "afile").write_text("")
    for target, reason in ((tmp_path / "afile" / "sub", "a file is in the way"), (Path("/proc/nope"), "")):
        code, _, err = cli(capsys, "resources", "install", "--target", str(target))
        assert code == 2 and err.startswith(f"error: --target {target} cannot be used as a folder"), err
        assert reason in err and len(err.strip().splitlines()) == 1


# --- finding 10: zip-only NLTK data --------------------------------------------------------


def test_zip_only_nltk_data_is_not_present_and_install_supplies_the_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = tiny_tagger(tmp_path / "built")
    user = tmp_path / "user_nltk"
    (user / "taggers").mkdir(parents=True)
    with zipfile.ZipFile(user / (TAGGER_DIR + ".zip"), "w") as zf:
        for name in TAGGER_FILES:
            zf.write(built / name, f"{TAGGER_DIR.split('/')[-1]}/{name}")
    monkeypatch.setenv("NLTK_DATA", str(user))
    target = tmp_path / "nltk_data"
    found = status_of("pos-tagger", target)
    assert not found.present and "only NLTK's" in found.detail and "unzip it in place" in found.detail
    with pytest.raises(ResourceError, match="only as NLTK's .*zip; unzip it in place"):
        resources.pos_tag(["the"], target)
    if tagger_mod.aptagger_pickle() is None:
        pytest.skip("textblob-aptagger not installed")
    assert tagger_mod.install_tagger(target).location == str(target / TAGGER_DIR)
    assert resources.pos_tag(["the", "dog"], target)[0] == ("the", "DT")


def test_zip_only_wordnet_is_not_present(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "user_nltk"
    (user / "corpora").mkdir(parents=True)
    with zipfile.ZipFile(user / "corpora" / "wordnet.zip", "w") as zf:
        zf.writestr("wordnet/lexnames", "")
    monkeypatch.setenv("NLTK_DATA", str(user))
    found = status_of("wordnet", tmp_path / "nltk_data")
    assert not found.present and "wordnet.zip is installed" in found.detail


# --- finding 12: two WordNets' caches -------------------------------------------------------


def test_two_wordnet_folders_keep_their_own_cache_files(tmp_path: Path) -> None:
    from vqa_harness_plugins.nlp.wordnet_index import index_path, load_index

    one, two = tiny_wordnet(tmp_path / "a"), tiny_wordnet(tmp_path / "b")
    load_index(one)
    load_index(two)
    assert index_path(one) != index_path(two)
    assert index_path(one).is_file() and index_path(two).is_file()  # was: the second removed the first
    (one / "index.sense").write_text("dog%1:05:00:: 00000060 1 4\n")  # a re-installed WordNet
    old = sorted(index_path(two).parent.glob("wordnet-index-*"))
    load_index(one)
    now = sorted(index_path(two).parent.glob("wordnet-index-*"))
    assert len(old) == len(now) == 2 and index_path(two) in now  # only one's stale file went
    legacy = index_path(one).parent / "wordnet-index-0123456789abcdef.marshal"
    legacy.write_bytes(b"")
    os.utime(one / "index.sense", ns=(1, 1))
    load_index(one)
    assert not legacy.exists()  # files of the earlier naming are removed too


# --- finding 13: install() reports, it does not raise -------------------------------------


class _RunsCommand:
    def __reduce__(self):  # what a tampered weights file would contain
        return (os.system, ("true",))


def test_install_reports_refused_tagger_weights_as_a_status(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    evil = tmp_path / "trontagger-0.1.0.pickle"
    evil.write_bytes(pickle.dumps(({"w": {}}, {}, _RunsCommand()), protocol=2))
    monkeypatch.setattr(tagger_mod, "aptagger_pickle", lambda: evil)
    found = {s.name: s for s in resources.install(tmp_path / "nltk_data")}  # was: ResourceError raised
    assert set(found) == {"wordnet", "pos-tagger", "bertscore-model", "sense-vectors"}
    assert not found["pos-tagger"].present and "refusing to load global" in found["pos-tagger"].detail


# --- finding 6: a folder another account cannot read -------------------------------------


def test_an_unreadable_nltk_folder_counts_as_absent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "user_nltk"
    tiny_wordnet(user)
    tiny_tagger(user)
    monkeypatch.setenv("NLTK_DATA", str(user))
    real = Path.is_file

    def is_file(self: Path) -> bool:  # what Path.is_file does in a 0700 folder of another account
        if str(self).startswith(str(user)):
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "is_file", is_file)
    found = {s.name: s for s in resources.status(tmp_path / "nltk_data")}  # was: PermissionError
    assert not found["wordnet"].present and not found["pos-tagger"].present
