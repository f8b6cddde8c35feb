"""Seeded image derangements: give every question the image of another question.

`image_derangement` maps each item to a donor item whose image differs from its own (not
merely another question on the same image), optionally only within the same group (the
question type). Within one group the items are laid out image by image in a seeded random
order and each takes the image of the item `m` places further on, `m` being the size of the
largest image group: with images contiguous and no image holding more than `m` of the
`n` items, the donor `m` places ahead (cyclically) is always on another image as long as
`m <= n / 2`, which is also exactly when such an assignment exists at all. Items of groups
where it does not exist are pooled and deranged together the same way; what is still
impossible is left out (the probe reports how many).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.seeding import seeded_random

__all__ = ["Derangement", "image_derangement", "rotate_by_image"]


@dataclass(frozen=True)
class Derangement:
    """donor[i] is the index whose image item i gets (None: left out); counts of items
    deranged within their group, across groups (the pool), and left out."""

    donor: tuple[int | None, ...]
    within_group: int
    across_groups: int
    left_out: int


def rotate_by_image(items: Sequence[int], image_of: Sequence[str], *, seed: object) -> dict[int, int] | None:
    """A donor for each of `items` with another image (seeded), or None when impossible
    (one image holds more than half of the items, or fewer than 2 items)."""
    by_image: dict[str, list[int]] = {}
    for i in items:
        by_image.setdefault(image_of[i], []).append(i)
    n = len(items)
    largest = max((len(v) for v in by_image.values()), default=0)
    if n < 2 or 2 * largest > n:
        return None
    rng = seeded_random("image-derangement", seed)
    images = sorted(by_image)
    rng.shuffle(images)
    order: list[int] = []
    for image in images:
        members = sorted(by_image[image])
        rng.shuffle(members)
        order.extend(members)
    return {order[k]: order[(k + largest) % n] for k in range(n)}


def image_derangement(image_of: Sequence[str], groups: Sequence[str] | None = None, *,
                      seed: int) -> Derangement:
    """Donors for every item (see the module docstring); `groups` None: one group."""
    n = len(image_of)
    keys = list(groups) if groups is not None else [""] * n
    if len(keys) != n:
        raise ValueError(f"{len(keys)} group labels for {n} items")
    members: dict[str, list[int]] = {}
    for i, g in enumerate(keys):
        members.setdefault(g, []).append(i)
    donor: list[int | None] = [None] * n
    pooled: list[int] = []
    within = 0
    for g in sorted(members):
        found = rotate_by_image(members[g], image_of, seed=f"{seed}/{g}")
        if found is None:
            pooled.extend(members[g])
            continue
        for i, d in found.items():
            donor[i] = d
        within += len(found)
    across = 0
    if pooled:
        found = rotate_by_image(sorted(pooled), image_of, seed=f"{seed}/*pooled*")
        if found is not None:
            for i, d in found.items():
                donor[i] = d
            across = len(found)
    return Derangement(tuple(donor), within, across, sum(d is None for d in donor))
