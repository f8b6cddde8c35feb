"""VQA accuracy, exactly as the official evaluation computes it (docs/metrics.md).

The reference is GT-Vision-Lab/VQA `PythonEvaluationTools/vqaEvaluation/vqaEval.py` (2021
version, BSD-2-Clause). Per question with human answers h_1..h_n (10 for VQA):

1. In every human answer and in the prediction replace ``\\n`` and ``\\t`` by a space; strip.
2. Only if the human answers are NOT all identical, normalize humans and prediction with
   punctuation then digit/article processing; else the raw (stripped) strings are compared,
   case-sensitively: humans all ``"yes"`` and a prediction ``"Yes"`` score 0.
3. acc_i = min(1, #(other humans equal to the prediction) / 3); the question's accuracy is
   ``sum(acc_1..acc_n) / n``, unrounded (the official code rounds to two decimals of a
   percentage only when reporting), summed left to right, each addition rounded, as the
   script's ``sum()`` does on Python 2 and up to 3.11 (3.12's compensates rounding: eight
   other answers, then two matching, give 0.6 instead of 0.5999999999999999).

``vqa_accuracy`` (:func:`vqa_accuracy`, :func:`vqa_accuracy_batch`) is that algorithm,
bit-identical per question. ``vqa_accuracy_lenient`` (:func:`vqa_accuracy_lenient`,
:func:`vqa_accuracy_lenient_batch`) is NOT official: it skips step 2's condition (nothing else
differs), always normalizing both sides with :func:`normalize_answer`, as lmms-eval does for
the prediction (its EvalAI answer processor), so ``"Yes."`` against 10 humans' ``"yes"``
scores 1 under it and 0 under the official metric. The batch forms normalize each distinct
string once and give values equal (``==``) to the per-question functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from ..errors import DataError
from ..stats import ordered_sum

__all__ = [
    "ARTICLES", "CONTRACTIONS", "LENIENT_METRIC_NAME", "METRIC_NAME", "NUMBER_WORDS", "PUNCTUATION",
    "clean_whitespace", "normalize_answer", "process_digit_article", "process_punctuation",
    "vqa_accuracy", "vqa_accuracy_batch", "vqa_accuracy_lenient", "vqa_accuracy_lenient_batch",
]

METRIC_NAME = "vqa_accuracy"
LENIENT_METRIC_NAME = "vqa_accuracy_lenient"

# --- official tables (data from GT-Vision-Lab/VQA vqaEval.py, BSD-2-Clause) -------------

#: Marks that punctuation processing deletes or replaces by a space. ``'``, ``:`` and ``.``
#: are not in the list (the period has its own rule).
PUNCTUATION: tuple[str, ...] = (
    ";", "/", "[", "]", '"', "{", "}", "(", ")", "=", "+", "\\", "_", "-",
    ">", "<", "@", "`", ",", "?", "!",
)

#: The official ``manualMap``: number words up to ten (and "none") become digits.
NUMBER_WORDS: dict[str, str] = {
    "none": "0", "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4",
    "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
}

ARTICLES: frozenset[str] = frozenset({"a", "an", "the"})

# The official contractions table, one "key value" pair per entry, ASCII apostrophes.
# Keys with capitals ("Im", "Ive", ...) can never match (words are lower-cased first);
# they are kept because the table is data, and so is the odd "somebody'd" -> "somebodyd".
_CONTRACTION_PAIRS = """
aint ain't  arent aren't  cant can't  couldve could've  couldnt couldn't  couldn'tve couldn't've
couldnt've couldn't've  didnt didn't  doesnt doesn't  dont don't  hadnt hadn't  hadnt've hadn't've
hadn'tve hadn't've  hasnt hasn't  havent haven't  hed he'd  hed've he'd've  he'dve he'd've
hes he's  howd how'd  howll how'll  hows how's  Id've I'd've  I'dve I'd've  Im I'm  Ive I've
isnt isn't  itd it'd  itd've it'd've  it'dve it'd've  itll it'll  let's let's  maam ma'am
mightnt mightn't  mightnt've mightn't've  mightn'tve mightn't've  mightve might've  mustnt mustn't
mustve must've  neednt needn't  notve not've  oclock o'clock  oughtnt oughtn't  ow's'at 'ow's'at
'ows'at 'ow's'at  'ow'sat 'ow's'at  shant shan't  shed've she'd've  she'dve she'd've  she's she's
shouldve should've  shouldnt shouldn't  shouldnt've shouldn't've  shouldn'tve shouldn't've
somebody'd somebodyd  somebodyd've somebody'd've  somebody'dve somebody'd've
somebodyll somebody'll  somebodys somebody's  someoned someone'd  someoned've someone'd've
someone'dve someone'd've  someonell someone'll  someones someone's  somethingd something'd
somethingd've something'd've  something'dve something'd've  somethingll something'll  thats that's
thered there'd  thered've there'd've  there'dve there'd've  therere there're  theres there's
theyd they'd  theyd've they'd've  they'dve they'd've  theyll they'll  theyre they're
theyve they've  twas 'twas  wasnt wasn't  wed've we'd've  we'dve we'd've  weve we've
werent weren't  whatll what'll  whatre what're  whats what's  whatve what've  whens when's
whered where'd  wheres where's  whereve where've  whod who'd  whod've who'd've  who'dve who'd've
wholl who'll  whos who's  whove who've  whyll why'll  whyre why're  whys why's  wont won't
wouldve would've  wouldnt wouldn't  wouldnt've wouldn't've  wouldn'tve wouldn't've  yall y'all
yall'll y'all'll  y'allll y'all'll  yall'd've y'all'd've  y'alld've y'all'd've
y'all'dve y'all'd've  youd you'd  youd've you'd've  you'dve you'd've  youll you'll  youre you're
youve you've
"""
_tokens = _CONTRACTION_PAIRS.split()
#: The official contractions table (``dont`` -> ``don't``).
CONTRACTIONS: dict[str, str] = dict(zip(_tokens[::2], _tokens[1::2]))
del _tokens

_DIGIT_COMMA_DIGIT = re.compile(r"(\d)(,)(\d)")
# The official pattern: "(?!<=" is a negative LOOKAHEAD for the literal "<=" (a typo for a
# lookbehind), so in effect a period not followed by a digit is deleted.
_PERIOD_STRIP = re.compile(r"(?!<=\d)(\.)(?!\d)")
# The official call is `periodStrip.sub("", text, re.UNICODE)`: the flag lands in the
# `count` argument, so at most int(re.UNICODE) == 32 periods are deleted.
_MAX_PERIOD_DELETIONS = int(re.UNICODE)


def clean_whitespace(text: str) -> str:
    """Step 1: replace newlines and tabs by a space, then strip."""
    return text.replace("\n", " ").replace("\t", " ").strip()


def process_punctuation(text: str) -> str:
    """The official ``processPunctuation`` (marks, then at most 32 period deletions)."""
    # The decision for every mark looks at the ORIGINAL text, not the text being rewritten.
    digit_comma = _DIGIT_COMMA_DIGIT.search(text) is not None
    out = text
    for mark in PUNCTUATION:
        if mark not in out:
            continue  # replacing an absent mark changes nothing
        if digit_comma or (mark + " ") in text or (" " + mark) in text:
            out = out.replace(mark, "")
        else:
            out = out.replace(mark, " ")
    return _PERIOD_STRIP.sub("", out, count=_MAX_PERIOD_DELETIONS)


def process_digit_article(text: str) -> str:
    """The official ``processDigitArticle``: lower, number words, articles, contractions."""
    words = []
    for word in text.lower().split():
        word = NUMBER_WORDS.get(word, word)
        if word in ARTICLES:
            continue
        # No number word or digit is a contraction key, so mapping here equals the
        # official second pass over the kept words.
        words.append(CONTRACTIONS.get(word, word))
    return " ".join(words)


def normalize_answer(text: str) -> str:
    """An answer as the official evaluation compares it when humans disagree: whitespace
    clean-up (step 1), then punctuation, then digit/article processing."""
    return process_digit_article(process_punctuation(clean_whitespace(text)))


def _check_humans(human_answers: Sequence[str], where: str) -> None:
    if isinstance(human_answers, str):
        raise DataError(f"{where}: human answers must be a list of strings, got one string")
    if len(human_answers) == 0:
        raise DataError(f"{where}: no human answers, VQA accuracy is undefined")


def _mean_of_acc(matches: Sequence[bool]) -> float:
    """Step 3 for a pattern of which humans equal the prediction, official float order."""
    total = sum(matches)
    accs = [min(1, (total - m) / 3) for m in matches]
    return ordered_sum(accs) / len(accs)  # sum() in order, as on Python <= 3.11


def _score(prediction: str, human_answers: Sequence[str], always_normalize: bool) -> float:
    if not isinstance(prediction, str) or not all(isinstance(h, str) for h in human_answers):
        raise DataError("VQA accuracy: the prediction and every human answer must be strings")
    humans = [clean_whitespace(h) for h in human_answers]
    pred = clean_whitespace(prediction)
    if always_normalize or len(set(humans)) > 1:
        humans = [process_digit_article(process_punctuation(h)) for h in humans]
        pred = process_digit_article(process_punctuation(pred))
    return _mean_of_acc([h == pred for h in humans])


def vqa_accuracy(prediction: str, human_answers: Sequence[str]) -> float:
    """Official VQA accuracy of one prediction against its human answers, in [0, 1]."""
    _check_humans(human_answers, METRIC_NAME)
    return _score(prediction, human_answers, always_normalize=False)


def vqa_accuracy_lenient(prediction: str, human_answers: Sequence[str]) -> float:
    """Like :func:`vqa_accuracy` but always normalizes (non-official; see module doc)."""
    _check_humans(human_answers, LENIENT_METRIC_NAME)
    return _score(prediction, human_answers, always_normalize=True)


class _Memo(dict):
    """A dict that computes and keeps missing values: each distinct string once."""

    def __init__(self, fn: Callable[[str], str]) -> None:
        super().__init__()
        self.fn = fn

    def __missing__(self, key: str) -> str:
        value = self[key] = self.fn(key)
        return value


def _score_batch(
    predictions: Sequence[str], answers: Sequence[Sequence[str]], always_normalize: bool, name: str
) -> np.ndarray:
    if len(predictions) != len(answers):
        raise DataError(f"{name}: {len(predictions)} predictions but {len(answers)} "
                        "human-answer lists")
    cleaned = _Memo(clean_whitespace)
    normalized = _Memo(lambda s: process_digit_article(process_punctuation(s)))
    # The per-human acc values take two values at most, but their in-order float sum
    # depends on where the matching humans sit, so the value is cached per match pattern.
    by_pattern = _Memo(_mean_of_acc)  # type: ignore[arg-type]
    out = np.empty(len(predictions), dtype=np.float64)
    for row, (prediction, humans_raw) in enumerate(zip(predictions, answers)):
        if isinstance(humans_raw, str) or len(humans_raw) == 0:
            _check_humans(humans_raw, f"{name}: row {row}")
        try:
            humans = [cleaned[h] for h in humans_raw]
            pred = cleaned[prediction]
        except (AttributeError, TypeError):
            raise DataError(f"{name}: row {row}: the prediction and every human answer must be "
                            "strings") from None
        if always_normalize or len(set(humans)) > 1:
            humans = [normalized[h] for h in humans]
            pred = normalized[pred]
        hits = humans.count(pred)
        if hits == 0:
            out[row] = 0.0
        elif hits > 3:
            out[row] = 1.0  # every acc_i is min(1, >=3/3) = 1, exactly
        else:
            out[row] = by_pattern[tuple(h == pred for h in humans)]
    return out


def vqa_accuracy_batch(predictions: Sequence[str], answers: Sequence[Sequence[str]]) -> np.ndarray:
    """Official VQA accuracy per question (float64 array), equal to :func:`vqa_accuracy`."""
    return _score_batch(predictions, answers, False, METRIC_NAME)


def vqa_accuracy_lenient_batch(
    predictions: Sequence[str], answers: Sequence[Sequence[str]]
) -> np.ndarray:
    """Batch form of :func:`vqa_accuracy_lenient` (non-official, always normalizes)."""
    return _score_batch(predictions, answers, True, LENIENT_METRIC_NAME)
