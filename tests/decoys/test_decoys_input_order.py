"""A record's generated decoys (IoU, QoU, fill-ins) do not depend on the order of the input.

Found on official-format files re-sorted by hand: identical questions with different
targets (common in Visual Genome and VQA) tie in the QoU walk, and the tie went to whichever
record came first in the file, so 76 of 180 Visual7W triplets got other QoU decoys (and,
through the mutual filter, 3 of 180 VQA v1 triplets other IoU fill-ins) after a shuffle."""

from __future__ import annotations

import random

from vqa_harness_plugins.generators.decoys import DecoyConfig, QARecord, generate_decoys

from test_decoys_generate import fake_wup

QUESTIONS = ["What sport is being played?", "What color is the bus?", "What is on the plate?",
             "What animal is this?", "Where is the man standing?"]
TARGETS = ["tennis", "baseball", "soccer", "red", "blue", "pizza", "cake", "dog", "horse",
           "beach", "street", "kitchen", "green", "frisbee", "sandwich"]


def _records() -> list[QARecord]:
    out = []
    for i in range(60):
        out.append(QARecord(f"q{i:03d}", f"img{i // 4}", QUESTIONS[i % len(QUESTIONS)],
                            TARGETS[(i * 7) % len(TARGETS)], ("wood", "metal", "sky")))
    return out


def test_every_decoy_is_independent_of_input_order() -> None:
    records = _records()
    base = generate_decoys(records, DecoyConfig(seed=0), wup=fake_wup).released()
    for s in range(3):
        shuffled = list(records)
        random.Random(s).shuffle(shuffled)
        again = generate_decoys(shuffled, DecoyConfig(seed=0), wup=fake_wup).released()
        assert again == base, [k for k in base if again[k] != base[k]]
        assert list(again) == [r.qa_id for r in shuffled]  # the output keeps the input's order
