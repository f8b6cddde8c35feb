"""Hugging Face adapters: `hf-vqa` (VQA-head models) and `hf-vlm` (chat VLMs). See docs/hf-models.md.

Heavy imports (torch, transformers) happen when a model is instantiated or set up, so
registering the plugin stays cheap.
"""

from __future__ import annotations

from .vlm import HFVLMModel
from .vqa import HFVQAModel

__all__ = ["HFVQAModel", "HFVLMModel"]
