"""A model run from a program leaves the program's torch random state as it was: training
seeds its own generators under `fork_rng`, and so does rebuilding a network whose weights
come from the weight cache (its initialisation drew from the global generator, so the
caller's next `torch.rand` depended on whether the weights were cached)."""

from __future__ import annotations

import torch

from harness.types import Example
from vqa_harness_plugins.models.qonly import QOnlyModel


def _examples(n: int) -> list[Example]:
    colors = ["red", "blue", "green"]
    return [Example(id=f"q{i}", question=f"what color is the ball {i % 5}?", image_id=str(i),
                    answers=(colors[i % 3],) * 10, answer_type="other", question_type="what color is the",
                    label=colors[i % 3]) for i in range(n)]


def test_qonly_fit_trained_or_cached_leaves_the_global_generator(fresh_cache) -> None:
    train = _examples(30)
    for attempt in ("trained", "from the weight cache"):
        torch.manual_seed(123)
        before = torch.get_rng_state()
        model = QOnlyModel(epochs=1)
        model.fit(train, seed=0)  # cached weights are loaded on the first prediction
        assert len(model.answer(train[:4])) == 4
        assert torch.equal(torch.get_rng_state(), before), attempt
