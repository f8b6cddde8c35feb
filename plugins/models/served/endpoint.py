"""One OpenAI-compatible endpoint: requests with retries, usage accounting and a budget.

The official `openai` client sends each request (its own retries are off: this module
decides, so every attempt is counted and the rules below hold on every client version):

- 429 and 408/409, 5xx, dropped or refused connections and timeouts are retried up to
  `max_retries` times, waiting `Retry-After` / `retry-after-ms` when the server sends one
  (at most `MAX_RETRY_AFTER` seconds), else 0.5 s doubling up to 8 s, with jitter so that
  many workers do not come back at once.
- Connections still refused after every retry, 429s after every retry, 401/403, a model the
  endpoint does not serve, and `SAME_4XX_STOP` identical 4xx answers in a row (a parameter
  the server refuses fails every request alike) stop the run (`StopRun`, one line naming the
  endpoint and what the server said); 5xx, timeouts and other 4xx after every retry fail
  that example only (not cached, so a re-run asks again); `FAILED_STOP` of those in a row
  with no answer between them stop the run.
- A 200 response that carries no answer (no choices, an `error` object, an empty answer cut
  at the length limit) or cannot be read (not JSON, not UTF-8) fails its example like a 5xx,
  instead of reading as an empty answer.
- The API key is read from the environment variable named by `api_key_env` when the client
  is built and is never stored in the options, the fingerprint, a log or a message.
- Usage: answered requests, attempts, retries by cause, prompt and completion tokens.
- Budgets (`budget_requests`, `budget_tokens`) are checked before each example's request is
  sent (`acquire`, a `Ticket`): it is sent only if, with every request in flight, its worst
  case cannot take the run past the budget. A token budget needs the server's `usage`
  (a response without it stops the run) and an estimate of the prompt the server will count,
  which it cannot know exactly (`_estimate`): the worst-case prompt is the text's UTF-8
  bytes plus the largest of (the largest prompt counted so far, the most tokens per image
  pixel seen so far x this image's pixels), scaled up by the worst underestimate seen. Until
  the first answer nothing is known about the image: one request is sent alone. So the
  total can pass the budget only by what the server counted beyond the reservations of the
  requests in flight; the stop message says by how much (docs/served-models.md).
"""

from __future__ import annotations

import json
import math
import os
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from harness.errors import ExitCode, StopRun

from .replies import MAX_RETRY_AFTER, error_message, innermost_reason, reply_problem, retry_after
from .routes import client_options, proxy_hint

__all__ = ["Endpoint", "Usage", "Ticket", "RequestFailed", "BudgetWait", "retry_after", "MAX_RETRY_AFTER",
           "SAME_4XX_STOP", "FAILED_STOP"]

_BASE_DELAY, _MAX_DELAY = 0.5, 8.0

#: Identical 4xx answers in a row (no answer between them) that stop the run: a request
#: parameter the server refuses fails every example the same way.
SAME_4XX_STOP = 5

#: Requests in a row that failed for good on a 5xx, a timeout or a response that carries no
#: answer (no answer between them) that stop the run: a broken server fails every example
#: alike, and a re-run asks again for each (instead of failing 100,000 examples one by one).
FAILED_STOP = 5

#: Words of a 4xx message that point at the request's generation parameters (hosted
#: reasoning models refuse max_tokens and temperature): the stop message then says what to pass.
_PARAMETER_WORDS = ("max_tokens", "max_completion_tokens", "temperature", "top_p", "logprobs", "unsupported")


