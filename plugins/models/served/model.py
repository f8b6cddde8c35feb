"""`openai`: any OpenAI-compatible chat endpoint (vLLM, SGLang, lmdeploy, TGI,
`transformers serve`, hosted APIs) as a harness model. See docs/served-models.md.

Each example is one chat request (image + task prompt); requests run `concurrency` at a
time and each answer is handed to the runner as it arrives (`predict_stream`), which
commits it to the prediction cache at once: a run killed at any point re-sends nothing it
had an answer for. Retries, the budget and usage live in `endpoint.py`; prompts and the
reading of answers in `messages.py`.
"""

from __future__ import annotations

import threading
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any, Iterator, Mapping, Sequence

from harness.api import Model
from harness.errors import ExitCode, StopRun, UsageError
from harness.types import Answer, Example, Prediction

from ..hf import lmms_eval
from ..hf.prompts import ENTAILMENT_LABELS, build_prompt, clean_answer, task_of
from .endpoint import BudgetWait, Endpoint, RequestFailed, Ticket
from .messages import (
    choice_prompt,
    closed_from_logprobs,
    family_prompts,
    closed_from_text,
    image_data_url,
    letters_from_logprobs,
    letters_from_text,
    prompt_table,
    sent_pixels,
    user_message,
)
from .options import OPTIONS, looks_like_a_key
from .replies import first_token, reply_text

__all__ = ["OpenAIModel"]

#: Bump when the reading of answers changes (messages.py, replies.py): cached predictions are
#: then redone. 2: content given as a list of parts is joined, a refusal reads as its text, and
#: a reply without an answer is a failed example (version 1 cached these as "" or as the list's
#: repr). 3: a letter is also read from "**B**", "`B`", quotes, "B, ...", "The correct answer is B",
#: "Option B" and a lower-case letter alone ("b", "(b)"); version 2 scored these as a tie; two
#: letters ("A, B", "(A) and (B)") are a tie. 4: a bare "a" after an answer prefix ("The answer
#: is a", "Answer: a") is the article of a cut-off answer, not option A ("Option a", "Choice: a",
#: "The correct option is a" stay letters).
PROTOCOL = 4

_LABELS = {"yes/no": ("yes", "no"), "entailment": ENTAILMENT_LABELS}


