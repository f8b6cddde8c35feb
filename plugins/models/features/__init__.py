"""Built-in feature extractors for feature-based models (the MLP probes of Chao et al.).

Image: `toy-objects`, `toy-pixels` (toy.py), `precomputed` (precomputed.py, a .npz / .npy
file; a bare file path in a model option means this), `hf-vision` (hf_vision.py, a local
transformers vision model). Text: `hashed-bow`, `sentence` (text.py). See docs/plugins.md
for writing another one.
"""

from __future__ import annotations

from .hf_vision import HFVisionFeatures
from .precomputed import PrecomputedFeatures
from .text import HashedBagOfWords, SentenceFeatures
from .toy import ToyObjectFeatures, ToyPixelFeatures

__all__ = ["ToyObjectFeatures", "ToyPixelFeatures", "PrecomputedFeatures", "HFVisionFeatures",
           "HashedBagOfWords", "SentenceFeatures"]
