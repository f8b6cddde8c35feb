"""Reading what a server answers besides a completion: how long it asks to wait
(`Retry-After`), the message of an error body, the innermost cause of a dropped connection."""

from __future__ import annotations

import email.utils
import time
from typing import Any

__all__ = ["MAX_RETRY_AFTER", "retry_after", "error_message", "innermost_reason"]

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
