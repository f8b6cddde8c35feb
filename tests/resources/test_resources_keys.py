"""Cache keys of the derived resource files hold what the output depends on, and nothing
else; WordNet lookups that NLTK answers differently are matched or documented."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

import pytest
from helpers_resources import isolated, tiny_wordnet  # noqa: F401  (autouse fixture)

from vqa_harness_plugins.nlp import bertscore as bertscore_mod
from vqa_harness_plugins.nlp import wordstats as ws

# The package's `sense_vectors` is a function: the module, by its full name.
sv = importlib.import_module("vqa_harness_plugins.nlp.sense_vectors")


def _model(folder: Path) -> Path:
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "bert", "num_hidden_layers": 6}))
    (folder / "vocab.txt").write_text("[PAD]\n[UNK]\n")
    (folder / "model.safetensors").write_bytes(b"weights")
    return folder


def test_sense_vector_key_follows_wordfreq_and_the_weights_not_the_layer_count(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "nltk_data"
    tiny_wordnet(target)
    model = _model(tmp_path / "model")
    monkeypatch.setenv(bertscore_mod.MODEL_ENV, str(model))
    base = sv._cache_path(str(model), target)
    monkeypatch.setenv(bertscore_mod.LAYERS_ENV, "3")
    assert sv._cache_path(str(model), target) == base  # the vectors use the input embeddings only
    monkeypatch.delenv(bertscore_mod.LAYERS_ENV)
    weights = model / "model.safetensors"
    weights.write_bytes(b"other weights")  # new embeddings, same folder
    os.utime(weights, ns=(1, 10**9))
    changed = sv._cache_path(str(model), target)
    assert changed != base
    real = ws.md.version
    monkeypatch.setattr(ws.md, "version", lambda dist: "9.9" if dist == "wordfreq" else real(dist))
    assert sv._cache_path(str(model), target) != changed  # another wordfreq: another inventory
    # Same WordNet and model folders: the new file replaces the old one (same prefix).
    assert sv._cache_path(str(model), target).name.rsplit("-", 1)[0] == base.name.rsplit("-", 1)[0]


def _wordnet_with(tmp_path: Path, **files: str):
    """The tiny WordNet with `files` (name with '.' as '_': data_adj=...) replaced, and its index."""
    from vqa_harness_plugins.nlp import wordnet_index

    target = tmp_path / "nltk_data"
    folder = tiny_wordnet(target)
    for name, text in files.items():
        (folder / name.replace("_", ".")).write_text(text)
    return folder, wordnet_index(target)


def test_synsets_with_pos_s_are_satellites_only_as_in_nltk(tmp_path: Path) -> None:
    _, ix = _wordnet_with(
        tmp_path,
        data_adj="00000010 00 a 01 happy 0 001 & 00000050 a 0000 | enjoying well-being\n"
                 "00000050 00 s 01 glad 0 001 & 00000010 a 0000 | showing pleasure\n"
                 "00000090 00 s 01 happy 0 001 & 00000010 a 0000 | eagerly disposed\n",
        index_adj="glad a 1 1 & 1 0 00000050\nhappy a 2 1 & 2 0 00000010 00000090\n")
    assert [ix.name(s) for s in ix.synsets("happy", "a")] == ["happy.a.01", "happy.s.01"]
    assert [ix.name(s) for s in ix.synsets("happy", "s")] == ["happy.s.01"]  # was: happy.a.01 too
    assert [ix.name(s) for s in ix.synsets("glad", "s")] == ["glad.s.01"]


def test_competing_senses_keeps_only_the_first_when_no_other_is_counted(tmp_path: Path) -> None:
    folder, ix = _wordnet_with(
        tmp_path,
        data_noun="00000001 03 n 01 entity 0 000 | that which is perceived\n"
                  "00000070 05 n 01 tabby 0 001 @ 00000001 n 0000 | a cat\n"
                  "00000080 03 n 01 tabby 0 001 @ 00000001 n 0000 | a fabric\n",
        index_noun="entity n 1 0 1 0 00000001\ntabby n 2 1 @ 2 0 00000070 00000080\n",
        index_sense="")
    assert [ix.name(s) for s in sv.competing_senses(ix, "tabby", "n")] == ["tabby.n.01"]
    (folder / "index.sense").write_text("tabby%1:03:00:: 00000080 2 1\n")
    os.utime(folder / "index.sense", ns=(1, 10**9))
    from vqa_harness_plugins.nlp.wordnet_index import load_index

    ix = load_index(folder)
    assert [ix.name(s) for s in sv.competing_senses(ix, "tabby", "n")] == ["tabby.n.01", "tabby.n.02"]
    assert sv.competing_senses(ix, "unicorn", "n") == []


def test_sense_vector_key_follows_pytorch_bin_weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model folder with `pytorch_model.bin` (BERTScore accepts it) instead of safetensors."""
    target = tmp_path / "nltk_data"
    tiny_wordnet(target)
    model = _model(tmp_path / "model")
    (model / "model.safetensors").rename(model / "pytorch_model.bin")
    monkeypatch.setenv(bertscore_mod.MODEL_ENV, str(model))
    base = sv._cache_path(str(model), target)
    (model / "pytorch_model.bin").write_bytes(b"other weights")
    os.utime(model / "pytorch_model.bin", ns=(1, 10**9))
    assert sv._cache_path(str(model), target) != base
