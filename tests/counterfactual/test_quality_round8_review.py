"""Review of rules 41 and 43 (issue 24, eighth and ninth rounds): natural questions the
agreement checks must not skip as `ungrammatical`, written for the tests (no judged rows)."""

from __future__ import annotations

import pytest
from helpers_quality import quality


@pytest.mark.parametrize("question", [
    # rule 41: a participle after the subject's noun opens a reduced relative clause; the
    # verb after do-support comes later ("hold", "look", "have", "mean")
    "What does the man dressed in red hold?",
    "Does the woman dressed in white look happy?",
    "Why does the car parked on the street have a ticket?",
    "What do the words printed on the shirt mean?",
    "What does the box labeled fragile contain?",
    "What does the dog tied to the pole want?",
])
def test_a_reduced_relative_after_do_support_is_kept(modes, question):
    assert "ungrammatical" not in modes[1].perturb(question).values()


@pytest.mark.parametrize("question", [
    "Why did the cat chased the mouse?",  # the noun after the past form is an object
    "How did the man fixed the bike?",
])
def test_a_past_form_with_an_object_after_do_support_is_still_ungrammatical(modes, question):
    assert set(modes[1].perturb(question).values()) == {"ungrammatical"}


@pytest.mark.parametrize("question", [
    # rule 43: a plural the tagger split or mis-tagged, or a common zero plural
    "Are the remote controls on the couch?",  # controls/VBZ
    "Are the door handles silver?",  # handles/VBZ
    "Are the water skis yellow?",  # skis/VB
    "Are the shorts blue?",  # shorts/NNS blue/NN: the head is the plural before it
    "Are the stairs steep?",  # stairs/JJ steep/NN
    "What color are the fish?",
    "Are the fish alive?",
    "Were the fish caught?",
    "What are the fish in the tank?",
])
def test_plural_be_with_a_plural_the_tagger_missed_is_kept(modes, question):
    assert "ungrammatical" not in modes[1].perturb(question).values()


def test_fish_after_plural_be_is_plural(modes):
    # a zero plural lemminflect lists second: "What color are the animal?" before
    assert quality(modes, "What color are the fish?", "hypernym_noun") != "What color are the animal?"
