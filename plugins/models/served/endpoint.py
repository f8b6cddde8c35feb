"""One OpenAI-compatible endpoint: requests with retries, usage accounting and a budget.

The official `openai` client sends each request (its own retries are off: this module
decides, so every attempt is counted and the rules below hold on every client version):

- 429 and 408/409, 5xx, dropped or refused connections and timeouts are retried up to
  `max_retries` times, waiting `Retry-After` / `retry-after-ms` when the server sends one
  (at most `MAX_RETRY_AFTER` seconds), else 0.5 s doubling up to 8 s, with jitter so that
  many workers do not come back at once.
- Connections still refused after every retry, 429s after every retry, 401/403, and a
  model the endpoint does not serve stop the run (`StopRun`, one line naming the endpoint);
  5xx, timeouts and other 4xx after every retry fail that example only (not cached, so a
  re-run asks again).
- The API key is read from the environment variable named by `api_key_env` when the client
  is built and is never stored in the options, the fingerprint, a log or a message.
- Usage: answered requests, attempts, retries by cause, prompt and completion tokens.
  A budget (`budget_requests`, `budget_tokens`) is checked before each request is sent: a
  request is sent only if, with every request in flight, it cannot take the run past the
  budget (a token budget counts each request at its worst case: `max_tokens` plus the
  largest prompt seen so far; until the first answer, one request at a time).
"""

from __future__ import annotations

import email.utils
import os
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from harness.errors import ExitCode, StopRun

__all__ = ["Endpoint", "Usage", "RequestFailed", "BudgetWait", "retry_after", "MAX_RETRY_AFTER"]

#: The longest server-requested wait honoured (seconds); longer ones wait this long.
MAX_RETRY_AFTER = 120.0
_BASE_DELAY, _MAX_DELAY = 0.5, 8.0


