"""Prompts for chat VLMs per task, and the documented rules that clean open answers.

Pure functions (no torch), so the rules are easy to test and to cite in a paper.

Task of an example (`task_of`), decided from what the model is shown, never from its
ground truth:
- "entailment": `meta["task"]` is "entailment"/"nli"/"ve", or the example's label set is
  e-SNLI-VE's (the question is then a hypothesis);
- "yes/no": the question starts with an auxiliary verb (is, are, does, can, ...);
- "short": everything else (open VQA).
Multiple choice (`score_choices`) and "explain why" have their own prompts.

Answer cleaning (`clean_answer`), applied in this order to generated text:
1. keep the first non-empty line;
2. drop a leading "answer:" / "the answer is" / "a:" (any case);
3. strip surrounding whitespace, quotes and trailing sentence punctuation (. ! ;);
4. lower-case;
5. for yes/no questions: "yes"/"no" when the text starts with that word
   ("Yes, there is a dog" -> "yes").
No other rewriting: numbers, articles and punctuation inside the answer are left to the
official VQA normalization at scoring time.
"""

from __future__ import annotations

import re

__all__ = [
    "ENTAILMENT_LABELS",
    "PROMPTS",
    "task_of",
    "build_prompt",
    "clean_answer",
    "is_yes_no_question",
]

ENTAILMENT_LABELS = ("entailment", "neutral", "contradiction")

PROMPTS = {
    "short": "{question}\nAnswer the question using a single word or phrase.",
    "yes/no": "{question}\nAnswer the question with yes or no.",
    "entailment": ('Does the image entail, contradict, or is it neutral to the statement "{question}"?\n'
                   "Answer with one word: entailment, neutral, or contradiction."),
    "choice": "{question}\nAnswer the question using a single word or phrase.",
    "explain": "{question}\nThe answer is: {answer}. Explain why, in one sentence.",
}

_AUX = ("is", "are", "was", "were", "am", "does", "do", "did", "can", "could", "will", "would", "should",
        "has", "have", "had", "may", "might", "must", "shall")
_PREFIX = re.compile(r"^\s*(?:the\s+answer\s+is\s*:?|answer\s*:|a\s*:)\s*", re.IGNORECASE)


def is_yes_no_question(question: str) -> bool:
    """True when the question starts with an auxiliary verb ("Is there ...", "Does it ...")."""
    words = question.strip().lower().split()
    return bool(words) and words[0] in _AUX and "or" not in words  # "is it red or blue" is not yes/no


def task_of(question: str, meta: dict | None = None, choices: tuple[str, ...] = ()) -> str:
    """"entailment", "yes/no" or "short" (see the module docstring for the rules).

    Decided from the task tag and the label *set* (the choices), never from the example's
    ground-truth label."""
    kind = str((meta or {}).get("task", "")).lower()
    if kind in ("entailment", "nli", "ve", "e-snli-ve") or (
        choices and {c.lower() for c in choices} <= set(ENTAILMENT_LABELS)
    ):
        return "entailment"
    return "yes/no" if is_yes_no_question(question) else "short"


def build_prompt(kind: str, question: str, answer: str = "", templates: dict[str, str] | None = None) -> str:
    """The user message text for `kind` ("short", "yes/no", "entailment", "choice", "explain")."""
    return (templates or PROMPTS)[kind].format(question=question.strip(), answer=answer.strip())


def clean_answer(text: str, yes_no: bool = False) -> str:
    """Apply the documented cleaning rules to a generated answer."""
    lines = [line for line in text.splitlines() if line.strip()]
    out = lines[0] if lines else ""
    out = _PREFIX.sub("", out)
    for _ in range(2):  # quotes around punctuation or punctuation after quotes: '"Red"!'
        out = out.strip().strip("\"'`").strip().rstrip(".!;").strip()
    out = out.lower()
    if yes_no:
        first = re.split(r"[\s,.!;:]+", out, maxsplit=1)[0] if out else ""
        if first in ("yes", "no"):
            return first
    return out
