"""Hugging Face adapters: `hf-vqa` (VQA-head models) and `hf-vlm` (chat VLMs). See docs/hf-models.md.

Heavy imports (torch, transformers) happen when a model is instantiated or set up, so
registering the plugin stays cheap.
"""

from __future__ import annotations

from typing import Callable

from harness.api import Model
from harness.hookspecs import hookimpl

from .vlm import HFVLMModel
from .vqa import HFVQAModel

__all__ = ["HFVQAModel", "HFVLMModel", "register_models"]


@hookimpl
def register_models(register: Callable[[type[Model]], None]) -> None:
    """Register `hf-vqa` and `hf-vlm`."""
    register(HFVQAModel)
    register(HFVLMModel)
