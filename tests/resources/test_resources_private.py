"""NLTK data under another umask: NLTK's data sandbox reads nothing another account could
have written (a group or world write bit, another owner), so the harness writes its copies
without those bits and names a copy NLTK will refuse."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_resources import isolated, tiny_tagger, tiny_wordnet  # noqa: F401

from harness.errors import ResourceError
from vqa_harness_plugins.nlp import base, tagger, wordnet_corpus

_INSTALL = """
import sys
from vqa_harness_plugins.nlp import install_wordnet, wordnet
print(install_wordnet(sys.argv[1]).present)
print(type(wordnet(sys.argv[1])).__name__)
"""

sandboxed = pytest.mark.skipif(not base._nltk_sandboxed(), reason="this NLTK has no data sandbox (nltk.pathsec)")


@sandboxed
def test_wordnet_installed_under_umask_002_is_read_by_nltk(tmp_path: Path) -> None:
    """Before: under umask 002 (the default of many desktop accounts) the copy was group-writable,
    `harness resources status` said it was installed, and every run reading WordNet through
    NLTK (decoys) failed with NLTK's 20-line refusal."""
    source = tiny_wordnet(tmp_path / "debian")
    target = tmp_path / "nltk_data"
    env = {**os.environ, "WNSEARCHDIR": str(source), "VQA_HARNESS_CACHE": str(tmp_path / "cache")}
    env.pop("NLTK_DATA", None)
    proc = subprocess.run([sys.executable, "-c", _INSTALL, str(target)], capture_output=True, text=True, env=env,
                          umask=0o002, check=False)
    assert proc.returncode == 0, proc.stderr[-1500:]
    assert proc.stdout.split() == ["True", "WordNetCorpusReader"]
    for path in [target, *target.rglob("*")]:
        if path.is_dir() or path.parent.name == "wordnet":
            assert not path.stat().st_mode & 0o022, (path, oct(path.stat().st_mode))


@sandboxed
@pytest.mark.parametrize("which", ["wordnet", "tagger"])
def test_a_copy_writable_by_others_is_named_and_reinstalled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str) -> None:
    """A copy made group-writable (an install before this fix, or a chmod) is not present,
    with one line naming the file; reading it through NLTK is that line, not NLTK's
    20-line message; `install` writes WordNet again, private."""
    target = tmp_path / "nltk_data"
    folder = tiny_wordnet(target) if which == "wordnet" else tiny_tagger(target)
    victim = sorted(folder.iterdir())[0]
    victim.chmod(victim.stat().st_mode | stat.S_IWGRP)
    status = (wordnet_corpus.wordnet_status if which == "wordnet" else tagger.tagger_status)(target)
    assert not status.present
    assert f"NLTK will not read {victim}: writable by other accounts" in status.detail
    assert "\n" not in status.detail
    read = wordnet_corpus.wordnet if which == "wordnet" else tagger.nltk_tagger
    with pytest.raises(ResourceError, match="NLTK will not read") as err:
        read(target)
    assert "\n" not in str(err.value)
    if which == "wordnet":
        monkeypatch.setenv("WNSEARCHDIR", str(tiny_wordnet(tmp_path / "debian")))
        assert wordnet_corpus.install_wordnet(target).present
        assert not any(p.stat().st_mode & 0o022 for p in folder.iterdir())
        assert type(wordnet_corpus.wordnet(target)).__name__ == "WordNetCorpusReader"


def test_make_private_takes_write_bits_off_the_chain_and_leaves_links(tmp_path: Path) -> None:
    root, folder = tmp_path / "root", tmp_path / "root" / "corpora" / "x"
    folder.mkdir(parents=True)
    (folder / "f").write_text("a", encoding="utf-8")
    (folder / "link").symlink_to(tmp_path)
    for path in (root, root / "corpora", folder, folder / "f", tmp_path):
        path.chmod(0o777 if path.is_dir() else 0o666)
    base.make_private(root, folder)
    modes = [stat.S_IMODE(p.stat().st_mode) for p in (root, root / "corpora", folder, folder / "f", tmp_path)]
    assert modes == [0o755, 0o755, 0o755, 0o644, 0o777]  # a link's target is not changed
