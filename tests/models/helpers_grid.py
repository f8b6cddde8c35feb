"""Tiny grid-feature data for the attention models and the counter-example explainer.

Every image is 4 regions of 7 values: a one-hot color (4), a one-hot shape (2) and an
occupancy flag. Image i holds one object; the question names its shape and the answer is
its color, so the image (and attention to the occupied region) is needed. Grids are
written to a .npz keyed by image id (the models' `grid` option).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from harness.types import Example

COLORS = ("red", "green", "blue", "yellow")
SHAPES = ("box", "ball")
REGIONS, WIDTH = 4, 7


def grid_of(color: int, shape: int, cell: int) -> np.ndarray:
    grid = np.zeros((REGIONS, WIDTH), dtype=np.float32)
    grid[cell, color] = grid[cell, 4 + shape] = grid[cell, 6] = 1.0
    return grid


def scenes(n: int, seed: int, prefix: str) -> tuple[list[Example], dict[str, np.ndarray]]:
    """n open-ended examples ("what color is the box?") and their grids by image id."""
    rng = random.Random(seed)
    examples, grids = [], {}
    for i in range(n):
        color, shape, cell = rng.randrange(4), rng.randrange(2), rng.randrange(REGIONS)
        image_id = f"{prefix}{i}"
        grids[image_id] = grid_of(color, shape, cell)
        examples.append(Example(id=f"{prefix}q{i}", question=f"what color is the {SHAPES[shape]}?",
                                image_id=image_id, image=f"/nonexistent/{image_id}.png",
                                answers=(COLORS[color],) * 10, label=COLORS[color], answer_type="other"))
    return examples, grids


def multiple_choice(examples: list[Example], seed: int) -> list[Example]:
    """The same questions with 4 candidates (the target and the other colors), shuffled."""
    rng = random.Random(seed)
    out = []
    for ex in examples:
        choices = list(COLORS)
        rng.shuffle(choices)
        out.append(ex.with_(choices=tuple(choices), meta={"mc_target": ex.label}))
    return out


def write_grids(path: Path, grids: dict[str, np.ndarray]) -> str:
    np.savez(path, **grids)
    return str(path)
