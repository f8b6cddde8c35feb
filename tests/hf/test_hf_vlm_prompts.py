"""What `hf-vlm` sends per family: the prompt text each task puts after the image, checked on
the texts the processor receives (tiny random checkpoints; the answers do not matter)."""

from __future__ import annotations

import pytest
import vlm_families_a as a

from vqa_harness_plugins.models.hf.prompts import PROMPTS

pytest.importorskip("transformers")


class _Recorder:
    """The model's processor, with the texts of every call kept."""

    def __init__(self, inner):
        self.inner, self.texts = inner, []

    def __call__(self, *args, **kwargs):
        self.texts.extend(kwargs.get("text") or [])
        return self.inner(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def _sent(model, examples, capability):
    recorder = _Recorder(model.processor)
    model.processor = recorder
    try:
        getattr(model, capability)(examples)
    finally:
        model.processor = recorder.inner
    return recorder.texts


@pytest.fixture(scope="module")
def paligemma(tmp_path_factory):
    from vqa_harness_plugins.models.hf import HFVLMModel

    model = HFVLMModel(path=str(a.build_paligemma(tmp_path_factory.mktemp("paligemma"))), max_new_tokens=2)
    model.setup("cpu")
    return model


def test_paligemma_is_asked_with_its_own_vqa_task_prefix(paligemma, toy_examples):
    # PaliGemma's published VQA prompt is "answer en {question}" (the processor adds the image
    # tokens, BOS and the newline); the chat families' instruction is not its prompt format.
    short = next(e for e in toy_examples if e.question.lower().startswith(("what", "how")))
    yes_no = next(e for e in toy_examples if e.question.lower().startswith(("is ", "are ")))
    image = paligemma.processor.image_token
    for ex in (short, yes_no):
        assert set(_sent(paligemma, [ex], "answer")) == {f"{image}answer en {ex.question}"}
    choice = short.with_(choices=("red", "blue"))
    assert set(_sent(paligemma, [choice], "score_choices")) == {f"{image}answer en {short.question}"}


def test_the_prompts_are_in_the_fingerprint(paligemma, tiny_llava):
    from vqa_harness_plugins.models.hf import HFVLMModel

    llava = HFVLMModel(path=str(tiny_llava))
    assert llava.fingerprint_extra()["prompts"] == PROMPTS
    assert paligemma.fingerprint_extra()["prompts"]["short"] == "answer en {question}"
