"""Reading what a server answers: how long it asks to wait (`Retry-After`), the message of
an error body, the innermost cause of a dropped connection, the text of a reply and why a
200 response carries no answer."""

from __future__ import annotations

import email.utils
import time
from typing import Any

__all__ = ["MAX_RETRY_AFTER", "retry_after", "error_message", "innermost_reason", "reply_text", "first_token",
           "reply_problem"]

#: The longest server-requested wait honoured (seconds); longer ones wait this long.
MAX_RETRY_AFTER = 120.0


def retry_after(headers: Any) -> float | None:
    """Seconds the server asked to wait (`retry-after-ms`, `retry-after` in seconds or as an
    HTTP date), capped at MAX_RETRY_AFTER; None when it did not ask."""
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            return max(0.0, min(float(raw) / scale, MAX_RETRY_AFTER))
        except ValueError:
            pass
        if name == "retry-after":
            try:
                when = email.utils.parsedate_to_datetime(raw).timestamp()
            except (TypeError, ValueError):
                return None
            return max(0.0, min(when - time.time(), MAX_RETRY_AFTER))
    return None


def innermost_reason(exc: BaseException) -> str:
    """The innermost cause's message ("Connection refused"), one line."""
    for _ in range(10):  # bounded: a cycle of causes must not hang the error path
        inner = exc.__cause__ or exc.__context__
        if inner is None:
            break
        exc = inner
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]


def error_message(exc: Any) -> str:
    """The first line of an API error's message (the body's `error.message` / `detail` when
    the server sent one), at most 300 characters."""
    body = getattr(exc, "body", None)
    text = ""
    if isinstance(body, dict):
        inner = body.get("error", body)
        text = str(inner.get("message") or inner.get("detail") or "") if isinstance(inner, dict) else str(inner)
    text = text or str(getattr(exc, "message", "") or exc)
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return first[:300]


def _text_of(content: Any) -> str:
    """A message's `content` as text: a string, or the text parts of a list of parts
    (`[{"type": "text", "text": ...}]`, which some servers return) joined."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        parts = [part.get("text") if isinstance(part, dict) else getattr(part, "text", None) for part in content]
        return "".join(p for p in parts if isinstance(p, str))
    return str(content)


def reply_text(response: Any) -> tuple[str, bool]:
    """(the first choice's generated text, whether it is a refusal). A message with no
    content but a `refusal` (OpenAI's refusal field) reads as that refusal's text."""
    choices = getattr(response, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    text = _text_of(getattr(message, "content", None))
    refusal = getattr(message, "refusal", None)
    if not text.strip() and isinstance(refusal, str) and refusal.strip():
        return refusal, True
    return text, False


def first_token(response: Any) -> Any:
    """The first generated token's log-probability record of the first choice (None when no
    log-probabilities came back): closed answers and choices are read from its alternatives."""
    choice = (getattr(response, "choices", None) or [None])[0]
    content = getattr(getattr(choice, "logprobs", None), "content", None) or []
    return content[0] if content else None


def reply_problem(response: Any, limit: int | None) -> str:
    """Why a 200 response carries no answer ("" when it carries one): not a chat completion
    (no choices, an `error` object, a first choice without a message), or an empty answer cut
    at the length limit (`finish_reason: length`: a reasoning model spent `limit` tokens
    thinking) without log-probabilities to read the answer from. Such a response fails its
    example (not cached) instead of reading as ""."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        error = getattr(response, "error", None)
        if isinstance(error, dict):
            error = error.get("message") or error
        said = str(error).strip().splitlines()[0][:300] if error and str(error).strip() else ""
        return "response has no choices" + (f" (error: {said})" if said else " (not a chat completion)")
    if getattr(choices[0], "message", None) is None:
        return "response's first choice has no message"
    text, _ = reply_text(response)
    scored = first_token(response) is not None  # an answer is read from its alternatives
    if not text.strip() and getattr(choices[0], "finish_reason", None) == "length" and not scored:
        return (f"empty answer cut at the length limit (finish_reason: length, {limit} tokens); a reasoning model? "
                "raise max_tokens / explain_max_tokens (docs/served-models.md)")
    return ""
