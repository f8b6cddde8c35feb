"""`protocol=lmms-eval` (plugins/models/hf/lmms_eval.py): lmms-eval's vqav2 answer processing on
a table of hand-written cases, and what `hf-vlm` sends and returns under it (a tiny LLaVA)."""

from __future__ import annotations

import pytest

from harness.errors import UsageError
from vqa_harness_plugins.models.hf.lmms_eval import PROMPT, lmms_eval_answer
from vqa_harness_plugins.models.hf.prompts import PROMPTS, build_prompt

#: (generated text, what lmms-eval's vqav2_process_results compares), each worked out from its
#: rules (utils.py: newlines/tabs to spaces, strip; EvalAIAnswerProcessor.process_punctuation,
#: then process_digit_article) and checked against its code (v0.7.2).
CASES = [
    ("Yes", "yes"), ("No.", "no"), ("Two", "2"), ("ten.", "10"), ("none", "0"),
    ("The red one", "red 1"),                  # articles dropped, number words to digits
    ("Yes, there is a dog.", "yes there is dog"),  # ", " deletes the comma; no yes/no extraction
    ("t-shirt", "t shirt"),                    # a mark touching no space becomes a space
    ("red / blue", "red blue"),                # ... one touching a space is deleted
    ("left/right", "left right"),
    ("(a) red", "red"),                        # "(" spaced, ")" deleted, "a" an article
    ('"Red"', "red"),
    ("What?!", "what"),
    ("man's", "man's"),                        # the apostrophe is no mark; "'s" is not split
    ("dont", "don't"),                         # the contractions table
    ("1,000", "1000"),                         # digits around a comma: every mark deleted
    ("1,,000", "1000"),                        # lmms-eval's `(?<=\d)(\,)+(?=\d)`; official: "1 000"
    ("1,000 t-shirts", "1000 tshirts"),
    ("3.5", "3.5"), ("e.g. red", "eg red"),    # a period before a digit stays, others go
    ("A: red", "a: red"), ("Answer: Yes", "answer: yes"),  # no prefix is dropped
    ("  red\nblue\t", "red blue"), ("Yes\n\nThe image shows", "yes image shows"),  # no line cut
    ("", ""),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0] or "empty" for c in CASES])
def test_answers_are_processed_as_lmms_eval_processes_them(text, expected):
    assert lmms_eval_answer(text) == expected


def test_periods_are_deleted_at_most_32_times_as_the_reference_does():
    assert lmms_eval_answer("." * 40 + "x") == "." * 8 + "x"


def test_lmms_evals_score_is_the_lenient_metric_of_the_processed_answer():
    # lmms-eval v0.4.1+ normalizes humans and prediction alike: ten "t-shirt" and "T-shirt." both
    # read "t shirt" (1); the official metric keeps agreeing humans raw (0), as the evaluation
    # server does with lmms-eval's submission file.
    from harness.metrics.vqa import vqa_accuracy, vqa_accuracy_lenient

    answer = lmms_eval_answer("T-shirt.")
    assert vqa_accuracy_lenient(answer, ["t-shirt"] * 10) == 1.0 and vqa_accuracy(answer, ["t-shirt"] * 10) == 0.0
    assert vqa_accuracy_lenient(lmms_eval_answer("Two"), ["2"] * 9 + ["two"]) == 1.0


def test_the_prompt_is_lmms_evals_vqav2_prompt():
    assert PROMPT.format(question="Is it red?") == "Is it red?\nAnswer the question using a single word or phrase."
    assert PROMPT == PROMPTS["short"]  # the harness's open-question prompt is the same text


# ----------------------------------------------------------------- hf-vlm
def _vlm(path, **options):
    pytest.importorskip("transformers")
    from vqa_harness_plugins.models.hf import HFVLMModel

    model = HFVLMModel(path=str(path), **options)
    model.setup("cpu")
    return model


def _three(toy_examples):
    open_q = next(e for e in toy_examples if e.question.lower().startswith(("what", "how")))
    yes_no = next(e for e in toy_examples if e.question.lower().startswith(("is ", "are ")))
    nli = open_q.with_(id="nli", question="a red circle", label="neutral", meta={"task": "e-snli-ve"})
    return open_q, yes_no, nli


def _recorded(model, monkeypatch, examples):
    """The texts the processor got and the max_new_tokens of each `net.generate` call."""
    texts, lengths = [], []
    processor, generate = model.processor, model.net.generate

    def record_texts(*args, **kwargs):
        texts.extend(kwargs.get("text") or [])
        return processor(*args, **kwargs)

    def record_length(*args, **kwargs):
        lengths.append(kwargs["max_new_tokens"])
        return generate(*args, **kwargs)

    class Recorder:
        __call__ = staticmethod(record_texts)

        def __getattr__(self, name):
            return getattr(processor, name)

    monkeypatch.setattr(model, "processor", Recorder())
    monkeypatch.setattr(model.net, "generate", record_length)
    answers = model.answer(examples)
    return texts, lengths, answers


