"""Tokens with character spans, minimal splicing of one word, and the English check.

A counterfactual question differs from the original in exactly one word: the new text is
the original string with that word's span replaced (or removed, with one adjacent space),
so punctuation, spacing and the rest of the question are untouched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

__all__ = ["Token", "tokenize", "splice", "match_case", "language_problem", "replace_span", "FUNCTION_WORDS"]

# Penn-Treebank-like splits so the perceptron tagger sees what it was trained on:
# "don't" -> do + n't, "What's" -> What + 's, punctuation on its own.
_TOKEN = re.compile(r"\w+(?=n't\b)|n't\b|'\w+|\w+(?:-\w+)*|[^\w\s]")

#: Frequent English function words; a question of 3+ words with none of them is taken as
#: not English (a heuristic: the perturbations rely on an English tagger and WordNet).
FUNCTION_WORDS = frozenset(
    "a an the is are was were be do does did can could will would has have had what which who whom "
    "whose where when why how of in on at to for with from by this that these those there it its "
    "you he she they we i there any some many much or and not no yes".split()
)


@dataclass(frozen=True)
class Token:
    """One token of a question: its text and its [start, end) span in the question."""

    text: str
    start: int
    end: int


def tokenize(question: str) -> list[Token]:
    """Split a question into word and punctuation tokens, keeping their spans."""
    return [Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(question)]


def match_case(template: str, word: str) -> str:
    """`word` with the capitalization pattern of `template` (Title, UPPER or as is)."""
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def splice(question: str, token: Token, replacement: str) -> str:
    """`question` with `token` replaced by `replacement`; an empty replacement deletes the
    word together with one adjacent space (the space before it, else the one after)."""
    if replacement:
        return question[: token.start] + replacement + question[token.end :]
    start, end = token.start, token.end
    if start > 0 and question[start - 1] == " ":
        start -= 1
    elif end < len(question) and question[end] == " ":
        end += 1
    return question[:start] + question[end:]


def language_problem(question: str, tokens: list[Token]) -> str | None:
    """"empty" or "non_english" when a question cannot be perturbed, else None."""
    words = [t.text for t in tokens if t.text[:1].isalnum()]
    if not words:
        return "empty"
    letters = [c for c in question if c.isalpha()]
    non_ascii = sum(1 for c in letters if not c.isascii())
    if not letters or non_ascii / len(letters) > 0.2:
        return "non_english"
    if len(words) >= 3 and not any(w.lower() in FUNCTION_WORDS for w in words):
        return "non_english"
    return None


def replace_span(question: str, tokens: Sequence[Token], first: int, last: int, new: str) -> str:
    """`question` with tokens first..last replaced by `new`; an indefinite article right
    before them follows the new first letter (a horse -> an animal), by spelling."""
    out = question[:tokens[first].start] + new + question[tokens[last].end:]
    if first > 0 and tokens[first - 1].text.lower() in ("a", "an") and tokens[first - 1].end < tokens[first].start:
        out = fit_article(out, tokens[first - 1], new)
    return out


def fit_article(text: str, article: Token, word: str) -> str:
    """`text` with the indefinite `article` (a token of `text`, before the change point)
    agreeing with the `word` now after it, by spelling: "a" before a consonant, "an" before
    a vowel letter (a horse -> an animal)."""
    want = "an" if word[:1].lower() in "aeiou" else "a"
    if article.text.lower() == want:
        return text
    return text[:article.start] + match_case(article.text, want) + text[article.end:]
