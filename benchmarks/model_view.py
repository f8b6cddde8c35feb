"""What giving models their inputs only costs: every `ctx.predict` call now hands the model
`harness.inputs.model_view` of each example (the ground truth emptied, only the dataset's input
`meta` keys kept), where it only took the multiple-choice view off open-ended questions before
(docs/architecture.md, "What a model sees").

    python benchmarks/model_view.py [--questions 200000]

Builds VQA-like questions (10 human answers, an answer type, a question type, 18 choices as in
VQA v1's multiple-choice view, toyvqa's 7 `meta` keys) and times, in this process, best of 3:

1. the preparation before the change (choices taken off open-ended questions): the baseline;
2. `model_view` for `answer` (the same, plus the gold fields and `meta` filtered);
3. the prediction keys of the viewed questions, which every call computes next (for scale).

It prints seconds, microseconds per question and the ratio of (2) to (1). The load (`uptime`)
is printed before and after.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.api import Model
from harness.inputs import model_view
from harness.types import Example

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_proc import best_of, positive_int, uptime  # noqa: E402

CHOICES = tuple(f"choice {i}" for i in range(18))
META = {"family": "color", "referent": "ball", "template": "what color is the {}?", "true_answer": "red",
        "mc_target": "red", "variant": "balanced", "complement": False}


class _Text(Model):
    name = "text"


def _before(examples: list[Example]) -> list[Example]:
    """What `ProbeContext.predict` did before: the MC view off open-ended questions only."""
    return [ex.with_(choices=()) if ex.choices and ex.answers else ex for ex in examples]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=positive_int, default=200_000)
    args = parser.parse_args(argv)
    print(f"load before: {uptime()}")
    examples = [Example(id=str(i), question=f"what color is the ball {i}?", image=f"/data/{i % 40000:06d}.jpg",
                        image_id=str(i % 40000), answers=("red",) * 10, answer_type="other",
                        question_type="what color is the", choices=CHOICES, label="red",
                        pair_id=str(i + 1), meta=dict(META)) for i in range(args.questions)]
    model = _Text()
    base = best_of(3, lambda: _before(examples))
    viewed_time = best_of(3, lambda: [model_view(ex, "answer") for ex in examples])
    viewed = [model_view(ex, "answer") for ex in examples]
    keys = best_of(3, lambda: [model.input_key(ex, "answer") for ex in viewed])
    n = args.questions
    print(f"{n:,} questions")
    print(f"before: choices off open-ended questions (baseline): {base:.3f} s "
          f"({base / n * 1e6:.2f} us per question)")
    print(f"model_view: {viewed_time:.3f} s ({viewed_time / n * 1e6:.2f} us per question), ratio {viewed_time / base:.2f}")
    print(f"for scale, the prediction keys next: {keys:.3f} s ({keys / n * 1e6:.2f} us per question)")
    print(f"load after: {uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
