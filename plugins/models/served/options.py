"""The `openai` model's options (model.py), and the check that `api_key_env` names a variable."""

from __future__ import annotations

import os
import re

from harness.api import Option

from ..hf import lmms_eval
from .messages import PROMPT_SETS

__all__ = ["OPTIONS", "looks_like_a_key"]

OPTIONS = {
    "base_url": Option("", "the endpoint, e.g. http://127.0.0.1:8000/v1 (not in the fingerprint: a moved "
                           "server serves the same model)", fingerprint=False),
    "model": Option("", "the model name the endpoint serves (GET <base_url>/models lists them)"),
    "model_revision": Option("", "free text naming the weights behind `model` (a commit, a date); part of "
                                 "the fingerprint, so new weights under an old name are asked again"),
    "api_key_env": Option("", "name of the environment variable holding the API key (the key itself is never "
                              "written anywhere); empty: no key", fingerprint=False),
    "concurrency": Option(8, "requests in flight at once", min=1, max=1024, fingerprint=False),
    "timeout": Option(120.0, "seconds to wait for one answer", min=1, max=3600, fingerprint=False),
    "max_retries": Option(5, "retries of one request (429, 5xx, dropped connections)", min=0, max=100,
                          fingerprint=False),
    "max_tokens": Option(10, "answer length limit (tokens); also multiple choice", min=1, max=65536),
    "explain_max_tokens": Option(40, "explanation length limit (tokens)", min=1, max=65536),
    "token_param": Option("max_tokens", "the request field that carries the length limit: max_tokens, or "
                                        "max_completion_tokens (hosted reasoning models accept only that one)",
                          ("max_tokens", "max_completion_tokens")),
    "temperature": Option(0.0, "sampling temperature (0: greedy; -1: not sent, the server's default, which "
                               "is all hosted reasoning models accept)", min=-1, max=2),
    "top_p": Option(1.0, "nucleus sampling mass (-1: not sent)", min=-1, max=1),
    "seed": Option(-1, "sampling seed sent to the server (-1: none sent)", min=-1, max=2**31 - 1),
    "logprobs": Option("auto", "closed answers and multiple choice from log-probabilities: auto (when the "
                               "server returns them), on (required), off (never asked)", ("auto", "on", "off")),
    "top_logprobs": Option(20, "alternatives asked for the first answer token", min=1, max=20),
    "image_format": Option("jpeg", "image encoding sent", ("jpeg", "png", "webp")),
    "image_quality": Option(95, "jpeg/webp quality", min=1, max=100),
    "image_max_side": Option(0, "longest image side sent, in pixels (0: as stored)", min=0, max=16384),
    "budget_requests": Option(0, "stop before this run answers more requests (0: no budget)", min=0,
                              max=10**12, fingerprint=False),
    "budget_tokens": Option(0, "stop before this process uses more prompt+completion tokens, each request "
                               "reserved at an estimated worst case (docs/served-models.md says how far the "
                               "estimate can miss); needs the server's usage counts (0: no budget)", min=0,
                            max=10**15, fingerprint=False),
    "protocol": lmms_eval.PROTOCOL_OPTION,
    "prompts": Option("auto", "the prompt per task: auto (a family's own when the served model's name names "
                              "it, as paligemma; else the shared ones), shared, or a family's: paligemma "
                              "(its task syntax \"answer en {question}\"); in the fingerprint as the prompts sent",
                      PROMPT_SETS, fingerprint=False),
}


def looks_like_a_key(value: str) -> bool:
    """Whether `api_key_env`'s `value` is more likely the key than its variable's name: not a
    name at all (`sk-...`), or a name-shaped key (`gsk_...`: letters, digits, '_') that is not set
    and not in capitals as variable names are. An unset name in capitals is left to the first
    request (a re-run answered from the cache needs no key)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
        return True
    return not os.environ.get(value) and value != value.upper()
