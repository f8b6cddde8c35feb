"""Issue 24, eighth round: one test per rule 41-42 of docs/counterfactual.md, each holding a
row the blind judge of the eighth round (VQA-X test) rejected."""

from __future__ import annotations

import pytest
from helpers_quality import quality

from vqa_harness_plugins.generators.counterfactual.text import tokenize


@pytest.mark.parametrize("question", [
    "What does the red case used for?",  # the judge failed this row in all four colour kinds
    "Why did the man stopped?",
    "Does the dog looked happy?",
])
def test_do_support_with_a_past_form_is_ungrammatical(modes, question):
    # rule 41: after do/does/did (also after a wh-word) the verb is a base form
    assert set(modes[1].perturb(question).values()) == {"ungrammatical"}


@pytest.mark.parametrize("question", [
    "What does the sign say?",
    "Did the man cut the cake?",  # "cut" may be tagged VBD: no -ed
    "Why does the cat need food?",  # -eed is a base form
    "Does this board look painted?",
    "What did the woman do with the bag?",
    "Does the animal look tired?",  # the tagger reads look/NN tired/VBN: "look" may be the verb
    "Does this bus transport disabled people?",
])
def test_do_support_with_a_base_form_is_kept(modes, question):
    assert "ungrammatical" not in modes[1].perturb(question).values()


def test_a_deletion_never_doubles_a_word(modes):
    # rule 42: "Is this a meat based or veggie based dish?" -> not "a meat based based dish"
    out = quality(modes, "Is this a meat based or veggie based dish?", "deletion_noun")
    words = [t.text.lower() for t in tokenize(out)] if " " in out else []
    assert all(a != b for a, b in zip(words, words[1:])), out

