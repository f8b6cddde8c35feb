"""The Java metrics (PTB tokenizer, METEOR) from a pycocoevalcap installed under an odd path:
a venv folder with a space, a ":" and a non-ASCII letter, under a UTF-8 and an ASCII locale.
Each run is a new process that imports a copy of pycocoevalcap's two Java folders (files
linked, not copied, where the file system allows) before the installed one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vqa_harness_plugins.metrics.nlg import nlg_scores, ptb_tokenize

PREDS = ["A café, with crème brûlée.", "two kids play football on grass", "the dog runs"]
REFS = [["the café sells crème brûlée"], ["children are playing soccer", "kids play football"], ["a dog is running"]]

_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from vqa_harness_plugins.metrics.nlg import nlg_scores, ptb_tokenize
import pycocoevalcap.meteor.meteor as m
assert m.__file__.startswith(sys.argv[1]), m.__file__
r = nlg_scores(*json.loads(sys.argv[2]), metrics=("meteor",))
print(json.dumps([ptb_tokenize(json.loads(sys.argv[2])[0]), r.corpus["meteor"], list(r.per_example["meteor"])]))
"""


def _link_tree(src: Path, dst: Path) -> None:
    for path in src.rglob("*"):
        if "__pycache__" in path.parts:
            continue
        target = dst / path.relative_to(src)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, target)
        except OSError:  # another file system: a copy (METEOR's table is 62 MB)
            shutil.copyfile(path, target)


@pytest.fixture(scope="module")
def odd_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("java") is None:
        pytest.skip("java is not installed (apt-get install default-jre-headless)")
    import pycocoevalcap.meteor.meteor as meteor

    installed = Path(meteor.__file__).parents[1]
    site = tmp_path_factory.mktemp("java") / "venv a:b é" / "site-packages"
    for sub in ("meteor", "tokenizer"):
        _link_tree(installed / sub, site / "pycocoevalcap" / sub)
    return site


@pytest.mark.parametrize("locale", ["C.UTF-8", "C"])
def test_ptb_and_meteor_run_from_a_venv_under_an_odd_path(odd_site: Path, locale: str) -> None:
    """Before: METEOR 1.5 stopped at "file not found (file:/.../venv%2520a:b%2520%25c3%25a9/...
    paraphrase-en.gz)" (it encodes its jar's URL twice) under any locale, and under LC_ALL=C
    Java could not open the tokenizer's jar at all (ClassNotFoundException): the whole e-ViL
    probe failed. The tokens and scores are those of the installed copy."""
    env = {**os.environ, "LC_ALL": locale, "LANG": locale}
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, str(odd_site), json.dumps([PREDS, REFS])],
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    tokens, corpus, per = json.loads(proc.stdout.strip().splitlines()[-1])
    here = nlg_scores(PREDS, REFS, metrics=("meteor",))
    assert tokens == ptb_tokenize(PREDS)
    assert (corpus, per) == (here.corpus["meteor"], list(here.per_example["meteor"]))


def test_a_failing_meteor_is_named_by_its_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    """The error line was the last line of Java's stack trace ("\\tat Meteor.main(Unknown
    Source)"); it is the exception's own line (here: the table it could not find)."""
    from harness.errors import ResourceError
    from vqa_harness_plugins.metrics import java_tools

    if shutil.which("java") is None:
        pytest.skip("java is not installed (apt-get install default-jre-headless)")
    monkeypatch.setattr(java_tools, "METEOR_TABLE", "data/no-such-table.gz")
    with pytest.raises(ResourceError, match="no-such-table") as err:
        nlg_scores(PREDS, REFS, metrics=("meteor",))
    assert "\n" not in str(err.value) and "Unknown Source" not in str(err.value)