class RequestFailed(Exception):
    """One example's request failed for good (after retries): an error for that example only."""

    def __init__(self, message: str, status: int | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.status, self.detail = status, detail


@dataclass
class Ticket:
    """One example's place under the budget: the tokens reserved for its request (its worst
    case), the text bytes and image pixels the estimate was made from, and what the server
    counted for its answers. Released once, when the example is done (`Endpoint.release`)."""

    reserved: int = 0
    estimate: int = 0  # the prompt estimate, unscaled (0: made before any answer, a guess)
    text_bytes: int = 0
    pixels: int = 0
    prompt: int = 0
    completion: int = 0
    released: bool = False


@dataclass
class Usage:
    """Counters (guarded by the endpoint's lock)."""

    requests: int = 0  # answered requests (one per example and capability)
    attempts: int = 0  # HTTP requests sent, retries included
    retries: dict[str, int] = field(default_factory=dict)  # cause -> count
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    without_usage: int = 0  # answers whose response carried no token counts
    underestimates: int = 0  # requests the server counted more tokens for than were reserved
    largest_prompt: int = 0
    prompt_per_pixel: float = 0.0  # the most prompt tokens per image pixel seen

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"requests": self.requests, "attempts": self.attempts, "failed_requests": self.failed,
                               "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}
        if self.without_usage:
            out["responses_without_usage"] = self.without_usage
        if self.underestimates:
            out["budget_underestimates"] = self.underestimates
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
        self._margin = 1.0  # the worst ratio of counted to estimated prompt tokens seen (>= 1)
        self._last_4xx: tuple[Any, int] = (None, 0)  # ((status, message), times in a row)
        self._failed_in_a_row = 0  # requests failed for good on 5xx, timeouts, unanswered replies
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
                self._client = openai.OpenAI(base_url=self.base_url, api_key=key, timeout=self.timeout, max_retries=0,
                                             **client_options(openai, self.base_url, self.timeout))
            return self._client

    def scrub(self, text: str) -> str:
        """`text` with the API key masked (server messages may echo it)."""
        return text.replace(self._secret, "***") if self._secret else text

    # ------------------------------------------------------------------ budget
    def acquire(self, max_tokens: int, text: str = "", pixels: int = 0) -> Ticket:
        """Reserve room under the budget for one example's request (prompt `text`, an image of
        `pixels`, at most `max_tokens` generated). Raises BudgetWait when only requests in
        flight can tell whether it fits, StopRun (exit code PARTIAL) when it cannot fit."""
        with self._lock:
            if self._stopped is not None:
                raise self._stopped
            u = self.usage
            if self.budget_requests and u.requests + self._inflight + 1 > self.budget_requests:
                self._stop(f"budget of {self.budget_requests} requests reached ({u.requests} answered)", ExitCode.PARTIAL)
            ticket = Ticket(text_bytes=len(text.encode("utf-8")), pixels=max(0, int(pixels)))
            if self.budget_tokens:
                if u.largest_prompt == 0 and self._inflight:
                    raise BudgetWait()  # nothing known about the prompts yet: one request alone
                known = u.largest_prompt > 0
                prompt = self._estimate(ticket)
                ticket.estimate = prompt if known else 0
                ticket.reserved = int(max_tokens) + math.ceil(prompt * self._margin)
                used = u.prompt_tokens + u.completion_tokens
                if used + self._reserved_tokens + ticket.reserved > self.budget_tokens:
                    if self._inflight:
                        raise BudgetWait()  # in-flight requests may use less than reserved
                    self._stop(self._budget_spent(used, ticket.reserved), ExitCode.PARTIAL)
            self._inflight += 1
            self._reserved_tokens += ticket.reserved
            return ticket

    def _estimate(self, ticket: Ticket) -> int:
        """The prompt tokens the server may count for this request (lock held): one per UTF-8
        byte of the text (a byte-level or byte-fallback tokenizer never counts more), plus the
        larger of the largest prompt counted so far (a fixed-size image encoder, the chat
        template) and the most tokens per pixel seen x this image's pixels (dynamic-resolution
        encoders); the caller scales it by the worst underestimate seen. Before any answer the
        image counts 0: nothing is known about it."""
        u = self.usage
        return ticket.text_bytes + max(u.largest_prompt, math.ceil(u.prompt_per_pixel * ticket.pixels))

    def _budget_spent(self, used: int, need: int) -> str:
        u = self.usage
        if used <= self.budget_tokens:
            return f"budget of {self.budget_tokens} tokens reached ({used} used; the next request may need {need})"
        first = " (the first request, sent before any prompt size was known)" if u.requests <= 1 else ""
        return (f"budget of {self.budget_tokens} tokens exceeded by {used - self.budget_tokens}: {used} used; the "
                f"server counted more tokens than reserved for {u.underestimates} request(s){first}")

    def release(self, ticket: Ticket) -> None:
        """The example is done (answered, failed or abandoned): free its reservation. Idempotent."""
        with self._lock:
            if ticket.released:
                return
            ticket.released = True
            self._inflight -= 1
            self._reserved_tokens -= ticket.reserved
            if self.budget_tokens and ticket.prompt + ticket.completion > ticket.reserved:
                self.usage.underestimates += 1
            if ticket.estimate and ticket.prompt > ticket.estimate:  # scale later estimates by this miss
                self._margin = max(self._margin, ticket.prompt / ticket.estimate)

    def _halt(self, reason: str, code: ExitCode = ExitCode.RESOURCE) -> StopRun:
        """Stop every worker (lock held): the first reason is the one reported."""
        if self._stopped is None:
            tail = (" (answered requests are cached: re-run with a larger budget to go on)"
                    if code == ExitCode.PARTIAL else " (answered requests are cached; re-run to go on)")
            self._stopped = StopRun(f"{self.owner}: endpoint {self.base_url}: {self.scrub(reason)}{tail}", code)
        return self._stopped

    def _stop(self, reason: str, code: ExitCode = ExitCode.RESOURCE) -> None:
        raise self._halt(reason, code)

    def stop(self, reason: str, code: ExitCode = ExitCode.RESOURCE) -> None:
        with self._lock:
            self._stop(reason, code)

    # ---------------------------------------------------------------- requests
    def chat(self, ticket: Ticket | None = None, *, tolerate: str = "", **params: Any) -> Any:
        """`chat.completions.create` with the retry rules of the module docstring; the tokens
        the server counts are added to `ticket`. A 400/422 whose message mentions `tolerate`
        is not counted towards `SAME_4XX_STOP` (the caller asks again without that parameter)."""
        import openai  # optional (the `openai` extra), present once client() has succeeded

        client = self.client()
        last = ""
        for attempt in range(self.max_retries + 1):
            with self._lock:
                # A spent budget (PARTIAL) still sends what was reserved before it was spent;
                # any other stop (endpoint gone, key refused, ...) sends nothing more.
                if self._stopped is not None and self._stopped.exit_code != ExitCode.PARTIAL:
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
                    self._failed(last)
                    raise RequestFailed(f"endpoint {self.base_url}: {last} after {attempt + 1} tries", status,
                                        detail) from None
                self._check_model(status, detail)
                if not (tolerate and status in (400, 422) and tolerate in detail.lower()):
                    # (a tolerated refusal is asked again, without the option: not a failure)
                    self._failed(in_a_row=False)  # 4xx: SAME_4XX_STOP applies
                    self._refused(status, detail)
                raise RequestFailed(f"endpoint {self.base_url}: HTTP {status}: {detail}", status, detail) from None
            except openai.APIConnectionError as exc:
                timeout = isinstance(exc, openai.APITimeoutError)
                last = "timed out" if timeout else innermost_reason(exc)
                if attempt < self.max_retries:
                    self._wait("timeout" if timeout else "connection", attempt, None)
                    continue
                if timeout:
                    self._failed(f"no answer within {self.timeout:g} s")
                    raise RequestFailed(f"endpoint {self.base_url}: no answer within {self.timeout:g} s "
                                        f"after {attempt + 1} tries") from None
                self.stop(f"unreachable ({last}) after {attempt + 1} tries; "
                          f"{proxy_hint(self.base_url) or 'is the server running there?'}")
            except (openai.APIError, json.JSONDecodeError, UnicodeDecodeError) as exc:
                # a response the client cannot read: not the API's shape, a body cut short
                # (the client's json.loads raises), or bytes that are not UTF-8
                last = f"unreadable response ({type(exc).__name__}: {self._detail(exc)})"
                self._failed(last)
                raise RequestFailed(f"endpoint {self.base_url}: {last}") from None
            problem = reply_problem(response, params.get("max_tokens", params.get("max_completion_tokens")))
            self._account(response, ticket, answered=not problem)
            if problem:
                self._failed(self.scrub(problem))
                raise RequestFailed(f"endpoint {self.base_url}: {self.scrub(problem)}")
            return response
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _account(self, response: Any, ticket: Ticket | None, answered: bool = True) -> None:
        """Count a response's tokens, and an answer when it `answered`. Under a token budget, a
        response without token counts stops the run once it is handed over."""
        usage = getattr(response, "usage", None)
        raw_prompt, raw_completion = getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None)
        counted = isinstance(raw_prompt, int) and isinstance(raw_completion, int)
        prompt, completion = (int(raw_prompt), int(raw_completion)) if counted else (0, 0)
        with self._lock:
            u = self.usage
            u.prompt_tokens += prompt
            u.completion_tokens += completion
            if answered:
                u.requests += 1
                self._last_4xx, self._failed_in_a_row = (None, 0), 0
            if not counted:
                u.without_usage += 1
                if self.budget_tokens:
                    self._halt(f"the response carries no token usage, so budget_tokens={self.budget_tokens} cannot "
                               "be kept; use budget_requests instead", ExitCode.USAGE)
                return
            u.largest_prompt = max(u.largest_prompt, prompt, 1)
            if ticket is not None:
                ticket.prompt += prompt
                ticket.completion += completion
                if ticket.pixels:
                    u.prompt_per_pixel = max(u.prompt_per_pixel, prompt / ticket.pixels)

    def _refused(self, status: int, detail: str) -> None:
        """A 4xx that failed one example: `SAME_4XX_STOP` identical ones in a row stop the run."""
        with self._lock:
            key, count = self._last_4xx
            count = count + 1 if key == (status, detail) else 1
            self._last_4xx = ((status, detail), count)
            if count >= SAME_4XX_STOP:
                hint = ""
                if any(word in detail.lower() for word in _PARAMETER_WORDS):
                    hint = ("; a reasoning model? pass token_param=max_completion_tokens,temperature=-1,top_p=-1,"
                            "logprobs=off and a larger max_tokens (docs/served-models.md)")
                self._stop(f"HTTP {status} on {count} requests in a row, each saying: {detail}{hint}", ExitCode.USAGE)

    def _failed(self, last: str = "", in_a_row: bool = True) -> None:
        """A request failed for good; `FAILED_STOP` in a row (`in_a_row`: 5xx, timeouts,
        responses without an answer) with no answer between them stop the run."""
        with self._lock:
            self.usage.failed += 1
            self._failed_in_a_row += 1 if in_a_row else 0
            if in_a_row and self._failed_in_a_row >= FAILED_STOP:
                self._stop(f"{self._failed_in_a_row} requests in a row failed after every retry, the last with: "
                           f"{last}; is the server healthy?")

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
        return self.scrub(error_message(exc))

    def _key_source(self) -> str:
        return f" from ${self.api_key_env}" if self.api_key_env else " (no api_key_env set)"


class BudgetWait(Exception):
    """The budget cannot tell yet: reserve again once a request in flight is done."""
