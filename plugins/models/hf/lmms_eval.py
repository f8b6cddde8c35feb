"""`protocol=lmms-eval`, shared by `hf-vlm` and `openai`: VQA questions asked and read as
lmms-eval's `vqav2` task does (docs/hf-models.md, "protocol=lmms-eval").

The facts, from EvolvingLMMs-Lab/lmms-eval (v0.4.1 and later; `tasks/vqav2/*.yaml`,
`tasks/vqav2/utils.py`, `tasks/_task_utils/vqa_eval_metric.py`):
- every question, yes/no included, is "{question}\\nAnswer the question using a single word
  or phrase." (the question as stored, not stripped), generated greedily, `max_new_tokens` 16;
- before scoring, the prediction's newlines and tabs become spaces and it is stripped, then
  its EvalAI processor's `process_punctuation` and `process_digit_article` rewrite it
  (`lmms_eval_answer`). Those are the official VQA steps except one condition: marks are
  deleted (not spaced) when digits are separated by one OR MORE commas ("1,,000"), where the
  official script looks for exactly one.
Only VQA questions ("short" and "yes/no" in `prompts.task_of`) follow it: entailment, multiple
choice and explanations keep the harness protocol (lmms-eval's vqav2 has no rule for them).
Pure functions (no torch).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from harness.api import Option
from harness.metrics.vqa import PUNCTUATION, process_digit_article

__all__ = ["HARNESS", "LMMS_EVAL", "MAX_NEW_TOKENS", "PROMPT", "PROTOCOL_OPTION", "answer_length", "follows",
           "lmms_eval_answer", "lmms_eval_prompt", "protocol_config"]

HARNESS, LMMS_EVAL = "harness", "lmms-eval"
PROTOCOL_OPTION = Option(HARNESS, "how VQA questions are asked and read: harness (docs/hf-models.md) or lmms-eval "
                                  "(lmms-eval's vqav2: one short-answer prompt for every question, generated, "
                                  "16 tokens, its answer processing)", (HARNESS, LMMS_EVAL))
PROMPT = "{question}\nAnswer the question using a single word or phrase."
MAX_NEW_TOKENS = 16
#: The question kinds (`prompts.task_of`) lmms-eval's vqav2 rule covers.
VQA_KINDS = frozenset({"short", "yes/no"})

_DIGIT_COMMAS = re.compile(r"(?<=\d),+(?=\d)")  # a digit, one or more commas, a digit
# A period not followed by a digit. The reference's call passes re.UNICODE (32) where the
# count goes, so at most 32 periods are deleted.
_PERIOD = re.compile(r"\.(?!\d)")
_MAX_PERIODS = 32


def follows(protocol: str, kind: str) -> bool:
    """Whether a question of this kind is asked the lmms-eval way under `protocol`."""
    return protocol == LMMS_EVAL and kind in VQA_KINDS


def lmms_eval_prompt(question: str) -> str:
    """The user text lmms-eval's vqav2 sends: the question as stored, then the instruction."""
    return PROMPT.format(question=question)


def lmms_eval_answer(text: str) -> str:
    """The prediction as lmms-eval's vqav2 scores it: newlines and tabs to spaces, stripped,
    punctuation (`_punctuation`), then lower case, number words to digits, no articles,
    contractions restored (the official `process_digit_article`)."""
    return process_digit_article(_punctuation(text.replace("\n", " ").replace("\t", " ").strip()))


def _punctuation(text: str) -> str:
    """Each mark deleted when it touches a space or digits are comma-separated anywhere in the
    text, else replaced by a space (decided on the text as given); then periods not followed by
    a digit deleted (at most 32)."""
    delete_all = _DIGIT_COMMAS.search(text) is not None
    out = text
    for mark in PUNCTUATION:
        spaced = f"{mark} " in text or f" {mark}" in text
        out = out.replace(mark, "" if delete_all or spaced else " ")
    return _PERIOD.sub("", out, count=_MAX_PERIODS)


def answer_length(protocol: str, value: int, given: bool) -> int:
    """The VQA answer length: lmms-eval's 16 under protocol=lmms-eval unless the user set the
    length option (`given`), else the option's value."""
    return MAX_NEW_TOKENS if protocol == LMMS_EVAL and not given else int(value)


def protocol_config(config: Mapping[str, Any], **when_lmms_eval: Any) -> dict[str, Any]:
    """A fingerprint config without `protocol` at its default (so fingerprints made before the
    option existed stay valid), with `when_lmms_eval` added under protocol=lmms-eval."""
    out = dict(config)
    if out.get("protocol", HARNESS) == HARNESS:
        out.pop("protocol", None)
    else:
        out.update(when_lmms_eval, lmms_eval_prompt=PROMPT)
    return out
