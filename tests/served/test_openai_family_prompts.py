"""A served PaliGemma is asked in its task syntax ("answer en {question}"), as `hf-vlm` asks
one loaded in-process (plugins/models/hf/families.py): chosen by the served model's name, or
by the `prompts` option for a name that does not say (docs/served-models.md)."""

from __future__ import annotations

import pytest
from helpers_fake import DEFAULT_FINGERPRINT, completion, task_examples

from harness.errors import UsageError
from vqa_harness_plugins.models.served import OpenAIModel

SHORT = "\nAnswer the question using a single word or phrase."


def _texts(fake, name, tmp_path, **options):
    fake.reply = lambda r, n: (200, completion("yes"))
    model = OpenAIModel(base_url=fake.base_url, model=name, max_retries=0, concurrency=1, **options)
    model.setup("cpu")
    examples = task_examples(tmp_path)
    model.answer(examples)
    model.explain(examples[:1], ["red"])
    model.score_choices([examples[0].with_(choices=("red", "blue"))])
    return sorted(r.text for r in fake.requests)


@pytest.mark.parametrize("name, options", [("google/paligemma-3b-mix-224", {}), ("google/PaliGemma2-3b-mix-448", {}),
                                           ("pg-alias", {"prompts": "paligemma"})])
def test_a_served_paligemma_is_asked_in_its_task_syntax(fake, tmp_path, name, options):
    texts = _texts(fake, name, tmp_path, **options)
    assert "answer en What color is the car?" in texts and "answer en Is there a dog?" in texts
    # Entailment and explain keep the shared prompts (PaliGemma has no syntax for them, as in
    # hf-vlm); multiple choice keeps the lettered prompt.
    assert any(t.startswith('Does the image entail') for t in texts)
    assert "What color is the car?\nThe answer is: red. Explain why, in one sentence." in texts
    assert any(t.startswith("What color is the car?\nA. red\nB. blue\n") for t in texts)
    assert not any(t.endswith(SHORT) for t in texts)


@pytest.mark.parametrize("name, options", [("llava-hf/llava-1.5-7b-hf", {}),
                                           ("google/paligemma-3b-mix-224", {"prompts": "shared"})])
def test_other_models_and_prompts_shared_get_the_shared_prompts(fake, tmp_path, name, options):
    texts = _texts(fake, name, tmp_path, **options)
    assert "What color is the car?" + SHORT in texts
    assert "Is there a dog?\nAnswer the question with yes or no." in texts
    assert not any(t.startswith("answer en") for t in texts)


def test_lmms_eval_keeps_its_one_prompt_for_every_family(fake, tmp_path):
    texts = _texts(fake, "google/paligemma-3b-mix-224", tmp_path, protocol="lmms-eval")
    assert "What color is the car?" + SHORT in texts and "Is there a dog?" + SHORT in texts


def test_the_prompts_are_in_the_fingerprint_and_the_default_is_unchanged():
    def fp(name="m", **options):
        return OpenAIModel(base_url="http://127.0.0.1:1/v1", model=name, **options).fingerprint()

    assert fp() == fp(prompts="auto") == fp(prompts="shared") == DEFAULT_FINGERPRINT
    assert fp(prompts="paligemma") != DEFAULT_FINGERPRINT
    # The same weights under two names, one saying what they are: the same prompts, the same answers.
    assert fp("paligemma-3b") == fp("paligemma-3b", prompts="paligemma") != fp("paligemma-3b", prompts="shared")


def test_an_unknown_prompt_set_is_a_one_line_error():
    with pytest.raises(UsageError, match=r"option prompts='llava' must be one of auto, shared, paligemma"):
        OpenAIModel(base_url="http://127.0.0.1:1/v1", model="m", prompts="llava")