def test_lmms_eval_asks_every_vqa_question_with_one_prompt_and_16_tokens(tiny_llava, toy_examples, monkeypatch):
    open_q, yes_no, nli = _three(toy_examples)
    model = _vlm(tiny_llava, protocol="lmms-eval")
    texts, lengths, answers = _recorded(model, monkeypatch, [open_q, yes_no, nli])
    for ex in (open_q, yes_no):  # generated from lmms-eval's prompt, yes/no included
        assert model.chat_prompt(f"{ex.question}\nAnswer the question using a single word or phrase.") in texts
    assert not any("with yes or no" in t for t in texts)
    assert lengths == [16]  # one generate call for both questions, lmms-eval's length
    # Entailment keeps the harness protocol: the entailment prompt, labels by log-likelihood.
    assert any(model.chat_prompt(build_prompt("entailment", nli.question)) in t for t in texts)
    assert answers[2].text in ("entailment", "neutral", "contradiction") and answers[2].scores
    assert all(isinstance(a, str) for a in answers[:2])  # generated, no label distribution


def test_the_harness_protocol_is_unchanged(tiny_llava, toy_examples, monkeypatch):
    open_q, yes_no, _ = _three(toy_examples)
    model = _vlm(tiny_llava)
    texts, lengths, _ = _recorded(model, monkeypatch, [open_q, yes_no])
    assert lengths == [10]  # only the open question is generated
    assert any(model.chat_prompt(build_prompt("yes/no", yes_no.question)) in t for t in texts)


def test_an_explicit_max_new_tokens_is_kept_and_yes_no_does_not_apply(tiny_llava, toy_examples, monkeypatch):
    model = _vlm(tiny_llava, protocol="lmms-eval", max_new_tokens=3)
    assert _recorded(model, monkeypatch, list(_three(toy_examples)[:2]))[1] == [3]
    with pytest.raises(UsageError, match="yes_no does not apply under protocol=lmms-eval"):
        _vlm(tiny_llava, protocol="lmms-eval", yes_no="generate")


def test_generated_answers_get_lmms_evals_processing_not_the_harness_cleaning(tiny_llava, toy_examples, monkeypatch):
    open_q, yes_no, _ = _three(toy_examples)
    replies = {open_q.question: "The answer is: Two.", yes_no.question: "Yes, there is a t-shirt."}
    for options, expected in (({"protocol": "lmms-eval"}, ["answer is: 2", "yes there is t shirt"]),
                              ({"yes_no": "generate"}, ["two", "yes"])):  # the harness's cleaning
        model = _vlm(tiny_llava, **options)
        monkeypatch.setattr(model, "generate", lambda images, prompts, n: [
            next(r for q, r in replies.items() if p.startswith(q)) for p in prompts])
        assert [a if isinstance(a, str) else a.text for a in model.answer([open_q, yes_no])] == expected, options


def test_the_default_protocol_leaves_the_fingerprint_as_it_was(tiny_llava):
    from harness.digest import digest
    from vqa_harness_plugins.models.hf import HFVLMModel

    default, harness = HFVLMModel(path=str(tiny_llava)), HFVLMModel(path=str(tiny_llava), protocol="harness")
    # The fingerprint as it was computed before the option existed (these keys, these values).
    before = {k: default.config[k] for k in ("autocast", "bucket", "dtype", "explain_max_new_tokens", "image_size",
                                             "max_new_tokens", "num_workers", "path", "revision",
                                             "trust_remote_code", "yes_no")}
    assert set(default.fingerprint_extra()) == {"precision", "prompts", "protocol", "transformers", "weights"}
    assert default.fingerprint() == harness.fingerprint() == digest({
        "model": "hf-vlm", "class": f"{HFVLMModel.__module__}.HFVLMModel", "config": before,
        "extra": default.fingerprint_extra()})
    lmms = HFVLMModel(path=str(tiny_llava), protocol="lmms-eval")
    assert lmms.fingerprint() != default.fingerprint()
    assert lmms.fingerprint_config()["protocol"] == "lmms-eval" and lmms.config["max_new_tokens"] == 16
    assert lmms.fingerprint_config()["lmms_eval_prompt"] == PROMPT
    assert HFVLMModel(path=str(tiny_llava), protocol="lmms-eval", max_new_tokens=10).fingerprint() != lmms.fingerprint()
