"""Shared by the quality-mode tests: reading the generators' outputs (the `modes` fixture,
both generators, is in conftest.py)."""

from __future__ import annotations

from vqa_harness_plugins.generators.counterfactual import Perturbation, perturb_many


def text(value: Perturbation | str) -> str:
    """The counterfactual question, or the reason no counterfactual was made."""
    return value if isinstance(value, str) else value.counterfactual


def quality(modes, question: str, kind: str) -> str:
    return text(modes[1].perturb(question)[kind])


def rejected(modes, question: str, kind: str) -> dict[str, int]:
    return dict(perturb_many(modes[1], [question])[2][kind])


class FixedSimilarity:
    """A stand-in for sense_vectors.SenseVectors whose every word similarity is `value`
    (the floors of relations.far_apart)."""

    def __init__(self, value: float) -> None:
        self.value = value

    def word_similarity(self, left, right):
        return self.value
