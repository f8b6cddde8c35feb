"""Issue 24, eleventh round: one test per rule 47-48 of docs/counterfactual.md, holding rows
the blind judges of the eighth to tenth rounds (VQA-X test) and the tune half rejected."""

from __future__ import annotations

import pytest
from helpers_quality import FixedSimilarity, quality, rejected

from vqa_harness_plugins.generators.counterfactual.relations import (
    HYPERNYM_SIMILARITY_FLOOR,
    SIMILARITY_FLOOR,
    far_apart,
)


def test_far_apart_has_a_floor_for_hypernyms_but_not_for_top_categories():
    below = FixedSimilarity(HYPERNYM_SIMILARITY_FLOOR - 0.01)
    assert far_apart(below, "hypernym", "cake", "block") == "dissimilar"
    assert far_apart(below, "hypernym", "baby", "person", top=True) == ""  # person, animal, plant
    assert far_apart(FixedSimilarity(HYPERNYM_SIMILARITY_FLOOR), "hypernym", "wall", "structure") == ""
    between = FixedSimilarity((HYPERNYM_SIMILARITY_FLOOR + SIMILARITY_FLOOR) / 2)
    assert far_apart(between, "hypernym", "sandwich", "dish") == ""
    assert far_apart(between, "sibling", "bench", "chair") == "dissimilar"
    assert far_apart(below, "synonym", "big", "large") == ""


@pytest.mark.parametrize("question, wrong", [
    ("Should this cake be eaten by only one person?", "block"),  # the issue's own example; judged "no"
    ("Is this a tablet?", "block"),  # judged "no" (tenth round)
    ("Does the toilet have a design?", "organization"),  # judged "no" (tenth round)
    ("What is above the mirror?", "device"),  # judged "no" (tenth round)
    ("What beverage is in the cup?", "article"),  # judged "no" (ninth round)
    ("What kind of beer is in the foreground?", "view"),  # judged "no" (eighth round)
])
def test_a_hypernym_far_from_the_word_is_another_senses_parent(modes, question, wrong):
    # rule 47: the parent of a sense the question does not use is far from the word
    out = quality(modes, question, "hypernym_noun")
    assert wrong not in out.split(), out
    assert rejected(modes, question, "hypernym_noun").get("dissimilar"), out


def test_a_dissimilar_parent_ends_the_chain(modes):
    # rule 47: hood -> "criminal" (hoodlum) is far from "hood"; its own parent "person" is a
    # top category, exempt from the floor, but it is the same wrong sense
    assert quality(modes, "What type of hood is this?", "hypernym_noun") in ("dissimilar", "rare_word")
    assert rejected(modes, "What type of hood is this?", "hypernym_noun").get("dissimilar")


@pytest.mark.parametrize("question, expected", [
    ("What is the baby doing?", "What is the person doing?"),  # a top category: baby/person 0.07
    ("Is the dog running?", "Is the animal running?"),
    ("What kind of sandwich is this?", "What kind of dish is this?"),
])
def test_a_near_or_top_category_hypernym_is_kept(modes, question, expected):
    assert quality(modes, question, "hypernym_noun") == expected


@pytest.mark.parametrize("question, expected", [
    # judged "no" in the tenth round: "Is the elephant movement in a herd?"
    ("Is the elephant walking in a herd?", "Is the animal walking in a herd?"),
    # judged "no" in the ninth round: "What activity is the athlete playing?" (athlete/JJ playing/NN)
    ("What sport is the athlete playing?", "What sport is the person playing?"),
])
def test_a_progressive_the_tagger_called_a_noun_is_a_verb(modes, question, expected):
    # rule 48: the -ing word ends an inverted be-question's subject
    assert quality(modes, question, "hypernym_noun") == expected


def test_a_progressive_keeps_its_subject_plural(modes):
    # rule 48 makes the subject's JJ a noun, not its NNS a singular ("children/NNS training/NN":
    # it became "Are the person training?" and "Are the street child training?")
    assert quality(modes, "Are the children training?", "hypernym_noun") == "Are the people training?"
    assert quality(modes, "Are the children training?", "hyponym_noun") == "Are the street children training?"


def test_a_progressive_is_not_deleted_as_a_noun(modes):
    # rule 48, from the tune half: the deletion took "bus" as a modifier of "advertising"
    assert quality(modes, "What kind of product is the bus advertising?", "deletion_noun") == \
        "What is the bus advertising?"


@pytest.mark.parametrize("question, deletion", [
    ("Is the hotel building in the city?", "Is the building in the city?"),  # a thing named by -ing
    ("Is this a professional sporting event?", "Is this professional?"),  # an adjective before it
    # a noun follows: with "shopping" a verb the question would lose its predicate as a
    # well-formed "Is the city shopping center?"
    ("Is the city shopping center in the suburbs?", "deletion_parse"),
])
def test_an_ing_noun_that_names_a_thing_stays_a_noun(modes, question, deletion):
    assert quality(modes, question, "deletion_noun") == deletion


# Rules 49-50, from the verdicts on the eleventh round's second sheet


def test_a_replacement_inside_the_question_keeps_its_own_case(modes):
    # rule 49: "an Asian country" -> "a Country" (the judge: "odd capital"); the original's
    # capital came from the proper adjective, not from the start of the question
    assert quality(modes, "Is this in an Asian country?", "hypernym_noun") == "Is this in a country?"
    assert quality(modes, "Dogs are playing?", "hypernym_noun") == "Animals are playing?"


@pytest.mark.parametrize("question, expected", [
    ("What sport are these athletes playing?", "What sport are these people playing?"),  # judged: "persons unnatural"
    ("What are the men doing?", "What are the people doing?"),  # "persons" was refused by rule 33's register
])
def test_the_plural_of_person_is_people(modes, question, expected):
    # rule 50: lemminflect gives only "persons"
    assert quality(modes, question, "hypernym_noun") == expected
