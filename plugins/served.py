"""Plugin `openai`: models behind any OpenAI-compatible endpoint (vLLM, SGLang, lmdeploy,
TGI, `transformers serve`, hosted APIs), model `openai` (docs/served-models.md). The
`openai` client is imported only when a prediction is not in the cache."""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .models.served import OpenAIModel


@hookimpl
def register_models(register) -> None:
    """Register `openai`."""
    register(OpenAIModel)
