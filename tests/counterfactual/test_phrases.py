"""Noun runs, noun phrases, deletion spans and the parse check of the quality mode,
on hand-tagged questions (no tagger needed)."""

from __future__ import annotations

import pytest

from vqa_harness_plugins.generators.counterfactual import tokenize
from vqa_harness_plugins.generators.counterfactual.phrases import (
    deletion_spans,
    noun_phrase_start,
    noun_runs,
    reads_as_question,
)


def _tagged(question: str, tags: str):
    tokens = tokenize(question)
    tags = tags.split()
    assert len(tokens) == len(tags)
    return tokens, tags


def test_noun_runs_and_phrases():
    tokens, tags = _tagged("Is the big traffic light red ?", "VBZ DT JJ NN NN JJ .")
    assert noun_runs(tags) == [(3, 4)]
    assert noun_phrase_start(tokens, tags, 3) == 1  # "the big traffic light"
    tokens, tags = _tagged("Is the man 's hat red ?", "VBZ DT NN POS NN JJ .")
    assert noun_phrase_start(tokens, tags, 4) == 1  # the possessor belongs to the phrase


def test_deletion_spans():
    tokens, tags = _tagged("Is the cat sitting on the table ?", "VBZ DT NN VBG IN DT NN .")
    assert [(s.first, s.last) for s in deletion_spans(tokens, tags)] == [(4, 6)]
    tokens, tags = _tagged("Is this a man or a woman ?", "VBZ DT DT NN CC DT NN .")
    assert (4, 6) in [(s.first, s.last) for s in deletion_spans(tokens, tags)]
    tokens, tags = _tagged("What kind of shoes is she wearing ?", "WP NN IN NNS VBZ PRP VBG .")
    spans = [(s.first, s.last) for s in deletion_spans(tokens, tags)]
    assert (1, 3) in spans and (2, 3) not in spans  # never "What kind is she wearing?"
    tokens, tags = _tagged("Is this a traffic light ?", "VBZ DT DT NN NN .")
    assert deletion_spans(tokens, tags) == []  # a predicate noun phrase cannot go
    tokens, tags = _tagged("Do you see the dog ?", "VBP PRP VB DT NN .")
    assert deletion_spans(tokens, tags) == []
    assert deletion_spans(tokens, tags, lambda i: True) == []  # rule 57: an object goes after a progressive only
    tokens, tags = _tagged("Is he flipping the board ?", "VBZ PRP VBG DT NN .")
    assert [(s.first, s.last) for s in deletion_spans(tokens, tags, lambda i: True)] == [(3, 4)]
    tokens, tags = _tagged("Is he teaching the child to ski ?", "VBZ PRP VBG DT NN TO VB .")
    assert deletion_spans(tokens, tags, lambda i: True) == []  # nor before "to"


@pytest.mark.parametrize("question, tags, ok", [
    ("Is the cat sitting ?", "VBZ DT NN VBG .", True),
    ("Is the cat ?", "VBZ DT NN .", False),            # a be-question without a predicate
    ("What is ?", "WP VBZ .", False),                   # too short
    ("What is this ?", "WP VBZ DT .", True),            # a demonstrative may end it
    ("Is this a ?", "VBZ DT DT .", False),              # dangling determiner
    ("What kind of cheese is ?", "WP NN IN NN VBZ .", False),
    ("Does this man riding ?", "VBZ DT NN VBG .", False),  # do-question without a base verb
    ("What is being played ?", "WP VBZ VBG VBN .", True),
    ("Is this a man ?", "VBZ DT DT NN .", True),
])
def test_reads_as_question(question, tags, ok):
    tokens, tags = _tagged(question, tags)
    assert reads_as_question(tokens, tags, question.split()[0]) is ok


def test_a_stranded_preposition_of_the_original_may_stay():
    tokens, tags = _tagged("What are the people sitting in ?", "WP VBP DT NNS VBG IN .")
    assert not reads_as_question(tokens, tags, "What")
    assert reads_as_question(tokens, tags, "What", original_last="in")
