"""The prebuilt WordNet index, the NLTK-free tagger and the word statistics: the same
answers as NLTK, and a cache that a changed resource invalidates."""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from pathlib import Path

import pytest

from harness.errors import ResourceError


@pytest.fixture(scope="module")
def nltk_wn():
    from vqa_harness_plugins.nlp import wordnet

    try:
        return wordnet()
    except ResourceError as exc:
        pytest.skip(f"WordNet missing: {exc}")


@pytest.fixture(scope="module")
def index(nltk_wn):
    from vqa_harness_plugins.nlp import wordnet_index

    return wordnet_index()


def test_index_agrees_with_nltk(nltk_wn, index) -> None:
    rng = random.Random(0)
    assert len(index) == 117659
    for sid in rng.sample(range(len(index)), 400):
        s = nltk_wn.synset(index.name(sid))
        assert tuple(lem.name() for lem in s.lemmas()) == index.lemma_names(sid)
        assert {h.name() for h in s.hypernyms()} == {index.name(h) for h in index.hypernyms(sid)}
        assert {h.name() for h in s.hyponyms()} == {index.name(h) for h in index.hyponyms(sid)}
        assert {h.name() for h in s.similar_tos()} == {index.name(h) for h in index.similar_tos(sid)}
        assert (s.max_depth(), s.min_depth(), s.lexname()) == (index.max_depth(sid), index.min_depth(sid),
                                                               index.lexname(sid))
        assert (s.definition(), s.examples()) == (index.definition(sid), index.examples(sid))
        if s.pos() == "v":
            assert all(set(lem.frame_ids()) == index.frames(sid, lem.name()) for lem in s.lemmas())
    words = ["dogs", "glasses", "ran", "better", "saw", "geese", "leaves", "children", "deep", "little", "taken"]
    for word in words + rng.sample(sorted(nltk_wn._lemma_pos_offset_map), 300):
        for pos in "nvars":  # 's': satellites only, as NLTK
            assert nltk_wn._morphy(word, pos) == index.morphy(word, pos), (word, pos)
            assert [s.name() for s in nltk_wn.synsets(word, pos)] == [index.name(x) for x in index.synsets(word, pos)]
    dog = index.synset("dog.n.01")
    assert index.lemma_counts(dog)[0] == 42  # index.sense: dog%1:05:00:: 42
    assert index.name(index.hypernyms(dog)[0]) == "canine.n.02"  # first-listed parent, file order


def test_lemma_counts_differ_from_nltk_exactly_where_documented(nltk_wn, index) -> None:
    """docs/resources.md: the index's counts (index.sense) differ from NLTK's Lemma.count()
    (cntlist.rev) for the 83 satellite lemmas whose cntlist.rev line marks the head word."""
    import re

    from vqa_harness_plugins.nlp.wordnet_corpus import wordnet_folder

    folder = wordnet_folder()
    in_sense = {line.split()[0] for line in (folder / "index.sense").read_text(encoding="utf-8").splitlines()}
    marked = {}
    for line in (folder / "cntlist.rev").read_text(encoding="utf-8").splitlines():
        key, _number, count = line.split()
        plain = re.sub(r"\((a|p|ip)\)", "", key)
        if plain != key and plain in in_sense:
            marked[plain] = int(count)
    assert len(marked) == 83
    docs = (Path(__file__).resolve().parents[2] / "docs" / "resources.md").read_text(encoding="utf-8")
    assert "83 lemmas in 65 satellite synsets under 30 head words" in " ".join(docs.split())
    assert len({nltk_wn.lemma_from_key(k).synset().name() for k in marked}) == 65
    assert len({k.split(":")[3] for k in marked}) == 30
    for key, count in marked.items():
        lemma = nltk_wn.lemma_from_key(key)
        sid = index.synset(lemma.synset().name())
        assert lemma.count() == 0 and index.count(sid, lemma.name()) == count > 0, key
    # Every other lemma agrees: all satellite synsets, and random others.
    rng = random.Random(1)
    sids = [sid for sid in range(len(index)) if index.pos(sid) == "s"] + rng.sample(range(len(index)), 2000)
    for sid in sids:
        for lemma, count in zip(nltk_wn.synset(index.name(sid)).lemmas(), index.lemma_counts(sid)):
            if lemma.key() not in marked:
                assert lemma.count() == count, lemma.key()


