"""`hf-vlm`: prompt rules, answer cleaning, and a tiny local LLaVA (log-likelihood, left padding)."""

from __future__ import annotations

import numpy as np
import pytest

from harness.cache.predictions import PredictionCache
from harness.run.predictor import Predictor
from vqa_harness_plugins.models.hf.prompts import build_prompt, clean_answer, task_of


def test_task_rules_and_answer_cleaning():
    assert task_of("Is there a dog?") == "yes/no" and task_of("Is it red or blue?") == "short"
    assert task_of("What color is the car?") == "short"
    assert task_of("Two dogs play.", choices=("entailment", "neutral", "contradiction")) == "entailment"
    assert task_of("Two dogs play.") == "short"  # never decided from the ground-truth label
    assert task_of("Two dogs play.", meta={"task": "entailment"}) == "entailment"
    assert clean_answer("The answer is: Red.\nBecause ...") == "red"
    assert clean_answer('  "Two dogs"! ') == "two dogs"
    assert clean_answer("Yes, there is a dog.", yes_no=True) == "yes"
    assert clean_answer("Yes, there is a dog.") == "yes, there is a dog"
    assert clean_answer("\n\n") == ""
    assert "red" in build_prompt("explain", "What color?", "red") and "yes or no" in build_prompt("yes/no", "Is it?")


def _model(path):
    from vqa_harness_plugins.models.hf import HFVLMModel

    model = HFVLMModel(path=str(path), max_new_tokens=3, explain_max_new_tokens=4)
    model.setup("cpu")
    return model


def test_llava_loglik_closed_answers_and_batch_invariance(tiny_llava, toy_examples, tmp_path):
    import torch

    model = _model(tiny_llava)
    assert model.capabilities() == {"answer", "score_choices", "explain"}
    ex = toy_examples[0].with_(choices=("red", "blue circle"))
    scores = model.score_choices([ex])[0]
    # By hand: log P(red | image, templated prompt) from one forward pass on prompt + "red".
    from harness.images import load_image

    proc = model.processor
    context = model.chat_prompt(build_prompt("choice", ex.question))
    inputs = proc(images=[load_image(ex.image)], text=[context + "red"], return_tensors="pt")
    with torch.inference_mode():
        logits = model.net(**inputs).logits[0]
    red = model.tokenizer.convert_tokens_to_ids("red")
    assert inputs["input_ids"][0, -1] == red
    assert scores[0] == pytest.approx(float(torch.log_softmax(logits[-2].float(), -1)[red]), abs=1e-4)
    assert scores[1] < 0 and len(scores) == 2

    examples = [e.with_(choices=("red", "yes", "2")) for e in toy_examples[:5]]
    examples.append(examples[0].with_(id="nli", question="a red circle", label="neutral", meta={"task": "e-snli-ve"}))
    runs = {}
    for bs in (1, 8):  # the 1/3/8 sweep is in test_hf_vqa_adapter.py; chat models are slower
        cache = PredictionCache(tmp_path / f"c{bs}.sqlite")
        runner = Predictor(model, cache=cache, batch_size=bs, progress=False)
        runs[bs] = (runner.predict(examples, "answer"), runner.predict(examples, "score_choices"))
        cache.close()
    for answers, choices in runs.values():
        assert [p.answer for p in answers] == [p.answer for p in runs[1][0]]
        assert np.allclose([p.choice_scores for p in choices], [p.choice_scores for p in runs[1][1]], atol=1e-4)
    nli = runs[1][0][-1]
    assert nli.answer in ("entailment", "neutral", "contradiction") and set(nli.answer_scores) == {
        "entailment", "neutral", "contradiction"}
    yes_no = [p for e, p in zip(examples, runs[1][0]) if task_of(e.question) == "yes/no"]
    assert all(p.answer in ("yes", "no") for p in yes_no)
    explanations = model.explain(examples[:2], ["red", "yes"])
    assert len(explanations) == 2 and all(isinstance(e, str) for e in explanations)
