"""A few questions of the image ablation with the images the model saw (the real one, the gray
one, another question's), and its answer to each, for the run and model pages
(harness.showcase). Questions whose answer changed with another question's image come first:
they show what the model reads in the image."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from harness.api import ProbeContext
from harness.showcase import Picture, Shown, write_examples
from harness.types import BLANK_IMAGE, Example, Prediction

__all__ = ["show_ablation", "SHOWN"]

#: Examples recorded per task.
SHOWN = 4


def _humans(ex: Example) -> str:
    counts = Counter(a.strip().lower() for a in ex.answers)
    return ", ".join(f"{a} ({n})" for a, n in counts.most_common(3)) or ex.label or "-"


def show_ablation(ctx: ProbeContext, examples: Sequence[Example], donors: Sequence[int | None],
                  preds: Mapping[str, Sequence[Prediction]], swapped: Sequence[int]) -> None:
    """Record the first questions that have a swapped image (answer changed first)."""
    where = {i: j for j, i in enumerate(swapped)}

    def answer(cond: str, i: int) -> str | None:
        found = preds.get(cond)
        if found is None:
            return None
        k = i if cond != "swap" else where.get(i)
        return None if k is None else (found[k].answer or "(no answer)") if found[k].ok else "(model error)"

    order = sorted(where, key=lambda i: (answer("swap", i) == answer("real", i), i))
    shown = []
    for i in order[:SHOWN]:
        ex = examples[i]
        donor = examples[donors[i]] if donors[i] is not None else None
        pictures = [Picture("real image", ex.image), Picture("gray image", BLANK_IMAGE)]
        if donor is not None:
            pictures.append(Picture(f"swapped: the image of {donor.id}", donor.image))
        lines = [(f"answer, {name}", a) for cond, name in (("real", "real image"), ("blank", "gray image"),
                                                            ("swap", "swapped image"), ("no-question", "no question"))
                 for a in [answer(cond, i)] if a is not None]
        shown.append(Shown(ex.id, ex.question, tuple(pictures), (*lines, ("human answers", _humans(ex)))))
    write_examples(ctx, "Answers with the real image, a gray image and another question's image", shown)