def test_index_cache_is_keyed_by_the_resource_files(tmp_path, monkeypatch) -> None:
    from vqa_harness_plugins.nlp.wordnet_index import (
        SOURCE_FILES,
        INDEX_VERSION,
        index_path,
        load_index,
    )

    module = sys.modules["vqa_harness_plugins.nlp.wordnet_build"]  # where the cached index is built

    monkeypatch.setenv("VQA_HARNESS_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "wordnet"
    folder.mkdir()
    for name in SOURCE_FILES:
        (folder / name).write_text(name)
    builds = []
    tiny = {"format": INDEX_VERSION, "lexnames": [], "lemmas": {p: ("", b"", b"\0\0\0\0") for p in "nvar"},
            "exc": {p: {} for p in "nvar"},
            "syn": {k: [] for k in ("name", "words", "counts", "gloss", "frames")}}
    tiny["syn"].update({"pos": "", "lex": b"", "ptr": b"", "ptr_off": b"\0\0\0\0", "maxd": b"", "mind": b""})
    monkeypatch.setattr(module, "build_index", lambda f: builds.append(f) or tiny)
    load_index(folder)
    path = index_path(folder)
    assert path.is_file() and path.parent == tmp_path / "cache" / "resources" and len(builds) == 1
    load_index(folder)
    assert len(builds) == 1  # read back from the cache
    # A changed resource file (a re-installed WordNet) gets a new index; the stale one goes.
    data = folder / "index.sense"
    os.utime(data, ns=(data.stat().st_atime_ns, data.stat().st_mtime_ns + 10**9))
    assert index_path(folder) != path
    load_index(folder)
    assert len(builds) == 2 and not path.exists() and index_path(folder).is_file()
    # A damaged cache file is rebuilt, not trusted.
    index_path(folder).write_bytes(b"garbage")
    load_index(folder)
    assert len(builds) == 3


def test_fast_tagger_gives_nltks_tags(shared_data, tmp_path, monkeypatch) -> None:
    from vqa_harness_plugins.generators.counterfactual import tokenize
    from vqa_harness_plugins.nlp import pos_tag
    from vqa_harness_plugins.nlp.tagger import nltk_tagger

    try:
        reference = nltk_tagger()
    except ResourceError as exc:
        pytest.skip(f"tagger missing: {exc}")
    data = json.loads((shared_data / "vqax" / "vqaX_val.json").read_text(encoding="utf-8"))
    for row in list(data.values())[:500]:
        tokens = [t.text for t in tokenize(row["question"])]
        assert pos_tag(tokens) == reference.tag(tokens), row["question"]


def test_tagger_cache_is_keyed_by_the_weight_files(tmp_path, monkeypatch) -> None:
    from vqa_harness_plugins.nlp.perceptron import _cache_path, _load, tagger_folder

    try:
        folder = tagger_folder()
    except ResourceError as exc:
        pytest.skip(f"tagger missing: {exc}")
    monkeypatch.setenv("VQA_HARNESS_CACHE", str(tmp_path / "cache"))
    copy = tmp_path / "tagger"
    shutil.copytree(folder, copy)
    tagger = _load(copy)
    path = _cache_path(copy)
    assert path.is_file()
    tags = json.loads((copy / "averaged_perceptron_tagger_eng.tagdict.json").read_text())
    tags["dog"] = "VB"  # a changed resource
    (copy / "averaged_perceptron_tagger_eng.tagdict.json").write_text(json.dumps(tags))
    assert _cache_path(copy) != path
    assert _load(copy).tag(["the", "dog"])[1] == ("dog", "VB") != tagger.tag(["the", "dog"])[1]


def test_word_stats_are_wordfreq_and_lemminflect(index) -> None:
    from wordfreq import zipf_frequency

    from vqa_harness_plugins.nlp import word_stats

    stats = word_stats()
    for word in ("dog", "canine", "felicitous", "publics", "patronne"):
        assert stats.zipf(word) == zipf_frequency(word, "en")
    assert stats.inflect("spread", "VBD") == "spread" and stats.inflect("child", "NNS") == "children"
    assert stats.inflect("pick", "VBZ") == "picks" and stats.inflect("dog", "NN") == "dog"


def test_start_up_does_not_import_nltk(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = ("import sys; from vqa_harness_plugins.generators.counterfactual import Perturber; "
            "p = Perturber(mode='quality'); p.perturb('Is the dog white?'); print('nltk' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
