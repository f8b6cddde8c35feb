"""Issue 24, thirteenth round: rule 55 of docs/counterfactual.md, holding rows the blind
judge of the thirteenth round (VQA v2 val) rejected."""

from __future__ import annotations

import pytest
from helpers_quality import quality, rejected


@pytest.mark.parametrize("question", [
    "What numbers appear at the top of the bus?",  # -> "seem at the top" (judged "no")
    "What is the name of the service that appears on the trailer?",  # -> "seems on" (judged "no")
])
def test_a_verb_before_a_preposition_needs_a_frame_that_takes_one(modes, question):
    # rule 55: look.v.02 (appear, seem) has only the frames 6, 7 and 28
    assert "seem" not in quality(modes, question, "synonym_verb")
    assert rejected(modes, question, "synonym_verb").get("verb_frame")


@pytest.mark.parametrize("question, expected", [
    ("What are these toys placed on?", "What are these toys put on?"),  # a passive (put.v.01 has frame 21 too)
    ("Does the building appear to be abandoned?", "Does the building seem to be abandoned?"),  # "to" + verb
    ("Does everyone appear relaxed here?", "Does everyone seem relaxed here?"),
])
def test_a_verb_whose_frames_fit_keeps_its_synonym(modes, question, expected):
    assert quality(modes, question, "synonym_verb") == expected


@pytest.mark.parametrize("question, expected", [
    ("Is the store closed for the day?", "Is the store shut for the day?"),  # close.v.01: frames 8, 11 only
])
def test_a_passive_takes_a_prepositional_phrase_without_a_frame_for_one(modes, question, expected):
    # rule 55 asks a frame for the verb's own prepositional phrase; after a passive the
    # phrase is the agent ("by ...") or an adjunct ("for the day"), which any transitive verb takes
    assert quality(modes, question, "synonym_verb") == expected


def test_word_similarity_memo_reads_each_phrase_once():
    # SenseVectors.word_similarity caches by the phrases' words: phrases given as iterators
    # (read once) must not be cached as "no vector" (None) under their key
    import numpy as np

    from vqa_harness_plugins.nlp.sense_vectors import DIMENSIONS, SenseVectors

    rows = np.zeros((2, DIMENSIONS), dtype=np.float16)
    rows[0, 0], rows[1, :2] = 1, 1
    vectors = SenseVectors(["cake", "block"], [], rows.tobytes())
    assert vectors.word_similarity(iter(["cake"]), iter(["block"])) == pytest.approx(0.7071, abs=1e-3)
    assert vectors.word_similarity(["cake"], ["block"]) == pytest.approx(0.7071, abs=1e-3)
