"""`hf-vlm` across the chat-VLM families, each a tiny random checkpoint built here: open
answers, yes/no and entailment by log-likelihood, `score_choices`, `explain`, answers that do
not depend on batch composition (left padding), and the image-ablation probe's gray and
swapped images through `harness run`.

Random weights say nothing about answer quality: these tests check the plumbing (prompts,
processors, image batching, padding, scoring spans), not accuracy.

    VQA_HARNESS_FAMILIES=qwen2_vl,smolvlm python -m pytest -q tests/hf/test_hf_vlm_families.py
runs some families only (docs/hf-models.md: the GPU-machine check of the video families).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest
import vlm_families_a as a
import vlm_families_b as b
from helpers_hf import build_llava

from harness.cache.predictions import PredictionCache
from harness.host import PluginHost
from harness.run.predictor import Predictor
from harness.testing import run_in_process
from vqa_harness_plugins.models.hf.families import FAMILIES, has_torchvision
from vqa_harness_plugins.models.hf.prompts import ENTAILMENT_LABELS, task_of

pytest.importorskip("transformers")

BUILDERS = {
    "llava": build_llava, "llava_next": a.build_llava_next, "idefics3": a.build_idefics3,
    "paligemma": a.build_paligemma, "gemma3": a.build_gemma3, "mllama": a.build_mllama,
    "qwen2_vl": b.build_qwen2_vl, "qwen2_5_vl": b.build_qwen2_5_vl, "qwen3_vl": b.build_qwen3_vl,
    "smolvlm": b.build_smolvlm, "llava_onevision": b.build_llava_onevision, "internvl": b.build_internvl,
}
CHOSEN = [f for f in os.environ.get("VQA_HARNESS_FAMILIES", "").split(",") if f] or list(BUILDERS)


def test_every_family_in_the_table_has_a_checkpoint_here():
    assert set(BUILDERS) == set(FAMILIES)


def _needs(family: str) -> None:
    if family == "smolvlm":
        pytest.importorskip("num2words")  # SmolVLM's processor writes numbers as words


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {}


def _model(family: str, folders: dict[str, Path], tmp_path_factory: pytest.TempPathFactory):
    from vqa_harness_plugins.models.hf import HFVLMModel

    if family not in folders:
        folders[family] = BUILDERS[family](tmp_path_factory.mktemp(family))
    model = HFVLMModel(path=str(folders[family]), max_new_tokens=3, explain_max_new_tokens=4)
    model.setup("cpu")
    return model


@pytest.mark.parametrize("family", CHOSEN)
def test_family_capabilities_and_batch_invariance(family, folders, tmp_path_factory, toy_examples, tmp_path):
    _needs(family)
    model = _model(family, folders, tmp_path_factory)
    assert model.family is FAMILIES[family]
    if FAMILIES[family].video:  # assembled without the video part exactly when torchvision is missing
        assert bool(getattr(model.processor, "video_processor", None)) == has_torchvision()
    examples = [e.with_(choices=("red", "yes", "blue circle")) for e in toy_examples[:7]]
    examples.append(examples[0].with_(id="nli", question="a red circle", meta={"task": "e-snli-ve"}))
    runs = {}
    for size in (1, 4):  # batches of 4 mix prompts of different lengths: left padding at work
        cache = PredictionCache(tmp_path / f"{size}.sqlite")
        runner = Predictor(model, cache=cache, batch_size=size, progress=False)
        runs[size] = [runner.predict(examples, "answer"), runner.predict(examples, "score_choices"),
                      runner.predict(examples[:4], "explain", answers=["red", "yes", "2", "circle"])]
        cache.close()
        assert runner.stats.errors == 0, runner.stats.error_examples
    answers, choices, explained = runs[1]
    assert [p.answer for p in runs[4][0]] == [p.answer for p in answers]
    assert [p.explanation for p in runs[4][2]] == [p.explanation for p in explained]
    assert np.allclose([p.choice_scores for p in runs[4][1]], [p.choice_scores for p in choices], atol=1e-4)
    # Closed questions by log-likelihood: a label and the label distribution; open ones generated.
    for ex, pred in zip(examples, answers):
        kind = task_of(ex.question, dict(ex.meta), ())
        if kind == "yes/no":
            assert pred.answer in ("yes", "no") and set(pred.answer_scores) == {"yes", "no"}
        elif kind == "entailment":
            assert pred.answer in ENTAILMENT_LABELS and sum(pred.answer_scores.values()) == pytest.approx(1.0)
        else:
            assert isinstance(pred.answer, str) and pred.answer_scores is None
    assert any(task_of(e.question) == "yes/no" for e in examples) and any(task_of(e.question) == "short" for e in examples)
    assert all(len(p.choice_scores) == 3 and all(s < 0 and math.isfinite(s) for s in p.choice_scores) for p in choices)
    assert all(isinstance(p.explanation, str) and p.explanation for p in explained)


@pytest.mark.parametrize("family", CHOSEN)
def test_family_through_the_image_ablation_probe(family, folders, tmp_path_factory, tmp_path):
    _needs(family)
    _model(family, folders, tmp_path_factory)  # builds the checkpoint once per module
    spec = f"hf-vlm:path={folders[family]},max_new_tokens=3"
    out = run_in_process(PluginHost(blocked=frozenset()), model=spec, suite="image-ablation-toy", tmp_path=tmp_path,
                         limit=4, batch_size=4)
    assert out.exit_code == 0 and out.example_errors == 0 and not out.probe_failures
    # 4 questions asked with the real image, a gray one, another question's (where one fits), none.
    asked = {r.variant: r.n for r in out.rows if r.metric == "vqa_accuracy"}
    assert asked["real"] == asked["blank"] == 4 and 1 <= asked["swap"] <= 4
    # Identical inputs (the same image without a question, say) are computed once.
    assert asked["real"] + asked["blank"] <= out.model_calls <= sum(asked.values())
