"""`hf-vlm`: image-text-to-text chat models (LLaVA-style) via AutoProcessor + chat templates.

- `answer`: per-task prompts (prompts.py). Entailment labels and, by default, yes/no
  questions are answered by comparing the log-likelihoods of the closed label set (no text
  parsing); open questions are generated greedily with left padding and cleaned by the
  documented rules (`prompts.clean_answer`).
- `score_choices`: the log-likelihood of each candidate's tokens after the short-answer
  prompt, summed (no parsing of free text, hence no answer-extraction bugs). Each example's
  candidates form one forward pass, so scores never depend on the other examples in a batch.
- `explain`: generation from the "explain why" prompt with the given answer.
- `protocol=lmms-eval` (lmms_eval.py): VQA questions, yes/no included, are generated from
  lmms-eval's vqav2 prompt (16 tokens unless `max_new_tokens` is given) and processed as it
  processes them; entailment, multiple choice and explanations are unchanged.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from harness.api import Option
from harness.errors import UsageError
from harness.types import Answer, Example

from .base import COMMON_OPTIONS, HFModelBase
from .families import FAMILIES, family_of
from .lmms_eval import (
    LMMS_EVAL,
    PROTOCOL_OPTION,
    answer_length,
    follows,
    lmms_eval_answer,
    lmms_eval_prompt,
    protocol_config,
)
from .loading import read_config
from .pipeline import Prepared, decode
from .prompts import ENTAILMENT_LABELS, PROMPTS, build_prompt, clean_answer, task_of
from .vqa import GENERATOR_TYPES

__all__ = ["HFVLMModel"]


class HFVLMModel(HFModelBase):
    """Chat VLMs (AutoModelForImageTextToText) with prompts per task and log-likelihood scoring."""

    name = "hf-vlm"
    description = "Hugging Face chat VLM (LLaVA-style image-text-to-text), prompts per task, MC by log-likelihood"
    options = {
        # max_length is hf-vqa's question truncation; a chat prompt is never cut here.
        **{k: v for k, v in COMMON_OPTIONS.items() if k != "max_length"},
        "max_new_tokens": Option(10, "answer length limit in tokens", min=1, max=4096),
        "explain_max_new_tokens": Option(40, "explanation length limit in tokens", min=1, max=4096),
        "yes_no": Option("loglik", "yes/no questions: compare log P(yes) and log P(no), or generate",
                         ("loglik", "generate")),
        "protocol": PROTOCOL_OPTION,
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        kind = read_config(self.source.folder).get("model_type")
        if kind in GENERATOR_TYPES and kind not in FAMILIES:  # BLIP-style VQA models: hf-vqa's
            raise UsageError(f"model {self.name!r}: {self.source.folder} is a {kind} checkpoint, not a chat VLM "
                             f"(hf-vlm's prompts and generation do not fit it): run it with "
                             f"hf-vqa:path={self.source.folder}")
        #: The prompt per task: the shared ones, with the family's own where it has them.
        self.prompts = {**PROMPTS, **dict(family_of(kind).prompts)}
        c = self.config
        if c["protocol"] == LMMS_EVAL and "yes_no" in options:
            raise UsageError(f"model {self.name!r}: option yes_no does not apply under protocol=lmms-eval "
                             "(every VQA question is generated from lmms-eval's prompt)")
        # max_new_tokens is used by VQA answers only (entailment and choices are log-likelihoods).
        c["max_new_tokens"] = answer_length(c["protocol"], c["max_new_tokens"], "max_new_tokens" in options)

    def _auto_classes(self) -> Sequence[Any]:
        import transformers  # heavy: imported on use

        return [transformers.AutoModelForImageTextToText]

    def fingerprint_extra(self) -> Any:
        """Also the scoring protocol: 2 = candidates after a space and the common token prefix,
        images one list per prompt (families.py); predictions cached under 1 are redone. And
        the prompts: a changed prompt asks again."""
        return {**super().fingerprint_extra(), "protocol": 2, "prompts": dict(self.prompts)}

    def fingerprint_config(self) -> dict[str, Any]:
        """The options; `protocol` only when it is not the default (lmms_eval.protocol_config)."""
        return protocol_config(super().fingerprint_config())

    def _after_load(self) -> None:
        self.family = family_of(getattr(self.net.config, "model_type", None))
        self.tokenizer = getattr(self.processor, "tokenizer", self.processor)
        # 0 = leave sizing to the processor (LLaVA-style processors resize to a fixed size).
        self.image_size = int(self.config["image_size"])
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token

    # ---------------------------------------------------------- capabilities
    def answer(self, batch: Sequence[Example]) -> list[Answer | str]:
        """Closed label sets by log-likelihood, open questions by generation + cleaning."""
        return self._run(batch, "answer", [""] * len(batch))

    def score_choices(self, batch: Sequence[Example]) -> list[list[float]]:
        """Summed log-likelihood of each candidate after the short-answer prompt."""
        return self._run(batch, "score_choices", [""] * len(batch))

    def explain(self, batch: Sequence[Example], answers: Sequence[str]) -> list[str]:
        """One-sentence explanation generated from the "explain why" prompt."""
        return self._run(batch, "explain", list(answers))

    # ------------------------------------------------------------- prompts
    def chat_prompt(self, text: str) -> str:
        """The templated prompt for one user turn with one image (generation prompt added);
        the text as it is for a family whose processor lays out the prompt (PaliGemma)."""
        if not self.family.chat:  # the processor adds BOS and a newline after the text
            return f"{getattr(self.processor, 'image_token', '<image>')}{text}"
        messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": text}]}]
        template = getattr(self.processor, "chat_template", None) or getattr(self.tokenizer, "chat_template", None)
        if template:
            return self.processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        image_token = getattr(self.processor, "image_token", "<image>")
        return f"USER: {image_token}\n{text} ASSISTANT:"  # plain LLaVA-1.5 format as a fallback

    def prompt(self, kind: str, question: str, answer: str = "") -> str:
        """The user text for task `kind` (this family's template where it has one)."""
        return build_prompt(kind, question, answer, templates=self.prompts)

    def task(self, ex: Example) -> str:
        kind = task_of(ex.question, dict(ex.meta), tuple(ex.choices))
        if follows(self.config["protocol"], kind):
            return LMMS_EVAL
        if kind == "yes/no" and self.config["yes_no"] == "generate":
            return "short-yes/no"
        return kind

    # ------------------------------------------------------------ internals
    def _prepare(self, batch: Sequence[Example], capability: str, extras: Sequence[str], threads: int = 0) -> Prepared:
        images = decode(batch, self.image_size, threads)
        rows = [i for i, im in enumerate(images) if not isinstance(im, Exception)]
        errors = {i: im for i, im in enumerate(images) if isinstance(im, Exception)}
        # Inputs are built per call in _forward (prompts differ by task); carry the images.
        return Prepared(rows, {}, errors, extra={"images": [images[i] for i in rows]})

    def _forward(self, prepared: Prepared, capability: str, batch: Sequence[Example], extras: Sequence[str]) -> list[Any]:
        images = prepared.extra["images"]
        if capability == "score_choices":
            return [self.loglik(im, self.prompt("choice", ex.question), ex.choices) for im, ex in zip(images, batch)]
        if capability == "explain":
            prompts = [self.prompt("explain", ex.question, a) for ex, a in zip(batch, extras)]
            return self.backoff.run(len(batch), lambda a, b: self.generate(images[a:b], prompts[a:b],
                                                                           self.config["explain_max_new_tokens"]))
        out: list[Any] = [None] * len(batch)
        open_rows = []
        kinds = [self.task(ex) for ex in batch]
        for i, (im, ex, kind) in enumerate(zip(images, batch, kinds)):
            if kind in ("entailment", "yes/no"):
                labels = ENTAILMENT_LABELS if kind == "entailment" else ("yes", "no")
                scores = self.loglik(im, self.prompt(kind, ex.question), labels)
                out[i] = _closed_answer(labels, scores)
            else:
                open_rows.append(i)
        if open_rows:
            prompts = [self._open_prompt(kinds[i], batch[i].question) for i in open_rows]
            texts = self.backoff.run(len(open_rows), lambda a, b: self.generate(
                [images[i] for i in open_rows[a:b]], prompts[a:b], self.config["max_new_tokens"]))
            for i, text in zip(open_rows, texts):
                if kinds[i] == LMMS_EVAL:
                    out[i] = lmms_eval_answer(text)
                else:
                    out[i] = clean_answer(text, yes_no=kinds[i] == "short-yes/no")
        return out

    def _open_prompt(self, kind: str, question: str) -> str:
        """The user text of a generated answer: lmms-eval's, or this family's prompt."""
        if kind == LMMS_EVAL:
            return lmms_eval_prompt(question)
        return self.prompt("yes/no" if kind == "short-yes/no" else "short", question)

    def generate(self, images: Sequence[Any], prompts: Sequence[str], max_new_tokens: int) -> list[str]:
        """Greedy generation for a batch, left-padded so every prompt ends where decoding starts."""
        self.tokenizer.padding_side = "left"
        inputs = self.processor(images=[[im] for im in images], text=[self.chat_prompt(p) for p in prompts],
                                padding=True, return_tensors="pt")
        inputs = {k: v.to(self.device, non_blocking=True) if hasattr(v, "to") else v for k, v in inputs.items()}
        with self._autocast():
            out = self.net.generate(**inputs, max_new_tokens=int(max_new_tokens), do_sample=False,
                                    pad_token_id=self.tokenizer.pad_token_id)
        new = out[:, inputs["input_ids"].shape[1] :]
        return [t.strip() for t in self.tokenizer.batch_decode(new, skip_special_tokens=True)]

    def loglik(self, image: Any, prompt: str, candidates: Sequence[str]) -> list[float]:
        """Sum of log P(candidate tokens | image, prompt) for each candidate (one forward pass).

        The candidate follows the templated prompt as the model would write it (one space
        after a prompt that does not end in whitespace); its tokens are those after the
        longest common prefix with the prompt's own tokens (families.py). PaliGemma's
        candidates go through the processor's `suffix` (token_type_ids mark them; its EOS
        is not scored).
        """
        if not candidates:
            return []
        context = self.chat_prompt(prompt)
        self.tokenizer.padding_side = "right"
        if self.family.candidates == "suffix":
            inputs = self.processor(images=[[image]] * len(candidates), text=[context] * len(candidates),
                                    suffix=list(candidates), padding=True, return_tensors="pt")
            marks = inputs["token_type_ids"]
            spans = [(int(row.nonzero()[0]), int(row.nonzero()[-1])) for row in marks]  # EOS (last) excluded
        else:
            joiner = "" if not context or context[-1].isspace() else " "
            prompt_ids = self.processor(images=[[image]], text=[context], return_tensors="pt")["input_ids"][0].tolist()
            inputs = self.processor(images=[[image]] * len(candidates), text=[context + joiner + c for c in candidates],
                                    padding=True, return_tensors="pt")
            lengths = inputs["attention_mask"].sum(dim=1).tolist()
            spans = [(_common_prefix(prompt_ids, row.tolist()), int(n)) for row, n in zip(inputs["input_ids"], lengths)]
        return self._span_logprobs(inputs, spans)

    def _span_logprobs(self, inputs: Any, spans: Sequence[tuple[int, int]]) -> list[float]:
        """Sum of log P(token t | tokens < t) over t in [start, stop) for each row."""
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        inputs = {k: v.to(self.device, non_blocking=True) if hasattr(v, "to") else v for k, v in inputs.items()}
        with self._autocast():
            logits = self.net(**inputs).logits
        logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
        picked = logp.gather(-1, inputs["input_ids"][:, 1:, None]).squeeze(-1)
        # Token t is predicted at position t-1.
        return [float(picked[r, max(start, 1) - 1 : stop - 1].sum()) for r, (start, stop) in enumerate(spans)]


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token id lists."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _closed_answer(labels: Sequence[str], scores: Sequence[float]) -> Answer:
    """The most likely label, with the label distribution (softmax of log-likelihoods)."""
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    total = sum(weights)
    best = max(range(len(labels)), key=lambda i: (scores[i], -i))
    return Answer(labels[best], {lab: w / total for lab, w in zip(labels, weights)})
