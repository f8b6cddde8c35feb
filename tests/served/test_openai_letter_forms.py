"""How `openai` reads a lettered multiple-choice answer written as text (no log-probabilities):
the forms chat models and hosted APIs commonly write, each naming one option."""

from __future__ import annotations

import pytest

from vqa_harness_plugins.models.served.messages import LETTER_FLOOR, letters_from_text

CHOICES = ["red", "blue", "green", "a dog"]


def _pick(text: str) -> str | None:
    scores = letters_from_text(text, CHOICES)
    return None if scores is None else "ABCD"[scores.index(0.0)]


@pytest.mark.parametrize("text", [
    "B", "(B)", "[B]", "B.", "B. blue", "B) blue", "B: blue", "B, blue", "B blue", "(B) blue", "B\nBecause ...",
    "The answer is B", "The answer is (B).", "Answer: B", "The answer is: B",
    "**B**", "**B. blue**", "**Answer:** B", "*B*", "`B`", '"B"', "'B'",
    "The correct answer is B.", "The correct answer is (B) blue.", "The best option is B.",
    "Option B", "Option B.", "Option (B)", "Choice B",
    "b", "(b)", "b.", "blue", "Blue.", "The answer is blue.",
])
def test_a_common_answer_form_names_its_option(text):
    assert _pick(text) == "B"


@pytest.mark.parametrize("text, expected", [
    ("A", "A"), ("A.", "A"), ("A. red", "A"), ("a", "A"), ("**A**", "A"),
    ("A dog", "D"), ("a dog", "D"),  # an option's text, not the letter A opening a sentence
    ("I think it is B", None), ("E", None), ("b blue", None), ("maybe", None),
])
def test_a_sentence_or_a_letter_without_option_is_not_read_as_one(text, expected):
    assert _pick(text) == expected


def test_a_lower_case_letter_that_is_an_options_text_is_that_option():
    # Options "a", "b", "c": the answer "b" is option B's text and its letter alike; "c" reads as C.
    assert letters_from_text("c", ["b", "c", "a"]) == [LETTER_FLOOR, 0.0, LETTER_FLOOR]


@pytest.mark.parametrize("text", ["A, B", "B, C", "(A) and (B)", "B or C", "A or B", "(B) or (C)", "B. C."])
def test_an_answer_naming_two_letters_names_no_option(text):
    # A hedge is not the first option it names: scored as a tie, as an answer naming none is.
    assert _pick(text) is None


@pytest.mark.parametrize("text, expected", [
    ("The answer is a", None), ("Answer: a", None), ("The answer is: a", None),  # "... a dog", cut off
    ("The answer is (a)", "A"), ("The answer is a.", "A"), ("Option a", "A"), ("The answer is b", "B"),
    ("The answer is A", "A"), ("The answer is a dog", "D"),
    # the word "option" or "choice" makes it a letter, with the prefix's ":" or "is" after it
    ("Choice: a", "A"), ("option: a", "A"), ("The correct option is a", "A"), ("The best choice is: a", "A"),
])
def test_a_lower_case_a_after_an_answer_prefix_is_the_article(text, expected):
    assert _pick(text) == expected
