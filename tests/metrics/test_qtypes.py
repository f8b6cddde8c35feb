"""VQA question types (word-prefix match) and answer types (majority over humans)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from harness.errors import DataError
from harness.metrics import (
    ANSWER_TYPES,
    FALLBACK_QUESTION_TYPE,
    QUESTION_TYPES,
    answer_type,
    human_answer_type,
    question_type,
)


def test_question_types_equal_official_file(shared_data) -> None:
    path = shared_data / "vqa" / "mscoco_question_types.txt"
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    assert QUESTION_TYPES == tuple(path.read_text().splitlines())


def test_question_types_shape() -> None:
    assert len(QUESTION_TYPES) == 65 == len(set(QUESTION_TYPES))
    assert FALLBACK_QUESTION_TYPE in QUESTION_TYPES


@pytest.mark.parametrize(
    "question, expected",
    [
        ("How many people are in the room?", "how many people are in"),
        ("How many people are there?", "how many people are"),
        ("How many dogs?", "how many"),
        ("How is the weather?", "how"),
        ("However, is it?", FALLBACK_QUESTION_TYPE),   # "how" is a whole word only
        ("Is there a cat?", "is there a"),
        ("Is there any milk?", "is there"),
        ("Is the cat black?", "is the"),
        ("Is theater open?", "is"),                     # "is the" is not a prefix of it
        ("Is it?", "is it"),                            # punctuation never sticks to words
        ("Is this an apple?", "is this an"),
        ("Is this a dog?", "is this a"),
        ("Is this dog big?", "is this"),
        ("Does it rain?", FALLBACK_QUESTION_TYPE),      # "do" does not match "does"
        ("Does the man smile?", "does the"),
        ("Do you see it?", "do you"),
        ("WHAT COLOR IS THE CAR?", "what color is the"),
        ("What color is it?", "what color is"),
        ("What color are the cars?", "what color are the"),
        ("What colors?", "what"),
        ("What is the color of the sky?", "what is the color of the"),
        ("What is the man doing?", "what is the man"),
        ("What is the mannequin wearing?", "what is the"),
        ("What's this?", FALLBACK_QUESTION_TYPE),       # "what's" is not the word "what"
        ("  what\tsport is being played?", "what sport is"),
        ("Where was the photo taken?", FALLBACK_QUESTION_TYPE),
        ("None of the above apply?", "none of the above"),
        ("", FALLBACK_QUESTION_TYPE),
    ],
)
def test_question_type(question: str, expected: str) -> None:
    assert question_type(question) == expected


@pytest.mark.parametrize(
    "answer, expected",
    [
        ("yes", "yes/no"), ("No.", "yes/no"), ("YES", "yes/no"),
        ("2", "number"), ("two", "number"), ("none", "number"), ("3.5", "number"),
        ("1,000", "number"), ("twenty", "number"), ("twenty five", "number"),
        ("10:30", "other"), ("2 or 3", "other"), ("red", "other"), ("yes and no", "other"),
        ("", "other"),
    ],
)
def test_human_answer_type(answer: str, expected: str) -> None:
    assert human_answer_type(answer) == expected


def test_answer_type_majority_and_ties() -> None:
    assert ANSWER_TYPES == ("yes/no", "number", "other")
    assert answer_type(["yes"] * 10) == "yes/no"
    assert answer_type(["2"] * 6 + ["red"] * 4) == "number"
    assert answer_type(["yes"] * 4 + ["red", "blue", "green", "pink", "gray", "tan"]) == "other"
    # 5 against 5: the most frequent answer among the tied types decides ("red" x5 beats
    # "yes" x3 and "no" x2) ...
    assert answer_type(["yes"] * 3 + ["no"] * 2 + ["red"] * 5) == "other"
    assert answer_type(["2"] * 4 + ["3"] + ["red", "blue", "green", "pink", "gray"]) == "number"
    # ... and an exact tie falls back to the order yes/no, number, other.
    assert answer_type(["yes"] * 5 + ["red"] * 5) == "yes/no"
    assert answer_type(["red"] * 5 + ["2"] * 5) == "number"
    with pytest.raises(DataError):
        answer_type([])


def test_types_on_real_vqax_questions(shared_data) -> None:
    """VQA-X carries no types: derive them and check they are consistent with the data."""
    path = shared_data / "vqax" / "vqaX_val.json"
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    data = json.loads(path.read_text())
    qtypes, atypes = [], []
    for item in data.values():
        qtypes.append(question_type(item["question"]))
        atypes.append(answer_type([a["answer"] for a in item["answers"]]))
    counts = Counter(atypes)
    # Observed: other 824, yes/no 630, number 5 (VQA-X avoids counting questions).
    assert counts == {"other": 824, "yes/no": 630, "number": 5}
    assert set(qtypes) <= set(QUESTION_TYPES)
    assert Counter(qtypes).most_common(2) == [("what kind of", 135), ("what", 134)]
    # Questions starting with a yes/no question type are answered yes/no.
    polar = [a for q, a in zip(qtypes, atypes) if q.split()[0] in {"is", "are", "does", "do"}]
    assert sum(a == "yes/no" for a in polar) / len(polar) > 0.95
    what = [a for q, a in zip(qtypes, atypes) if q.startswith("what")]
    assert sum(a == "other" for a in what) / len(what) > 0.95


def test_a_curly_apostrophe_types_a_question_as_the_straight_one_does():
    # crowd workers type both: "What’s" must not fall back to "what" when "What's" is one word
    for straight in ("What's the man holding?", "Don't you see it?", "Is the dog's ball red?"):
        assert question_type(straight.replace("'", "\u2019")) == question_type(straight), straight
