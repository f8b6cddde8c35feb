"""Generated decoys follow the WordNet copy their WUP filter reads: NLTK data of the user's
(`$NLTK_DATA`, `~/nltk_data`) comes before the installed copy (docs/resources.md), so a switch
generates the decoys again and changes the dataset's fingerprint (probe outputs, memos)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.errors import ResourceError
from vqa_harness_plugins.datasets.multiple_choice.visual7w import Visual7W
from vqa_harness_plugins.nlp import wordnet

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "resources"))
from helpers_resources import tiny_wordnet  # noqa: E402


@pytest.fixture(autouse=True)
def installed(monkeypatch):
    monkeypatch.delenv("NLTK_DATA", raising=False)
    try:
        wordnet()
    except ResourceError as exc:
        pytest.skip(f"NLP resources missing: {exc}")


def _write(root: Path) -> None:
    """Six images with four questions each; on image 0 the answers "dog" and "canine"."""
    images = []
    for i in range(6):
        answers = ["dog", "canine", "spoon", "chair"] if i == 0 else [f"thing{i}{j}" for j in range(4)]
        qas = [{"qa_id": i * 10 + j, "image_id": i, "question": f"What is on table {j}?", "type": "what",
                "answer": answers[j], "multiple_choices": [f"o{i}{j}a", f"o{i}{j}b", f"o{i}{j}c"]}
               for j in range(4)]
        images.append({"image_id": i, "filename": f"v7w_{i}.jpg", "split": "test", "qa_pairs": qas})
    path = root / "visual7w" / "dataset_v7w_telling.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"images": images}))


def _dog_decoys(root: Path) -> tuple[set[str], str]:
    dataset = Visual7W(data_dir=root, decoys="iou", decoy_file="")
    examples = dataset.load("test")
    return {d for ex in examples if ex.id == "0" for d in ex.meta["decoys"]["iou"]}, dataset.fingerprint("test")


@pytest.mark.filterwarnings("ignore:No WordNet synset found")  # the tiny WordNet's offsets
def test_a_wordnet_in_nltk_data_generates_the_decoys_again(tmp_path, fresh_cache, monkeypatch):
    _write(tmp_path)
    decoys, fingerprint = _dog_decoys(tmp_path)
    assert "canine" not in decoys and "spoon" in decoys  # WordNet 3.0: a canine is too close to a dog
    tiny_wordnet(tmp_path / "nltk")  # knows dog and entity only: nothing is close to "dog"
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "nltk"))
    decoys_now, fingerprint_now = _dog_decoys(tmp_path)
    assert "canine" in decoys_now and fingerprint_now != fingerprint
