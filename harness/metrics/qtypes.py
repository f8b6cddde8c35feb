"""Question types and answer types of VQA questions, derived the official way.

Question type: the longest of the 65 official question-type prefixes that begins the question,
compared WORD BY WORD (token prefixes), never as raw character prefixes. The question is
lower-cased and split into words of letters, digits and apostrophes, so punctuation never
sticks to a word ("is it?" starts with the type "is it"); a curly apostrophe (’) counts as
"'". So "is the" does not match "is there a cat?" (that is "is there a"), "do" does not match
"does it ...", "how" not "however"; "what's (or what’s) the man holding?" starts with the
word "what's", not "what", and falls back to ``"none of the above"``, itself one of the 65
official types.

Answer type: each human answer is typed from its official normalization
(:func:`harness.metrics.vqa.normalize_answer`): ``"yes/no"`` if it is "yes" or "no",
``"number"`` if every word is a number (digits such as "2", "3.5", "1000" after the comma
rule, or an English number word: zero..ten and "none" become digits under the official
normalization; eleven..ninety, hundred, thousand, million, billion are accepted too), else
``"other"``. The question's answer type is the type most humans gave; a tie is broken by the
type of the most frequent normalized answer among the tied types (the official data's
``multiple_choice_answer`` is the most frequent answer), then by the order yes/no, number, other.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from ..errors import DataError
from .vqa import normalize_answer

__all__ = ["ANSWER_TYPES", "FALLBACK_QUESTION_TYPE", "QUESTION_TYPES", "answer_type",
           "human_answer_type", "question_type"]

# The 65 official VQA question types, in the order of mscoco_question_types.txt.
# Data from GT-Vision-Lab/VQA (https://github.com/GT-Vision-Lab/VQA),
# Copyright (c) 2014, Aishwarya Agrawal; BSD 2-Clause License.
QUESTION_TYPES: tuple[str, ...] = (
    "how many", "is the", "what", "what color is the", "what is the", "is this", "is this a",
    "what is", "are the", "what kind of", "is there a", "what type of", "is it", "what are the",
    "where is the", "is there", "does the", "what color are the", "are these", "are there",
    "which", "is", "what is the man", "is the man", "are", "how", "does this", "what is on the",
    "what does the", "how many people are", "what is in the", "what is this", "do", "what are",
    "are they", "what time", "what sport is", "are there any", "is he", "what color is", "why",
    "where are the", "what color", "who is", "what animal is", "is the woman", "is this an",
    "do you", "how many people are in", "what room is", "has", "is this person",
    "what is the woman", "can you", "why is the", "is the person", "what is the color of the",
    "what is the person", "could", "was", "is that a", "what number is", "what is the name",
    "what brand", "none of the above",
)

FALLBACK_QUESTION_TYPE = "none of the above"

#: The official answer types, in tie-break order.
ANSWER_TYPES: tuple[str, ...] = ("yes/no", "number", "other")

_TYPE_BY_WORDS: dict[tuple[str, ...], str] = {tuple(t.split()): t for t in QUESTION_TYPES}
_LONGEST_TYPE = max(len(words) for words in _TYPE_BY_WORDS)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")

_NUMBER_WORDS_BEYOND_TEN = frozenset({
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
    "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
    "eighty", "ninety", "hundred", "thousand", "million", "billion",
})
_DECIMAL = re.compile(r"\d+(?:\.\d+)?")


def question_type(question: str) -> str:
    """The longest official question type that is a word prefix of the question."""
    words = _WORD.findall(question.lower().replace("\u2019", "'"))  # "What’s" is "What's"
    for size in range(min(_LONGEST_TYPE, len(words)), 0, -1):
        found = _TYPE_BY_WORDS.get(tuple(words[:size]))
        if found is not None:
            return found
    return FALLBACK_QUESTION_TYPE


def human_answer_type(answer: str) -> str:
    """The answer type of one human answer: "yes/no", "number" or "other"."""
    return _type_of_normalized(normalize_answer(answer))


def _type_of_normalized(normalized: str) -> str:
    if normalized in ("yes", "no"):
        return "yes/no"
    words = normalized.split()
    if words and all(_DECIMAL.fullmatch(w) or w in _NUMBER_WORDS_BEYOND_TEN for w in words):
        return "number"
    return "other"


def answer_type(human_answers: Sequence[str]) -> str:
    """The question's answer type: the majority type over its human answers."""
    if isinstance(human_answers, str) or len(human_answers) == 0:
        raise DataError("answer_type: needs a non-empty list of human answers")
    normalized = [normalize_answer(a) for a in human_answers]
    types = [_type_of_normalized(a) for a in normalized]
    counts = Counter(types)
    best = max(counts.values())
    tied = [t for t in ANSWER_TYPES if counts.get(t) == best]
    if len(tied) == 1:
        return tied[0]
    # Tie: the type of the most frequent normalized answer among the tied types.
    answers = Counter(a for a, t in zip(normalized, types) if t in tied)
    top = max(answers.values())
    top_types = {_type_of_normalized(a) for a, c in answers.items() if c == top}
    return next(t for t in ANSWER_TYPES if t in top_types)