class RequestFailed(Exception):
    """One example's request failed for good (after retries): an error for that example only."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Usage:
    """Counters (guarded by the endpoint's lock)."""

    requests: int = 0  # answered requests (one per example and capability)
    attempts: int = 0  # HTTP requests sent, retries included
    retries: dict[str, int] = field(default_factory=dict)  # cause -> count
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    largest_prompt: int = 0

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"requests": self.requests, "attempts": self.attempts, "failed_requests": self.failed,
                               "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}
        out.update({f"retries_{cause}": n for cause, n in sorted(self.retries.items())})
        return out


class Endpoint:
    """A thread-safe handle on `base_url` serving `model`, shared by the request workers."""

    def __init__(self, owner: str, base_url: str, model: str, *, api_key_env: str = "", timeout: float = 120.0,
                 max_retries: int = 5, budget_requests: int = 0, budget_tokens: int = 0) -> None:
        self.owner, self.base_url, self.model = owner, base_url.rstrip("/"), model
        self.api_key_env, self.timeout, self.max_retries = api_key_env, float(timeout), int(max_retries)
        self.budget_requests, self.budget_tokens = int(budget_requests), int(budget_tokens)
        self.usage = Usage()
        self._lock = threading.Lock()
        self._inflight = 0
        self._reserved_tokens = 0
        self._stopped: StopRun | None = None
        self._served: list[str] | None = None
        self._secret = ""
        self._client: Any = None

    # ------------------------------------------------------------------ client
    def client(self) -> Any:
        """The `openai.OpenAI` client, built on first use (a cached re-run needs neither the
        package nor the key); a missing package or key stops the run (StopRun)."""
        with self._lock:
            if self._client is None:
                try:
                    import openai  # optional (the `openai` extra): a cached re-run does not need it
                except ImportError:
                    raise StopRun(f"{self.owner}: the `openai` package is not installed "
                                  "(pip install 'vqa-harness[openai]')", ExitCode.USAGE) from None
                key = "EMPTY"  # vLLM/SGLang/transformers serve accept any key unless started with one
                if self.api_key_env:
                    key = os.environ.get(self.api_key_env, "")
                    if not key:
                        raise StopRun(f"{self.owner}: api_key_env={self.api_key_env}, but that environment "
                                      "variable is not set or empty", ExitCode.USAGE)
                self._secret = key if self.api_key_env else ""
                self._client = openai.OpenAI(base_url=self.base_url, api_key=key, timeout=self.timeout, max_retries=0)
            return self._client

    def scrub(self, text: str) -> str:
        """`text` with the API key masked (server messages may echo it)."""
        return text.replace(self._secret, "***") if self._secret else text

    # ------------------------------------------------------------------ budget
    def acquire(self, max_tokens: int) -> int:
        """Reserve room for one request under the budget; returns the tokens reserved.
        Raises StopRun (exit code PARTIAL) when the request could exceed the budget."""
        with self._lock:
            if self._stopped is not None:
                raise self._stopped
            u = self.usage
            if self.budget_requests and u.requests + self._inflight + 1 > self.budget_requests:
                self._stop(f"budget of {self.budget_requests} requests reached ({u.requests} answered)", ExitCode.PARTIAL)
            tokens = 0
            if self.budget_tokens:
                if u.largest_prompt == 0 and self._inflight:
                    # No prompt size known yet: wait for the first answer before sending more.
                    raise BudgetWait()
                tokens = max_tokens + u.largest_prompt
                used = u.prompt_tokens + u.completion_tokens
                if used + self._reserved_tokens + tokens > self.budget_tokens:
                    if self._inflight:
                        raise BudgetWait()  # in-flight requests may use less than reserved
                    self._stop(f"budget of {self.budget_tokens} tokens reached ({used} used; the next request may "
                               f"need {tokens})", ExitCode.PARTIAL)
            self._inflight += 1
            self._reserved_tokens += tokens
            return tokens

    def release(self, reserved: int) -> None:
        with self._lock:
            self._inflight -= 1
            self._reserved_tokens -= reserved

    def _stop(self, reason: str, code: ExitCode = ExitCode.RESOURCE) -> None:
        """Stop every worker (lock held): the first reason is the one reported."""
        if self._stopped is None:
            tail = (" (answered requests are cached: re-run with a larger budget to go on)"
                    if code == ExitCode.PARTIAL else " (answered requests are cached; re-run to go on)")
            self._stopped = StopRun(f"{self.owner}: endpoint {self.base_url}: {self.scrub(reason)}{tail}", code)
        raise self._stopped

    def stop(self, reason: str, code: ExitCode = ExitCode.RESOURCE) -> None:
        with self._lock:
            self._stop(reason, code)

    # ---------------------------------------------------------------- requests
    def chat(self, **params: Any) -> Any:
        """`chat.completions.create` with the retry rules of the module docstring."""
        import openai  # optional (the `openai` extra), present once client() has succeeded

        client = self.client()
        last = ""
        for attempt in range(self.max_retries + 1):
            with self._lock:
                if self._stopped is not None:
                    raise self._stopped
                self.usage.attempts += 1
            try:
                response = client.chat.completions.create(model=self.model, **params)
            except openai.APIStatusError as exc:
                status = exc.status_code
                detail = self._detail(exc)
                if status in (401, 403):
                    self.stop(f"refused the API key{self._key_source()} (HTTP {status}: {detail})")
                if status == 429 or status in (408, 409) or status >= 500:
                    cause = "429" if status == 429 else ("5xx" if status >= 500 else str(status))
                    last = f"HTTP {status}: {detail}"
                    if attempt < self.max_retries:
                        self._wait(cause, attempt, exc.response.headers)
                        continue
                    if status == 429:
                        self.stop(f"still rate-limited after {attempt + 1} tries ({last}); lower concurrency")
                    self._failed()
                    raise RequestFailed(f"endpoint {self.base_url}: {last} after {attempt + 1} tries", status) from None
                self._check_model(status, detail)
                self._failed()
                raise RequestFailed(f"endpoint {self.base_url}: HTTP {status}: {detail}", status) from None
            except openai.APIConnectionError as exc:
                timeout = isinstance(exc, openai.APITimeoutError)
                last = "timed out" if timeout else _reason(exc)
                if attempt < self.max_retries:
                    self._wait("timeout" if timeout else "connection", attempt, None)
                    continue
                if timeout:
                    self._failed()
                    raise RequestFailed(f"endpoint {self.base_url}: no answer within {self.timeout:g} s "
                                        f"after {attempt + 1} tries") from None
                self.stop(f"unreachable ({last}) after {attempt + 1} tries; is the server running there?")
            self._account(response)
            return response
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _account(self, response: Any) -> None:
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        with self._lock:
            u = self.usage
            u.requests += 1
            u.prompt_tokens += prompt
            u.completion_tokens += completion
            u.largest_prompt = max(u.largest_prompt, prompt, 1)

    def _failed(self) -> None:
        with self._lock:
            self.usage.failed += 1

    def _wait(self, cause: str, attempt: int, headers: Any) -> None:
        with self._lock:
            self.usage.retries[cause] = self.usage.retries.get(cause, 0) + 1
        delay = retry_after(headers)
        if delay is None:
            delay = min(_BASE_DELAY * 2**attempt, _MAX_DELAY) * random.uniform(0.75, 1.0)
        time.sleep(delay)

    def _check_model(self, status: int, detail: str) -> None:
        """After a 400/404/422: stop with a clear line when the endpoint does not serve the
        model (asked once, through GET /models) or has no chat completions route at all."""
        served = self.served_models()
        if served and self.model not in served:
            shown = ", ".join(served[:5]) + (" ..." if len(served) > 5 else "")
            self.stop(f"does not serve model {self.model!r} (it serves: {shown}); pass model=<one of them>",
                      ExitCode.USAGE)
        if status == 404:
            self.stop(f"HTTP 404 on /chat/completions ({detail}); base_url should end where /chat/completions "
                      "starts (e.g. http://host:8000/v1)", ExitCode.USAGE)

    def served_models(self) -> list[str]:
        """Model ids listed by GET /models ([] when the endpoint has no such route)."""
        if self._served is None:
            try:
                self._served = [m.id for m in self.client().models.list().data]
            except Exception:
                self._served = []
        return self._served

    def _detail(self, exc: Any) -> str:
        body = getattr(exc, "body", None)
        text = ""
        if isinstance(body, dict):
            inner = body.get("error", body)
            text = str(inner.get("message") or inner.get("detail") or "") if isinstance(inner, dict) else str(inner)
        text = text or str(getattr(exc, "message", "") or exc)
        first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
        return self.scrub(first[:300])

    def _key_source(self) -> str:
        return f" from ${self.api_key_env}" if self.api_key_env else " (no api_key_env set)"


class BudgetWait(Exception):
    """The budget cannot tell yet: reserve again once a request in flight is done."""


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


def _reason(exc: BaseException) -> str:
    """The innermost cause's message ("Connection refused"), one line."""
    for _ in range(10):  # bounded: a cycle of causes must not hang the error path
        inner = exc.__cause__ or exc.__context__
        if inner is None:
            break
        exc = inner
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]
