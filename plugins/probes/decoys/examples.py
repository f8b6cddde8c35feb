"""A few decoy questions with their image, candidates and the model's picks, for the run and
model pages (harness.showcase): the leaderboard shows the image beside the candidates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.api import ProbeContext
from harness.showcase import Picture, Shown, write_examples
from harness.types import Example

__all__ = ["show_decoys", "SHOWN", "SETS"]

#: Examples recorded per decoy set, and the sets recorded (the paper's original candidates and
#: the set where neither input alone suffices).
SHOWN = 3
SETS = ("orig", "iou+qou")
#: Ablation label -> how the pick is named.
_INPUTS = {"IQA": "picked, image + question", "QA": "picked, no image", "IA": "picked, no question",
           "A": "picked, answers only"}


def show_decoys(ctx: ProbeContext, variant: str, examples: Sequence[Example],
                picks: Mapping[str, Sequence[str | None]]) -> None:
    """Record the first examples of one decoy set: the image, the candidates (the target
    marked) and what the model picked with each input (the sets of `SETS` only)."""
    if variant not in SETS:
        return
    shown = []
    for i, ex in enumerate(examples[:SHOWN]):
        target = str(ex.meta.get("mc_target", ex.label))
        lines = [("candidates", " · ".join(f"{c} (target)" if c == target else c for c in ex.choices))]
        lines += [(_INPUTS.get(label, f"picked, {label}"), found[i] or "no pick")
                  for label, found in picks.items() if i < len(found)]
        shown.append(Shown(ex.id, ex.question, (Picture("image", ex.image),), tuple(lines)))
    write_examples(ctx, f"Decoys {variant}: the candidates and the model's picks", shown, variant=variant)
