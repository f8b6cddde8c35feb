"""Served models: the `openai` model for OpenAI-compatible endpoints (docs/served-models.md).

No network and no `openai` import at registration: the client is built on the first
request that the prediction cache cannot answer.
"""

from __future__ import annotations

from .model import OpenAIModel

__all__ = ["OpenAIModel"]
