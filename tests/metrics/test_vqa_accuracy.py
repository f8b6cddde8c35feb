"""Official VQA accuracy: hand-computed values, a literal reference, the lenient gap."""

from __future__ import annotations

import builtins
import functools
import json
import math
import operator
import random
import re

import numpy as np
import pytest

from harness.errors import DataError
from harness.metrics import (
    LENIENT_METRIC_NAME,
    METRIC_NAME,
    normalize_answer,
    vqa_accuracy,
    vqa_accuracy_batch,
    vqa_accuracy_lenient,
    vqa_accuracy_lenient_batch,
)
from harness.metrics.vqa import CONTRACTIONS, process_digit_article, process_punctuation
from harness.stats import ordered_sum
from vqa_harness_plugins.metrics import evaluate_module_path
from vqa_harness_plugins.metrics.evil_score import harmonic_mean

# --- a literal, independent transcription of docs/metrics.md -------------------------------

REF_PUNCT = [";", "/", "[", "]", '"', "{", "}", "(", ")", "=", "+", "\\", "_", "-",
             ">", "<", "@", "`", ",", "?", "!"]
REF_MANUAL = {"none": "0", "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4",
              "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10"}


def ref_punctuation(in_text: str) -> str:
    out = in_text
    for p in REF_PUNCT:
        if (p + " " in in_text or " " + p in in_text) or re.search(r"(\d)(,)(\d)", in_text):
            out = out.replace(p, "")
        else:
            out = out.replace(p, " ")
    # Periods not followed by a (Unicode decimal) digit go, left to right, 32 at most.
    kept, deleted = [], 0
    for i, ch in enumerate(out):
        followed_by_digit = i + 1 < len(out) and out[i + 1].isdecimal()
        if ch == "." and not followed_by_digit and deleted < 32:
            deleted += 1
            continue
        kept.append(ch)
    return "".join(kept)


def ref_digit_article(in_text: str) -> str:
    words = []
    for word in in_text.lower().split():
        word = REF_MANUAL.get(word, word)
        if word not in ("a", "an", "the"):
            words.append(word)
    for i, word in enumerate(words):
        if word in CONTRACTIONS:  # the table is data; its content is tested below
            words[i] = CONTRACTIONS[word]
    return " ".join(words)


def ref_accuracy(prediction: str, humans: list[str], always: bool = False) -> float:
    gts = [h.replace("\n", " ").replace("\t", " ").strip() for h in humans]
    res = prediction.replace("\n", " ").replace("\t", " ").strip()
    if always or len(set(gts)) > 1:
        gts = [ref_digit_article(ref_punctuation(g)) for g in gts]
        res = ref_digit_article(ref_punctuation(res))
    gt_acc = []
    for i in range(len(gts)):
        others = [g for j, g in enumerate(gts) if j != i]
        matching = [g for g in others if g == res]
        gt_acc.append(min(1, float(len(matching)) / 3))
    # the official script's sum(gtAcc), written for Python 2: left to right, each addition
    # rounded (Python 3.12's sum() compensates rounding and would give other last bits)
    return float(functools.reduce(operator.add, gt_acc, 0)) / len(gt_acc)


# --- normalization rules, hand-computed -------------------------------------------------

@pytest.mark.parametrize(
    "text, expected",
    [
        ("red,white", "red white"),          # no space next to the mark: becomes a space
        ("red, white", "red white"),          # "mark + space" in the text: deleted
        ("red,white , blue", "redwhite blue"),  # the rule holds for every comma in the text
        ("t-shirt", "t shirt"),
        ("what?!", "what"),                   # replaced by spaces, then split away
        ("2,000", "2000"),                    # digit-comma-digit: every mark is deleted
        ("2,000-3,000", "20003000"),
        ("(yes)", "yes"),
        ('say "hi"', "say hi"),
        ("3.5", "3.5"),                       # period before a digit stays
        (".5", ".5"),
        ("5.", "5"),
        ("yes.", "yes"),
        ("a.b", "ab"),
        ("mr. smith", "mr smith"),
        ("it's", "it's"),                     # apostrophe is not a mark
        ("10:30", "10:30"),                   # nor is the colon
        ("yes" + "." * 33, "yes."),           # at most 32 periods are deleted
        ("." * 40, "." * 8),
        ("two", "2"),
        ("Ten", "10"),
        ("none", "0"),
        ("eleven", "eleven"),                 # only none/zero..ten are mapped
        ("two dogs", "2 dogs"),
        ("a dog", "dog"),
        ("The Dog", "dog"),
        ("an apple", "apple"),
        ("the", ""),
        ("dont", "don't"),
        ("Dont know", "don't know"),
        ("isnt", "isn't"),
        ("Im", "im"),                         # capitalised keys can never match
        ("  Black   and WHITE ", "black and white"),
        ("x-y\t-z", "xy z"),                  # \t becomes a space BEFORE the mark rule
        ("yes\n", "yes"),
    ],
)
def test_normalize_answer(text: str, expected: str) -> None:
    assert normalize_answer(text) == expected