class OpenAIModel(Model):
    """A model behind an OpenAI-compatible `/chat/completions` endpoint."""

    name = "openai"
    description = "any OpenAI-compatible endpoint (vLLM, SGLang, TGI, lmdeploy, transformers serve, hosted APIs)"
    uses_images = True
    options = OPTIONS

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        base, model = str(self.config["base_url"]).strip(), str(self.config["model"]).strip()
        if not base.startswith(("http://", "https://")):
            raise UsageError(f"model {self.name!r}: option base_url=... is required, e.g. base_url=http://127.0.0.1:8000/v1"
                             + (f" (got {base!r})" if base else ""))
        if not model:
            raise UsageError(f"model {self.name!r}: option model=... is required (the name the endpoint serves)")
        c = self.config
        if c["api_key_env"] and looks_like_a_key(str(c["api_key_env"])):
            # Never echoed: it is most likely the key itself (api_key_env=$OPENAI_API_KEY), and the
            # options name the run folder and go into the manifest and the report.
            raise UsageError(f"model {self.name!r}: option api_key_env must be the name of an environment variable "
                             "(letters, digits, _; one that is set, or in capitals), e.g. "
                             "api_key_env=OPENAI_API_KEY, not the key itself (not shown)")
        for key in ("temperature", "top_p"):
            if -1 < float(c[key]) < 0:
                raise UsageError(f"model {self.name!r}: option {key}={c[key]} is out of range (-1: not sent, or >= 0)")
        self.endpoint = Endpoint(f"model {self.name!r}", base, model, api_key_env=c["api_key_env"],
                                 timeout=c["timeout"], max_retries=c["max_retries"],
                                 budget_requests=c["budget_requests"], budget_tokens=c["budget_tokens"])
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._ask_logprobs = c["logprobs"] != "off"
        #: The prompt per task (messages.family_prompts): a served PaliGemma is asked in its syntax.
        self.prompts = family_prompts(str(c["prompts"]), model)
        #: The length of a VQA answer (lmms-eval's 16 under protocol=lmms-eval unless max_tokens is given).
        self.vqa_max_tokens = lmms_eval.answer_length(c["protocol"], c["max_tokens"], "max_tokens" in options)

    def setup(self, device: str) -> None:
        """Nothing to load: the endpoint is contacted only for predictions not in the cache."""
        self.device = device

    def fingerprint_config(self) -> dict[str, Any]:
        """The options that change outputs; `token_param` only when it is not the default, so
        the fingerprints (and cached predictions) of runs made before it existed stay valid;
        the same for `protocol` (lmms_eval.protocol_config), with the VQA length when not default."""
        config = lmms_eval.protocol_config(super().fingerprint_config(), vqa_max_tokens=self.vqa_max_tokens)
        if config.get("token_param") == "max_tokens":
            del config["token_param"]
        return config

    def fingerprint_extra(self) -> Any:
        """The prompts sent and the answer-reading protocol (options are covered already)."""
        return {"prompts": dict(prompt_table(self.prompts)), "protocol": PROTOCOL}

    # ---------------------------------------------------------- capabilities
    def answer(self, batch: Sequence[Example]) -> list[Answer | str]:
        """Short answers; yes/no and entailment from log-probabilities when offered."""
        return [_value(p) for p in self._all(batch, "answer", [""] * len(batch))]

    def score_choices(self, batch: Sequence[Example]) -> list[list[float]]:
        """The lettered multiple-choice prompt, scored by letter log-probabilities or the letter written."""
        return [list(p.choice_scores or ()) for p in self._all(batch, "score_choices", [""] * len(batch))]

    def explain(self, batch: Sequence[Example], answers: Sequence[str]) -> list[str]:
        """One generated sentence explaining the given answer."""
        return [p.explanation or "" for p in self._all(batch, "explain", list(answers))]

    def _all(self, batch: Sequence[Example], capability: str, extras: list[str]) -> list[Prediction]:
        found: dict[int, Prediction] = {}
        for idx, preds in self.predict_stream(batch, capability, answers=extras):
            found.update(zip(idx, preds))
        if len(found) < len(batch):  # pragma: no cover - predict_stream yields every example or raises
            raise RequestFailed(f"plugin {self.name}: {len(batch) - len(found)} example(s) got no answer")
        out = [found[i] for i in range(len(batch))]
        failed = next((p for p in out if p.error), None)
        if failed is not None:
            raise RequestFailed(failed.error or "")
        return out

    # --------------------------------------------------------------- streaming
    def predict_stream(self, examples: Sequence[Example], capability: str, *, answers: Sequence[str] | None = None,
                       batch_size: int = 32) -> Iterator[tuple[list[int], list[Prediction]]]:
        """Yield ([index], [prediction]) as each answer arrives, at most `concurrency` in flight.

        The budget is reserved before each request is sent; when it (or the endpoint) stops
        the run, requests in flight are still awaited and yielded, then StopRun is raised."""
        if capability not in self.capabilities():
            raise UsageError(f"model {self.name!r} has no {capability!r} capability")
        extras = list(answers) if answers is not None else [""] * len(examples)
        width = int(self.config["concurrency"])
        longest = int(self.config["image_max_side"])
        pending: dict[Future, tuple[int, Ticket]] = {}
        stop: StopRun | None = None
        todo = iter(range(len(examples)))
        nxt = next(todo, None)

        def fill() -> None:
            nonlocal nxt, stop
            while stop is None and nxt is not None and len(pending) < width:
                ex = examples[nxt]
                try:
                    text = self._prompt_text(ex, capability, extras[nxt])
                except Exception:  # a question the prompt builders refuse: `_one` records its error
                    text = ""
                try:
                    ticket = self.endpoint.acquire(self._length(ex, capability), text, sent_pixels(ex.image, longest))
                except BudgetWait:
                    return
                except StopRun as exc:
                    stop = exc
                    return
                fut = _in_thread(self._one, ex, capability, extras[nxt], ticket)
                # Freed however the request ends, even if this generator is abandoned meanwhile.
                fut.add_done_callback(lambda _f, t=ticket: self.endpoint.release(t))
                pending[fut] = (nxt, ticket)
                nxt = next(todo, None)

        try:
            fill()
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                finished = []
                for fut in done:
                    i, ticket = pending.pop(fut)
                    self.endpoint.release(ticket)  # before fill(): done callbacks may not have run yet
                    try:
                        finished.append(([i], [fut.result()]))
                    except StopRun as exc:
                        stop = stop or exc
                fill()  # refill before the caller commits these: the endpoint never waits on the cache
                yield from finished
        finally:
            for fut in pending:  # abandoned (interrupted): one whose thread has not begun is never sent
                fut.cancel()
        if stop is not None:
            raise stop

    def _kind(self, ex: Example) -> str:
        """`task_of`, or "lmms-eval" for a VQA question under protocol=lmms-eval."""
        kind = task_of(ex.question, dict(ex.meta), tuple(ex.choices))
        return lmms_eval.LMMS_EVAL if lmms_eval.follows(self.config["protocol"], kind) else kind

    def _length(self, ex: Example, capability: str) -> int:
        """The length limit `_one` sends for this example."""
        if capability == "answer" and self._kind(ex) == lmms_eval.LMMS_EVAL:
            return self.vqa_max_tokens
        return int(self.config["explain_max_tokens" if capability == "explain" else "max_tokens"])

    def _prompt_text(self, ex: Example, capability: str, extra: str) -> str:
        """The text `_one` sends for this example (what the budget estimate counts)."""
        if capability == "answer":
            kind = self._kind(ex)
            if kind == lmms_eval.LMMS_EVAL:
                return lmms_eval.lmms_eval_prompt(ex.question)
            return build_prompt(kind, ex.question, templates=self.prompts)
        if capability == "score_choices":
            try:
                return choice_prompt(ex.question, ex.choices)
            except ValueError:  # too many choices: `_one` records the error and sends nothing
                return ""
        return build_prompt("explain", ex.question, extra, templates=self.prompts)

    def _one(self, ex: Example, capability: str, extra: str, ticket: Ticket) -> Prediction:
        """One example's request and its reading. Any failure becomes this example's error
        (only StopRun ends the run): nothing a worker raises may leave the runner guessing."""
        try:
            url = image_data_url(ex.image, self.config["image_format"], int(self.config["image_quality"]),
                                 int(self.config["image_max_side"]))
            if capability == "answer":
                return self._answer(ex, url, ticket)
            if capability == "score_choices":
                return Prediction(ex.id, capability, choice_scores=tuple(self._choices(ex, url, ticket)))
            text = self._content(self._ask(url, self._prompt_text(ex, capability, extra),
                                           int(self.config["explain_max_tokens"]), ticket, logprobs=False))
            return Prediction(ex.id, capability, answer=extra, explanation=text.strip())
        except StopRun:
            raise
        except Exception as exc:
            message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            error = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
            return Prediction(ex.id, capability, error=f"plugin {self.name}: {error}")

    def _answer(self, ex: Example, url: str, ticket: Ticket) -> Prediction:
        kind = self._kind(ex)
        labels = _LABELS.get(kind)
        response = self._ask(url, self._prompt_text(ex, "answer", ""), self._length(ex, "answer"), ticket,
                             logprobs=labels is not None)
        text = self._content(response)
        if labels is None:
            read = lmms_eval.lmms_eval_answer if kind == lmms_eval.LMMS_EVAL else clean_answer
            return Prediction(ex.id, "answer", answer=read(text))
        first = self._first_token(response)
        dist = closed_from_logprobs(first, labels) if first is not None else None
        if dist is not None:
            self._count("closed_by_logprobs")
            best = max(labels, key=lambda lab: (dist[lab], -labels.index(lab)))
            return Prediction(ex.id, "answer", answer=best, answer_scores=dist)
        self._count("closed_by_generation")
        return Prediction(ex.id, "answer", answer=closed_from_text(text, kind))

    def _choices(self, ex: Example, url: str, ticket: Ticket) -> list[float]:
        if not ex.choices:
            return []
        response = self._ask(url, choice_prompt(ex.question, ex.choices), int(self.config["max_tokens"]), ticket,
                             logprobs=True)
        first = self._first_token(response)
        scores = letters_from_logprobs(first, len(ex.choices)) if first is not None else None
        if scores is not None:
            self._count("choices_by_logprobs")
            return scores
        scores = letters_from_text(self._content(response), ex.choices)
        if scores is not None:
            self._count("choices_by_letter")
            return scores
        self._count("choices_unanswered")
        return [0.0] * len(ex.choices)

    # ----------------------------------------------------------------- requests
    def _ask(self, url: str, text: str, max_tokens: int, ticket: Ticket, *, logprobs: bool) -> Any:
        c = self.config
        params: dict[str, Any] = {"messages": user_message(url, text), c["token_param"]: max_tokens}
        for key in ("temperature", "top_p"):  # -1: not sent (the server's default)
            if float(c[key]) >= 0:
                params[key] = float(c[key])
        if int(c["seed"]) >= 0:
            params["seed"] = int(c["seed"])
        asked = logprobs and self._ask_logprobs
        if asked:
            params.update(logprobs=True, top_logprobs=int(c["top_logprobs"]))
        auto = asked and c["logprobs"] == "auto"
        try:
            return self.endpoint.chat(ticket, tolerate="logprob" if auto else "", **params)
        except RequestFailed as exc:
            if not (auto and exc.status in (400, 422) and "logprob" in exc.detail.lower()):
                raise
            self._ask_logprobs = False  # this endpoint refuses them: ask without from now on
            params.pop("logprobs"), params.pop("top_logprobs")
            return self.endpoint.chat(ticket, **params)

    def _first_token(self, response: Any) -> Any:
        """The first generated token's log-probability record, or None when none came back."""
        token = first_token(response)
        if token is not None:
            return token
        if self.config["logprobs"] == "on":
            self.endpoint.stop("returned no log-probabilities (logprobs=on); use logprobs=auto or off",
                               ExitCode.USAGE)
        return None

    def _content(self, response: Any) -> str:
        """The generated text (text parts joined; a refusal's text when that is all, counted)."""
        text, refused = reply_text(response)
        if refused:
            self._count("refusals")
        return text

    # ------------------------------------------------------------------- usage
    def _count(self, key: str) -> None:
        with self._lock:
            self._counts[key] = self._counts.get(key, 0) + 1

    def usage(self) -> Mapping[str, Any]:
        """Requests, attempts, retries, tokens, and how closed answers and choices were read."""
        with self._lock:
            counts = dict(sorted(self._counts.items()))
        return {**self.endpoint.usage.as_dict(), **counts}

    def report_notes(self) -> str:
        """How this run read closed answers and multiple choice, with counts (the run says which)."""
        c = self.usage()
        lines = [f"Endpoint `{self.endpoint.base_url}`, model `{self.config['model']}`: {c['requests']} answered "
                 f"requests ({c['attempts']} sent), {c['prompt_tokens']} prompt and {c['completion_tokens']} "
                 "completion tokens in this process (the manifest's `usage` adds the attempts a resumed run "
                 "continues)."]
        if c.get("closed_by_logprobs") or c.get("closed_by_generation"):
            lines.append(f"Yes/no and entailment answers: {c.get('closed_by_logprobs', 0)} from log-probabilities, "
                         f"{c.get('closed_by_generation', 0)} from generated text.")
        if any(k.startswith("choices_") for k in c):
            lines.append(f"Multiple choice (lettered prompt): {c.get('choices_by_logprobs', 0)} from letter "
                         f"log-probabilities, {c.get('choices_by_letter', 0)} from the letter written, "
                         f"{c.get('choices_unanswered', 0)} naming no option (scored as a tie).")
        return "\n".join(f"- {line}" for line in lines)


def _in_thread(fn: Any, *args: Any) -> Future:
    """`fn(*args)` in a daemon thread of its own (at most `concurrency` at once): a run
    interrupted while requests are in flight exits at once instead of waiting for each
    (`timeout` x retries) as the non-daemon workers of a ThreadPoolExecutor made it do."""
    fut: Future = Future()

    def work() -> None:
        if not fut.set_running_or_notify_cancel():
            return
        try:
            fut.set_result(fn(*args))
        except BaseException as exc:  # handed to the stream, which re-raises StopRun
            fut.set_exception(exc)

    threading.Thread(target=work, name="openai-request", daemon=True).start()
    return fut


def _value(pred: Prediction) -> Answer | str:
    if pred.answer_scores:
        return Answer(pred.answer or "", dict(pred.answer_scores))
    return pred.answer or ""

