"""Benchmark: batch VQA accuracy vs a straightforward per-question official implementation.

    python benchmarks/vqa_accuracy.py [--n 200000] [--seed 0]

Generates N seeded questions with 10 human answers each and realistic surface variation
(identical answer sets, capitalisation, trailing periods, articles, number words,
punctuation), then times `harness.metrics.vqa_accuracy_batch` against a literal
per-question transcription of the official algorithm (docs/metrics.md) in the same
process, and checks that every value agrees exactly (==).
"""

from __future__ import annotations

import argparse
import random
import re
import time

import numpy as np

from harness.metrics import vqa_accuracy_batch
from harness.metrics.vqa import CONTRACTIONS

# --- the straightforward official algorithm, one question at a time --------------------

_PUNCT = [";", "/", "[", "]", '"', "{", "}", "(", ")", "=", "+", "\\", "_", "-",
          ">", "<", "@", "`", ",", "?", "!"]
_MANUAL = {"none": "0", "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4",
           "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10"}
_COMMA = re.compile(r"(\d)(,)(\d)")
_PERIOD = re.compile(r"(?!<=\d)(\.)(?!\d)")


def _punctuation(in_text: str) -> str:
    out = in_text
    for p in _PUNCT:
        if (p + " " in in_text or " " + p in in_text) or _COMMA.search(in_text) is not None:
            out = out.replace(p, "")
        else:
            out = out.replace(p, " ")
    return _PERIOD.sub("", out, count=32)


def _digit_article(in_text: str) -> str:
    words = []
    for word in in_text.lower().split():
        word = _MANUAL.get(word, word)
        if word not in ("a", "an", "the"):
            words.append(word)
    for i, word in enumerate(words):
        if word in CONTRACTIONS:
            words[i] = CONTRACTIONS[word]
    return " ".join(words)


def reference_accuracy(prediction: str, humans: list[str]) -> float:
    """Per-question official VQA accuracy, written the obvious way."""
    gts = [h.replace("\n", " ").replace("\t", " ").strip() for h in humans]
    res = prediction.replace("\n", " ").replace("\t", " ").strip()
    if len(set(gts)) > 1:
        gts = [_digit_article(_punctuation(g)) for g in gts]
        res = _digit_article(_punctuation(res))
    accs = []
    for i in range(len(gts)):
        matching = [g for j, g in enumerate(gts) if j != i and g == res]
        accs.append(min(1, float(len(matching)) / 3))
    return float(sum(accs)) / len(accs)


# --- realistic synthetic questions ------------------------------------------------------

_COMMON = (
    "yes", "no", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "12", "20", "100",
    "red", "white", "black", "blue", "green", "yellow", "brown", "gray", "orange", "pink",
    "purple", "dog", "cat", "man", "woman", "frisbee", "tennis", "baseball", "skiing",
    "pizza", "kitchen", "bathroom", "table", "grass", "water", "left", "right", "nothing",
    "wood", "metal",
)
_NUMBER_WORDS = dict(zip(
    [str(i) for i in range(11)],
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"],
))


def _vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    syllables = ["ba", "ko", "ri", "ten", "mo", "lu", "sha", "pe", "dri", "vo", "gan", "el"]
    words = list(_COMMON)
    while len(words) < size:
        word = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 3)))
        words.append(word if rng.random() < 0.7 else word + " " + rng.choice(_COMMON))
    words += ["black and white", "t-shirt", "2,000", "3.5", "dont know", "new york"]
    return words


def _surface(rng: random.Random, answer: str) -> str:
    roll = rng.random()
    if roll < 0.25:
        return answer.capitalize()
    if roll < 0.4:
        return answer + "."
    if roll < 0.5:
        return answer.upper()
    if roll < 0.65:
        return rng.choice(["a ", "the "]) + answer
    if roll < 0.8 and answer in _NUMBER_WORDS:
        return _NUMBER_WORDS[answer]
    if roll < 0.9:
        return answer + rng.choice(["!", " ?", "\n", " "])
    return answer.replace(" ", "-")


def generate(n: int, seed: int) -> tuple[list[str], list[list[str]]]:
    """N (prediction, 10 human answers) pairs with VQA-like agreement and variation."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    predictions, answers = [], []
    for _ in range(n):
        if rng.random() < 0.4:
            humans = [rng.choice(vocab)] * 10  # all humans agree, as in ~40% of VQA
        else:
            pool = [rng.choice(vocab) for _ in range(rng.randint(2, 4))]
            weights = [rng.random() for _ in pool]
            humans = [
                _surface(rng, h) if rng.random() < 0.1 else h
                for h in rng.choices(pool, weights, k=10)
            ]
        roll = rng.random()
        if roll < 0.5:
            prediction = rng.choice(humans)
        elif roll < 0.75:
            prediction = _surface(rng, rng.choice(humans))
        else:
            prediction = rng.choice(vocab)
        predictions.append(prediction)
        answers.append(humans)
    return predictions, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000, help="number of questions")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    predictions, answers = generate(args.n, args.seed)
    start = time.perf_counter()
    batch = vqa_accuracy_batch(predictions, answers)
    batch_s = time.perf_counter() - start
    start = time.perf_counter()
    reference = np.array([reference_accuracy(p, h) for p, h in zip(predictions, answers)])
    reference_s = time.perf_counter() - start

    agree = bool(np.array_equal(batch, reference))
    print(f"questions            {args.n:,} (seed {args.seed})")
    print(f"batch (memoized)     {batch_s:8.3f} s")
    print(f"per-question         {reference_s:8.3f} s")
    print(f"speed ratio          {reference_s / batch_s:8.1f}x")
    print(f"all values equal     {agree} ({int(np.sum(batch != reference))} differ)")
    print(f"mean accuracy        {batch.mean():.6f}")
    raise SystemExit(0 if agree else 1)


if __name__ == "__main__":
    main()
