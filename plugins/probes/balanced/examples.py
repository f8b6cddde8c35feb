"""A few complementary pairs with both images (same question, two images, different answers)
and the model's answer to each, for the run and model pages (harness.showcase). Pairs the
model answered identically come first: there, it did not follow the image."""

from __future__ import annotations

from collections.abc import Sequence

from harness.api import ProbeContext
from harness.showcase import Picture, Shown, write_examples
from harness.types import Prediction

__all__ = ["show_pairs", "SHOWN"]

#: Pairs recorded per task.
SHOWN = 4


def show_pairs(ctx: ProbeContext, pairs: Sequence[tuple[int, int]], preds: Sequence[Prediction], outcomes) -> None:
    """Record the first pairs (identical answers first) with both images and both answers."""
    order = sorted(range(len(outcomes)), key=lambda n: (not outcomes[n].identical, n))[:SHOWN]
    shown = []
    for n in order:
        i, j = pairs[n]
        a, b = ctx.examples[i], ctx.examples[j]
        lines = (("answer, image 1", preds[i].answer or "-"), ("truth, image 1", a.label or ", ".join(a.answers[:1])),
                 ("answer, image 2", preds[j].answer or "-"), ("truth, image 2", b.label or ", ".join(b.answers[:1])),
                 ("pair", "identical answers" if outcomes[n].identical else "answered differently"))
        shown.append(Shown(f"{a.id} | {b.id}", a.question, (Picture("image 1", a.image), Picture("image 2", b.image)),
                           lines))
    write_examples(ctx, "Complementary pairs: the same question on two images", shown)