def test_processing_steps_are_separate() -> None:
    assert process_punctuation("The Dog!") == "The Dog "
    assert process_digit_article("The  Dog ") == "dog"


def test_contractions_table() -> None:
    assert len(CONTRACTIONS) == 120
    assert CONTRACTIONS["dont"] == "don't"
    assert CONTRACTIONS["wheres"] == "where's"
    assert CONTRACTIONS["somebody'd"] == "somebodyd"  # the official table's quirk
    assert all("\u2019" not in k + v for k, v in CONTRACTIONS.items())


# --- accuracy, hand-computed ------------------------------------------------------------

def test_identical_humans_compare_raw_and_case_sensitive() -> None:
    assert vqa_accuracy("Yes", ["yes"] * 10) == 0.0
    assert vqa_accuracy("yes.", ["yes"] * 10) == 0.0
    assert vqa_accuracy("Yes", ["Yes"] * 10) == 1.0
    assert vqa_accuracy("yes", ["yes"] * 10) == 1.0
    assert vqa_accuracy("2", ["two"] * 10) == 0.0      # no number-word mapping either
    assert vqa_accuracy("yes\n", ["yes\t"] * 10) == 1.0  # step 1 still applies


def test_different_humans_normalize_both_sides() -> None:
    humans = ["yes"] * 9 + ["no"]
    assert vqa_accuracy("Yes.", humans) == 1.0
    assert vqa_accuracy("2", ["two"] * 5 + ["2"] * 5) == 1.0
    assert vqa_accuracy("the Dog!", ["dog"] * 9 + ["a dog"]) == 1.0
    # humans differing only by whitespace are identical after step 1: compared raw.
    assert vqa_accuracy("Yes", ["yes"] * 9 + [" yes\n"]) == 0.0


@pytest.mark.parametrize(
    "hits, expected",
    [
        (0, 0.0),
        (1, 0.3),   # 9 humans see 1 match among the others: 9 * 1/3 / 10
        (2, 0.6),   # 2 * 1/3 + 8 * 2/3 = 6, / 10
        (3, 0.9),   # 3 * 2/3 + 7 * 1 = 9, / 10
        (4, 1.0),
        (10, 1.0),
    ],
)
def test_partial_matches(hits: int, expected: float) -> None:
    humans = ["cat"] * hits + ["dog"] * (10 - hits)
    value = vqa_accuracy("cat", humans)
    assert value == pytest.approx(expected, abs=1e-15)
    # and exactly the official float arithmetic (sum in order, then divide)
    accs = [min(1, (hits - 1) / 3)] * hits + [min(1, hits / 3)] * (10 - hits)
    assert value == float(functools.reduce(operator.add, accs, 0)) / 10


def test_the_sum_is_in_order_on_every_python(monkeypatch) -> None:
    """Eight other answers, then two matching: 8 * 2/3 + 2 * 1/3 added in order is
    5.999999999999999 (what the official script gives on Python 2 and up to 3.11); Python
    3.12's compensating sum() gives 6.0. The harness adds in order whatever sum() does: here
    sum() is replaced by a compensating one, as on 3.12, and the values stay."""
    builtin_sum = builtins.sum

    def compensating_sum(values, start=0):
        values = list(values)
        if any(isinstance(v, float) for v in values):
            return math.fsum(values) + start
        return builtin_sum(values, start)

    assert compensating_sum([2 / 3] * 8 + [1 / 3] * 2) == 6.0  # what 3.12's sum() gives
    monkeypatch.setattr(builtins, "sum", compensating_sum)
    assert vqa_accuracy("cat", ["dog"] * 8 + ["cat"] * 2) == 0.5999999999999999
    assert vqa_accuracy_batch(["cat"], [["dog"] * 8 + ["cat"] * 2]).tolist() == [0.5999999999999999]
    assert harmonic_mean([10.0] * 10) == 10 / 0.9999999999999999  # the reciprocals 0.1, in order
    assert ordered_sum([0.1] * 10) == 0.9999999999999999
    assert ordered_sum([]) == 0.0 and ordered_sum(iter([1, 2.5])) == 3.5


