"""The counterfactual probe's stored outputs and perturbations name the WordNet and tagger
copies they were computed with: NLTK data the user has (`$NLTK_DATA`, `~/nltk_data`) comes
before the installed copy (docs/resources.md), so switching copies must compute again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.api import Model, Suite, Task
from harness.errors import ResourceError
from harness.hookspecs import hookimpl
from harness.testing import ListDataset, make_host, run_in_process
from harness.types import Example
from vqa_harness_plugins.nlp import tagger_identity, wordnet_identity
from vqa_harness_plugins.nlp.perceptron import TAGGER_DIR, tagger_folder
from vqa_harness_plugins.probes.counterfactual import CounterfactualProbe

QUESTIONS = ["Is the dog white?", "What is the dog eating?", "Is there a dog on the sofa?"]


@pytest.fixture(autouse=True)
def installed(monkeypatch):
    """The installed resources only (no NLTK_DATA of the machine); skipped without them."""
    monkeypatch.delenv("NLTK_DATA", raising=False)
    try:
        return tagger_folder()
    except ResourceError as exc:
        pytest.skip(f"NLP resources missing: {exc}")


class Yes(Model):
    name = "test-yes"
    inputs = frozenset({"question"})

    def answer(self, batch):
        return ["yes" for _ in batch]


class Plugin:
    @hookimpl
    def register_models(self, register):
        register(Yes)

    @hookimpl
    def register_datasets(self, register):
        examples = [Example(id=f"q{i}", question=q, image_id=f"img{i}", answers=("yes",) * 10, label="yes")
                    for i, q in enumerate(QUESTIONS)]
        register(type("CfCopies", (ListDataset,), {"name": "cf-copies", "data": {"val": examples},
                                                   "splits": ("val",)}))

    @hookimpl
    def register_suites(self, register):
        register(Suite("cf-copies", "test", (Task("cf-copies", "val", ("counterfactual",), probe_options={
            "counterfactual": {"mode": "paper", "kinds": "hypernym_noun"}}),)))


def _run(tmp_path: Path):
    host = make_host(Plugin(), builtins=True, names=["cf-copies"])
    out = run_in_process(host, model="test-yes", suite="cf-copies", tmp_path=tmp_path)
    assert out.exit_code == 0, out.probe_failures
    coverage = [r.value for r in out.rows if r.metric == "coverage" and r.variant == "hypernym_noun"]
    resources = json.loads((out.rundir.path / "manifest.json").read_text())["resources"]
    return coverage, resources


def _copy_tagger(installed: Path, root: Path, **tags: str) -> Path:
    """The installed tagger copied under `root` (an NLTK data folder), `tags` forced in its tag dictionary."""
    folder = root / TAGGER_DIR
    shutil.copytree(installed, folder)
    if tags:
        path = next(folder.glob("*.tagdict.json"))
        path.write_text(json.dumps({**json.loads(path.read_text()), **tags}), encoding="utf-8")
    return folder


def test_a_tagger_in_nltk_data_is_not_answered_by_the_installed_copys_output(tmp_path, monkeypatch, installed):
    before, resources = _run(tmp_path)
    assert before == [1.0]  # "dog" is a noun: every question has a hypernym substitution
    tagger = resources["pos-tagger"]
    assert tagger_identity()["sha256"][:16] in tagger
    # The user's own NLTK data holds a tagger that reads "dog" as a verb: it comes first.
    _copy_tagger(installed, tmp_path / "nltk", dog="VB")
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "nltk"))
    after, resources = _run(tmp_path)
    assert after[0] < 1.0 and resources["pos-tagger"] != tagger  # computed again with that tagger


def test_a_byte_identical_copy_elsewhere_is_the_same_identity(tmp_path, monkeypatch, installed):
    probe = CounterfactualProbe(mode="paper")
    key, wn = probe.cache_settings(), wordnet_identity()
    assert wn["version"] == "3.0" and len(wn["sha256"]) == 64
    _copy_tagger(installed, tmp_path / "same")
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "same"))
    assert tagger_folder().parent.parent == tmp_path / "same"
    assert probe.cache_settings() == key  # the same bytes at another path: outputs are restored
    _copy_tagger(installed, tmp_path / "other", the="NN")
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "other"))
    assert probe.cache_settings() != key


def test_a_missing_resource_is_a_key_not_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("VQA_HARNESS_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("vqa_harness_plugins.nlp.base.nltk_search_path", lambda: [])
    assert "missing" in tagger_identity() and "missing" in wordnet_identity()
    assert CounterfactualProbe(mode="paper").cache_settings()  # the run then fails with the reader's one line
