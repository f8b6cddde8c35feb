"""Print docs/toyvqa.md's "Statistics" figures from the generated toy data (seed 0, default
sizes): questions, images and answer types per variant and split, and the language priors
(majority training answer applied to val, label match) with the answer entropy per question
type on val, weighted by the types' frequency.

    python scripts/toyvqa_stats.py
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

from harness.data.session import Session
from harness.host import get_host
from harness.types import Example

__all__ = ["main"]

VARIANTS = ("unbalanced", "balanced")
TYPES = ("yes/no", "number", "other")


def _canonical(ex: Example) -> str:
    """The example's label, else its most common human answer (as the baselines train on)."""
    return ex.label or Counter(ex.answers).most_common(1)[0][0]


def _accuracy(guess: Callable[[Example], str], examples: Sequence[Example]) -> float:
    return 100 * sum(guess(e) == _canonical(e) for e in examples) / len(examples)


def _priors(train: Sequence[Example], val: Sequence[Example]) -> dict[str, float]:
    overall = Counter(_canonical(e) for e in train).most_common(1)[0][0]
    by_type: dict[str, Counter] = defaultdict(Counter)
    by_text: dict[str, Counter] = defaultdict(Counter)
    for e in train:
        by_type[e.question_type][_canonical(e)] += 1
        by_text[e.question][_canonical(e)] += 1

    def per_type(e: Example) -> str:
        return by_type[e.question_type].most_common(1)[0][0] if e.question_type in by_type else overall

    def per_text(e: Example) -> str:
        return by_text[e.question].most_common(1)[0][0] if e.question in by_text else per_type(e)

    out = {"overall": _accuracy(lambda e: overall, val), "type": _accuracy(per_type, val),
           "text": _accuracy(per_text, val)}
    out.update({t: _accuracy(per_text, [e for e in val if e.answer_type == t]) for t in TYPES})
    answers: dict[str, Counter] = defaultdict(Counter)
    for e in val:
        answers[e.question_type][_canonical(e)] += 1
    out["entropy"] = sum(sum(c.values()) / len(val) * -sum(n / sum(c.values()) * math.log2(n / sum(c.values()))
                                                           for n in c.values()) for c in answers.values())
    return out


def main() -> None:
    session = Session(get_host(), data_dir=None)
    data = {(v, s): list(session.dataset(f"toyvqa:variant={v}").load(s)) for v in VARIANTS for s in ("train", "val")}
    print("| | " + " | ".join(f"{v} {s}" for v, s in data) + " |")
    print("|---|" + "---|" * len(data))
    print("| questions | " + " | ".join(f"{len(x):,}" for x in data.values()) + " |")
    print("| images | " + " | ".join(f"{len({e.image_id for e in x}):,}" for x in data.values()) + " |")
    counts = [Counter(e.answer_type for e in x) for x in data.values()]
    print("| yes/no / number / other | " + " | ".join(" / ".join(f"{c[t]:,}" for t in TYPES) for c in counts) + " |")
    print()
    priors = {v: _priors(data[(v, "train")], data[(v, "val")]) for v in VARIANTS}
    rows = [("most common answer overall", "overall"), ("majority answer per question type", "type"),
            ("majority answer per exact question text (else per type)", "text"),
            *((f"— {t}", t) for t in TYPES)]
    print("| prior | " + " | ".join(VARIANTS) + " |")
    print("|---|---|---|")
    for name, key in rows:
        print(f"| {name} | " + " | ".join(f"{priors[v][key]:.1f}%" for v in VARIANTS) + " |")
    first, last = (priors[v]["entropy"] for v in VARIANTS)
    print(f"| answer entropy per question type, weighted by frequency | {first:.2f} bits | {last:.2f} bits "
          f"({100 * (last / first - 1):+.0f}%) |")


if __name__ == "__main__":
    main()
