"""Plugin `hf`: Hugging Face adapters `hf-vqa` (VQA-head models) and `hf-vlm` (chat VLMs),
loaded from local folders (docs/hf-models.md). torch and transformers are imported only when
a model is built."""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .models.hf import HFVLMModel, HFVQAModel


@hookimpl
def register_models(register) -> None:
    """Register `hf-vqa` and `hf-vlm`."""
    register(HFVQAModel)
    register(HFVLMModel)
