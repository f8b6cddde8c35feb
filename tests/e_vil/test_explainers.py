"""Retrieval / template explainers and the hypothesis-only baseline."""

from __future__ import annotations

import pytest

from harness.types import Example
from vqa_harness_plugins.models.explainers import (
    HypothesisOnly,
    RetrievalExplainer,
    TemplateExplainer,
)


def _nli(i: int, label: str, hyp: str, expl: str) -> Example:
    return Example(id=f"p{i}", question=hyp, image_id=f"{i}.jpg", label=label,
                   choices=("entailment", "neutral", "contradiction"), explanations=(expl,))


TRAIN = [
    _nli(0, "contradiction", "The dog is sleeping on a couch.", "a dog cannot run and sleep at once"),
    _nli(1, "entailment", "A dog is running outside.", "running in a field is running outside"),
    _nli(2, "neutral", "The dog is chasing its owner.", "we cannot know who the dog chases"),
    _nli(3, "contradiction", "A cat sleeps indoors.", "a cat is not a dog"),
    _nli(4, "entailment", "A man is riding a bike.", "a cyclist is a man riding"),
]


def test_retrieval_explains_with_the_most_similar_train_example_of_that_answer():
    m = RetrievalExplainer(k=3)
    m.fit(TRAIN, seed=0)
    q = _nli(9, "", "The dog is sleeping on the couch.", "x")
    assert m.answer([q])[0].text == "contradiction"
    assert m.explain([q], ["contradiction"]) == ["a dog cannot run and sleep at once"]
    # the answer to justify selects the pool: the most similar "entailment" example
    assert m.explain([q], ["entailment"]) == ["running in a field is running outside"]
    # an answer nobody gave in training: the most similar example overall
    assert m.explain([q], ["maybe"]) == ["a dog cannot run and sleep at once"]
    assert m.fingerprint() != RetrievalExplainer(k=3).fingerprint()


def test_template_and_hypothesis_only():
    t = TemplateExplainer()
    t.fit(TRAIN, seed=0)
    q = _nli(9, "", "Is the dog sleeping?", "x")
    assert t.explain([q, q], ["contradiction", "yes"]) == ["the image does not show that the dog sleeping",
                                                           "the image shows the dog sleeping"]
    h = HypothesisOnly()
    h.fit(TRAIN, seed=0)
    (a,) = h.answer([_nli(8, "", "A cat sleeps on a couch.", "x")])
    assert a.text == "contradiction" and sum(a.scores.values()) == pytest.approx(1.0)
    assert h.explain([q], [a.text]) == ["a dog cannot run and sleep at once"]


def test_hypothesis_only_beats_chance_on_real_esnlive(shared_data):
    from vqa_harness_plugins.datasets.e_vil import ESNLIVE

    dev = ESNLIVE(data_dir=shared_data).load("dev")[:2000]
    fit, ev = dev[:1500], dev[1500:]
    h = HypothesisOnly()
    h.fit(fit, seed=0)
    acc = sum(a.text == ex.label for a, ex in zip(h.answer(ev), ev)) / len(ev)
    assert acc > 0.45  # three balanced classes: chance is about 1/3
