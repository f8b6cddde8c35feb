"""The `modes` fixture: (paper, quality) generators sharing WordNet and the tagger."""

from __future__ import annotations

import pytest

from harness.errors import ResourceError
from vqa_harness_plugins.generators.counterfactual import Perturber


@pytest.fixture(scope="module")
def modes() -> tuple[Perturber, Perturber]:
    """(paper, quality) generators sharing WordNet and the tagger; skipped without them."""
    try:
        paper = Perturber(seed=0, mode="paper")
        return paper, Perturber(seed=0, mode="quality", wn=paper.wn, tagger=paper.tagger)
    except ResourceError as exc:
        pytest.skip(f"NLP resources missing: {exc}")