def test_other_numbers_of_humans() -> None:
    assert vqa_accuracy("a", ["a", "b", "c"]) == pytest.approx(2 / 9)  # (0 + 1/3 + 1/3) / 3
    assert vqa_accuracy("a", ["a"]) == 0.0  # one human: nobody else can agree


def test_bad_input_is_a_data_error() -> None:
    with pytest.raises(DataError):
        vqa_accuracy("yes", [])
    with pytest.raises(DataError):
        vqa_accuracy("yes", "yes")  # a bare string, not a list
    with pytest.raises(DataError, match="row 1"):
        vqa_accuracy_batch(["a", "b"], [["a"] * 10, []])
    with pytest.raises(DataError):
        vqa_accuracy_batch(["a"], [])
    with pytest.raises(DataError):
        vqa_accuracy(None, ["a"] * 10)  # type: ignore[arg-type]
    with pytest.raises(DataError, match="row 0"):
        vqa_accuracy_batch([None], [["a"] * 10])  # type: ignore[list-item]


def test_lenient_always_normalizes() -> None:
    assert vqa_accuracy_lenient("Yes", ["yes"] * 10) == 1.0
    assert vqa_accuracy_lenient("Two", ["2"] * 10) == 1.0
    assert vqa_accuracy_lenient("no", ["yes"] * 10) == 0.0
    # Not lmms-eval <= v0.3.4's score (docs/metrics.md): it split "'s", deleted "," and kept agreeing
    # humans raw, so it scored these 0 against ten identical humans; both metrics here score 1.
    for answer in ("t-shirt", "man's", "1,000"):
        assert vqa_accuracy_lenient(answer, [answer] * 10) == vqa_accuracy(answer, [answer] * 10) == 1.0
    assert (METRIC_NAME, LENIENT_METRIC_NAME) == ("vqa_accuracy", "vqa_accuracy_lenient")


# --- random answer sets against the literal reference -----------------------------------

_BASE = ["yes", "no", "2", "two", "3", "Three", "none", "0", "10", "ten", "red", "white",
         "black and white", "black-and-white", "t-shirt", "a dog", "the dog", "dog", "dont",
         "don't", "2,000", "2000", "3.5", "1.5", "new york", "ice cream", "it's", "left",
         "a", "the", "an apple", "eleven", "mr. smith", "red, white", "\u0663", "Ⅻ",
         "1.\u0663", "x.²", "v.Ⅻ"]


def _variant(rng: random.Random, text: str) -> str:
    roll = rng.random()
    if roll < 0.35:
        return text
    ops = [
        str.capitalize, str.upper, lambda s: s + ".", lambda s: s + "!", lambda s: s + " ?",
        lambda s: "(" + s + ")", lambda s: "a " + s, lambda s: "The " + s,
        lambda s: " " + s + "\n", lambda s: s + "\t", lambda s: s.replace(" ", "-"),
        lambda s: s + "." * rng.randint(2, 40), lambda s: s + ", " + rng.choice(_BASE),
        lambda s: s.replace(" ", "  "), lambda s: s + "." + str(rng.randint(0, 9)),
        lambda s: "/" + s, lambda s: s + " - " + rng.choice(_BASE),
    ]
    return rng.choice(ops)(text)


def _random_question(rng: random.Random) -> tuple[str, list[str]]:
    n = 10 if rng.random() < 0.8 else rng.randint(1, 12)
    if rng.random() < 0.3:
        humans = [rng.choice(_BASE)] * n
    else:
        pool = [rng.choice(_BASE) for _ in range(rng.randint(1, 3))]
        humans = [_variant(rng, rng.choice(pool)) if rng.random() < 0.4 else rng.choice(pool)
                  for _ in range(n)]
    pred = _variant(rng, rng.choice(humans if rng.random() < 0.7 else _BASE))
    return pred, humans


