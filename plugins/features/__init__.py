"""Built-in feature extractors for feature-based models (the MLP probes of Chao et al.).

Image: `toy-objects`, `toy-pixels` (toy.py), `precomputed` (precomputed.py, a .npz / .npy
file; a bare file path in a model option means this), `hf-vision` (hf_vision.py, a local
transformers vision model). Text: `hashed-bow`, `sentence` (text.py). See docs/plugins.md
for writing another one.
"""

from __future__ import annotations

from typing import Callable

from harness.api import FeatureExtractor
from harness.hookspecs import hookimpl

from .hf_vision import HFVisionFeatures
from .precomputed import PrecomputedFeatures
from .text import HashedBagOfWords, SentenceFeatures
from .toy import ToyObjectFeatures, ToyPixelFeatures

__all__ = ["ToyObjectFeatures", "ToyPixelFeatures", "PrecomputedFeatures", "HFVisionFeatures",
           "HashedBagOfWords", "SentenceFeatures", "register_features"]


@hookimpl
def register_features(register: Callable[[type[FeatureExtractor]], None]) -> None:
    """Register the built-in image and text feature extractors."""
    for cls in (ToyObjectFeatures, ToyPixelFeatures, PrecomputedFeatures, HFVisionFeatures, HashedBagOfWords,
                SentenceFeatures):
        register(cls)
