"""`openai:protocol=lmms-eval` against the fake server: what each question sends (prompt, length,
log-probabilities), how the reply is read, and the fingerprint (plugins/models/hf/lmms_eval.py)."""

from __future__ import annotations

import pytest
from helpers_fake import DEFAULT_FINGERPRINT, MODEL, completion, task_examples

from harness.errors import UsageError
from vqa_harness_plugins.models.served import OpenAIModel

REPLIES = {"What color is the car?": "The answer is: Two.", "Is there a dog?": "Yes, there is a t-shirt.",
           "Two dogs play.": "Neutral.", "Which one?": "B"}
LMMS = "\nAnswer the question using a single word or phrase."


def _model(fake, **options):
    fake.reply = lambda r, n: (200, completion(next(v for k, v in REPLIES.items() if k in r.text)))
    model = OpenAIModel(base_url=fake.base_url, model=MODEL, max_retries=0, concurrency=1, **options)
    model.setup("cpu")
    return model


def _sent(fake):
    return {r.text.split("\n")[0]: r for r in fake.requests}


def test_lmms_eval_sends_every_vqa_question_with_one_prompt_and_16_tokens(fake, tmp_path):
    examples = task_examples(tmp_path)
    answers = _model(fake, protocol="lmms-eval").answer(examples)
    sent = _sent(fake)
    for question in ("What color is the car?", "Is there a dog?"):  # yes/no included, no log-probabilities
        assert sent[question].text == question + LMMS
        assert sent[question].body["max_tokens"] == 16 and "logprobs" not in sent[question].body
    # lmms-eval's processing of the reply, not the harness's cleaning or yes/no reading.
    assert answers[:2] == ["answer is: 2", "yes there is t shirt"]
    # Entailment keeps the harness protocol: its prompt, log-probabilities asked, max_tokens 10.
    nli = next(r for q, r in sent.items() if q.startswith("Does the image entail"))
    assert nli.body["max_tokens"] == 10 and nli.body["logprobs"] is True and answers[2] == "neutral"


def test_multiple_choice_and_the_harness_protocol_are_unchanged(fake, tmp_path):
    choice = task_examples(tmp_path)[0].with_(question="Which one?", choices=("red", "blue"))
    _model(fake, protocol="lmms-eval").score_choices([choice])
    assert fake.requests[-1].body["max_tokens"] == 10 and "A. red" in fake.requests[-1].text
    fake.requests.clear()
    answers = _model(fake).answer(task_examples(tmp_path))
    sent = _sent(fake)
    assert sent["Is there a dog?"].text == "Is there a dog?\nAnswer the question with yes or no."
    assert sent["What color is the car?"].body["max_tokens"] == 10 and answers[:2] == ["two", "yes"]


def test_an_explicit_max_tokens_is_the_vqa_length(fake, tmp_path):
    _model(fake, protocol="lmms-eval", max_tokens=5).answer(task_examples(tmp_path)[:2])
    assert {r.body["max_tokens"] for r in fake.requests} == {5}


def test_the_budget_reserves_the_length_sent(fake, tmp_path, monkeypatch):
    model = _model(fake, protocol="lmms-eval")
    reserved = []
    acquire = model.endpoint.acquire
    monkeypatch.setattr(model.endpoint, "acquire", lambda tokens, *a: reserved.append(tokens) or acquire(tokens, *a))
    model.answer(task_examples(tmp_path))
    assert sorted(reserved) == [10, 16, 16]


def test_the_default_protocol_leaves_the_fingerprint_as_it_was():
    def fp(**options):
        return OpenAIModel(base_url="http://127.0.0.1:1/v1", model="m", **options).fingerprint()

    assert fp() == fp(protocol="harness") == DEFAULT_FINGERPRINT
    lmms = fp(protocol="lmms-eval")
    assert lmms != DEFAULT_FINGERPRINT
    # Explicit max_tokens=10 sends 10 where the default sends 16: not the same predictions.
    assert len({lmms, fp(protocol="lmms-eval", max_tokens=10), fp(protocol="lmms-eval", max_tokens=16)}) == 3


@pytest.mark.parametrize("bad", ["lmms", "LMMS-EVAL"])
def test_an_unknown_protocol_is_a_one_line_error(bad):
    with pytest.raises(UsageError, match=r"option protocol='.*' must be one of harness, lmms-eval"):
        OpenAIModel(base_url="http://127.0.0.1:1/v1", model="m", protocol=bad)