def test_random_sets_equal_literal_reference_exactly() -> None:
    rng = random.Random(2021)
    questions = [_random_question(rng) for _ in range(5000)]
    preds = [p for p, _ in questions]
    humans = [h for _, h in questions]
    expected = np.array([ref_accuracy(p, h) for p, h in questions])
    expected_lenient = np.array([ref_accuracy(p, h, always=True) for p, h in questions])
    single = np.array([vqa_accuracy(p, h) for p, h in questions])
    single_lenient = np.array([vqa_accuracy_lenient(p, h) for p, h in questions])
    assert np.array_equal(single, expected)
    assert np.array_equal(vqa_accuracy_batch(preds, humans), expected)
    assert np.array_equal(single_lenient, expected_lenient)
    assert np.array_equal(vqa_accuracy_lenient_batch(preds, humans), expected_lenient)
    # the sample exercises every branch: partial credit, zero, full, raw comparison
    assert {0.0, 1.0} <= set(expected.tolist()) and len(set(expected.tolist())) > 5
    texts = [t for p, h in questions for t in [p, *h]]
    assert all(normalize_answer(t) == ref_digit_article(ref_punctuation(t.replace("\n", " ")
               .replace("\t", " ").strip())) for t in texts)


def test_batch_matches_single_for_every_match_pattern() -> None:
    # The in-order float sum depends on where matching humans sit: try all 2^10 patterns.
    preds, humans = [], []
    for mask in range(1 << 10):
        preds.append("cat")
        humans.append(["cat" if mask >> i & 1 else "dog" for i in range(10)])
    batch = vqa_accuracy_batch(preds, humans)
    assert batch.dtype == np.float64
    assert [vqa_accuracy(p, h) for p, h in zip(preds, humans)] == batch.tolist()
    assert batch.tolist() == [ref_accuracy(p, h) for p, h in zip(preds, humans)]


# --- the claim on real VQA-X questions -------------------------------------------

def _perturb(answer: str, index: int) -> str:
    # Three predictions in four are changed: capitalised, upper-cased or given a period.
    kind = index % 4
    if kind == 0:
        return answer
    if kind == 1:
        return answer.capitalize()
    if kind == 2:
        return answer.upper()
    return answer + "."


def test_official_vs_lenient_gap_on_vqax(shared_data) -> None:
    path = shared_data / "vqax" / "vqaX_val.json"
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    data = json.loads(path.read_text())
    rng = random.Random(0)
    preds, plain, humans = [], [], []
    for i, key in enumerate(sorted(data)):
        answers = [a["answer"] for a in data[key]["answers"]]
        chosen = rng.choice(answers)
        plain.append(chosen)
        preds.append(_perturb(chosen, i))
        humans.append(answers)
    official = vqa_accuracy_batch(preds, humans)
    lenient = vqa_accuracy_lenient_batch(preds, humans)
    disagree = float(np.mean(official != lenient))
    assert len(preds) == 1459
    assert lenient.mean() - official.mean() > 0.3
    assert disagree > 0.3
    assert np.all(lenient >= official)
    # The perturbations only change case and add a period: the lenient metric ignores
    # them, the official one only ignores them when the humans disagree.
    assert np.array_equal(lenient, vqa_accuracy_batch(plain, humans))
    # Seed 0 gives official 0.554, lenient 0.957, disagreement on 40.3% of questions.
    assert official.mean() == pytest.approx(0.5544, abs=5e-4)
    assert lenient.mean() == pytest.approx(0.9574, abs=5e-4)


# --- the local `evaluate` module ---------------------------------------------------------

def test_evaluate_module_loads_offline() -> None:
    import evaluate

    metric = evaluate.load(evaluate_module_path("vqa_accuracy"))
    preds = ["2", "Yes", "cat"]
    refs = [["2", "two", "3"] + ["2"] * 7, ["yes"] * 10, ["cat"] * 2 + ["dog"] * 8]
    out = metric.compute(predictions=preds, references=refs, return_per_question=True)
    assert out["per_question"] == vqa_accuracy_batch(preds, refs).tolist()
    assert out[METRIC_NAME] == pytest.approx((1.0 + 0.0 + 0.6) / 3)
    lenient = metric.compute(predictions=preds, references=refs, lenient=True)
    assert lenient[LENIENT_METRIC_NAME] == pytest.approx((1.0 + 1.0 + 0.6) / 3)


def test_evaluate_module_path_unknown_name() -> None:
    from harness.errors import UsageError

    assert evaluate_module_path("vqa_accuracy").endswith("vqa_accuracy")
    with pytest.raises(UsageError, match="vqa_accuracy"):
        evaluate_module_path("no_such_metric")
