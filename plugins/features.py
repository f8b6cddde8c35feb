"""Plugin `features`: the built-in feature extractors of feature-based models (docs/plugins.md).

Image: `toy-objects`, `toy-pixels`, `precomputed` (a .npz / .npy file), `hf-vision` (a local
transformers vision model). Text: `hashed-bow`, `sentence`.
"""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .models.features import (
    HashedBagOfWords,
    HFVisionFeatures,
    PrecomputedFeatures,
    SentenceFeatures,
    ToyObjectFeatures,
    ToyPixelFeatures,
)


@hookimpl
def register_features(register) -> None:
    """Register the built-in image and text feature extractors."""
    for cls in (ToyObjectFeatures, ToyPixelFeatures, PrecomputedFeatures, HFVisionFeatures, HashedBagOfWords,
                SentenceFeatures):
        register(cls)
