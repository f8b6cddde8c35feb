"""What the `openai` model sends and how it reads the answers: pure functions, no network.

Requests: one user turn with the image (a data URL) first and the task's text after it,
the same prompts as `hf-vlm` (`plugins/models/hf/prompts.py`), plus a lettered
multiple-choice prompt for `score_choices`.

Answers (docs/served-models.md has the rules with examples):
- closed label sets (yes/no; entailment/neutral/contradiction), when the server returns
  log-probabilities: the first generated token's `top_logprobs` are pooled per label (a
  token counts for a label when, stripped and lower-cased, it is a non-empty prefix of that
  label and of no other one); the label with the most probability wins. Otherwise the
  generated text, cleaned by `hf-vlm`'s rules (`clean_answer`), and for entailment mapped to
  the one label its first word is a prefix of.
- `score_choices`, with log-probabilities: the log-probability of each option's letter as the
  first token (letters outside `top_logprobs` get `LETTER_FLOOR`); without: the letter the
  model wrote scores 0 and every other option `LETTER_FLOOR`; an answer naming no option
  (neither a letter nor an option's text) scores every option 0.0, a tie.
"""

from __future__ import annotations

import base64
import io
import math
import os
import re
import threading
from collections import OrderedDict
from typing import Any, Mapping, Sequence

from PIL import Image

from harness.images import BLANK_IMAGE, load_image
from harness.paths import env_megabytes

from ..hf.families import FAMILIES
from ..hf.prompts import ENTAILMENT_LABELS, PROMPTS, build_prompt, clean_answer

__all__ = [
    "LETTERS",
    "LETTER_FLOOR",
    "CHOICE_PROMPT",
    "image_data_url",
    "clear_image_cache",
    "image_cache_size",
    "sent_pixels",
    "ENCODED_CACHE_BYTES",
    "user_message",
    "choice_prompt",
    "closed_from_logprobs",
    "closed_from_text",
    "letters_from_logprobs",
    "letters_from_text",
    "PROMPT_SETS",
    "family_prompts",
    "prompt_table",
]

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: Score of an option the answer gives no evidence for: very low but finite, so sums and
#: sorting stay defined (the convention of `hf-vqa`'s out-of-label candidates).
LETTER_FLOOR = -1e9

#: The lettered multiple-choice prompt (LLaVA-1.5's wording for multiple-choice benchmarks).
CHOICE_PROMPT = "{question}\n{options}\nAnswer with the option's letter from the given choices directly."

#: Bound of the cache of encoded images (total length of the data URLs, bytes;
#: VQA_HARNESS_ENCODED_CACHE_MB).
ENCODED_CACHE_BYTES = env_megabytes("VQA_HARNESS_ENCODED_CACHE_MB", 256)

_MIME = {"jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp"}


def _resized(im: Any, longest: int) -> Any:
    w, h = im.size
    if longest <= 0 or max(w, h) <= longest:
        return im
    scale = longest / max(w, h)
    return im.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.BICUBIC)


class _Encodings:
    """Data URLs of recently sent images, least recently used first out, bounded by the
    total length of the URLs (`ENCODED_CACHE_BYTES`): a count bound lets a few large images
    hold gigabytes. Shared by the request threads."""

    def __init__(self) -> None:
        self._items: OrderedDict[tuple, str] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple) -> str | None:
        with self._lock:
            url = self._items.get(key)
            if url is not None:
                self._items.move_to_end(key)
            return url

    def put(self, key: tuple, url: str) -> None:
        with self._lock:
            if key in self._items or len(url) > ENCODED_CACHE_BYTES:
                return
            self._items[key] = url
            self._bytes += len(url)
            while self._bytes > ENCODED_CACHE_BYTES:
                _, dropped = self._items.popitem(last=False)
                self._bytes -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0

    def size(self) -> tuple[int, int]:
        """(entries, bytes) held."""
        with self._lock:
            return len(self._items), self._bytes


_ENCODINGS = _Encodings()


def _encode(path: str, fmt: str, quality: int, longest: int) -> str:
    im = _resized(load_image(path), longest)
    buf = io.BytesIO()
    if fmt == "png":
        im.save(buf, "PNG")
    else:
        im.save(buf, fmt.upper(), quality=quality)
    return f"data:{_MIME[fmt]};base64,{base64.b64encode(buf.getvalue()).decode('ascii')}"


def image_data_url(path: str, fmt: str = "jpeg", quality: int = 95, longest: int = 0) -> str:
    """The image at `path` as a data URL: RGB, longest side at most `longest` (0: as is),
    encoded as `fmt` (jpeg/webp at `quality`, png lossless). Raises DataError naming the path.

    Encodings are cached per (path, modification time, settings), at most
    `ENCODED_CACHE_BYTES` in all: toy and VQA questions share images, and a probe's variants
    ask about the same image several times."""
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        stamp = 0  # the blank-image sentinel, or a missing file (load_image names it)
    key = (path, stamp, fmt, quality, longest)
    url = _ENCODINGS.get(key)
    if url is None:
        url = _encode(path, fmt, quality, longest)
        _ENCODINGS.put(key, url)
    return url


def clear_image_cache() -> None:
    """Forget every cached encoding (benchmarks start each round cold)."""
    _ENCODINGS.clear()


def image_cache_size() -> tuple[int, int]:
    """(entries, bytes) of cached encodings."""
    return _ENCODINGS.size()


def sent_pixels(path: str, longest: int = 0) -> int:
    """Pixels of the image `image_data_url(path, longest=longest)` sends, from the file's
    header (no decoding); 0 when the file cannot be read (its request then fails anyway)."""
    if path == BLANK_IMAGE:
        w, h = load_image(path).size  # the gray image load_image makes for the sentinel
    else:
        try:
            with Image.open(path) as im:
                w, h = im.size
        except Exception:  # unreadable: the example fails when its image is encoded
            return 0
    if longest > 0 and max(w, h) > longest:
        scale = longest / max(w, h)
        w, h = max(1, round(w * scale)), max(1, round(h * scale))
    return int(w) * int(h)


def user_message(image_url: str, text: str) -> list[dict[str, Any]]:
    """One user turn: the image, then the text (the order LLaVA-style models are trained on)."""
    return [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": image_url}},
                                         {"type": "text", "text": text}]}]


def choice_prompt(question: str, choices: Sequence[str]) -> str:
    """The lettered multiple-choice prompt ("A. red\\nB. blue ..."); at most 26 options."""
    if len(choices) > len(LETTERS):
        raise ValueError(f"{len(choices)} choices: the lettered prompt has room for {len(LETTERS)}")
    options = "\n".join(f"{LETTERS[i]}. {c}" for i, c in enumerate(choices))
    return CHOICE_PROMPT.format(question=question.strip(), options=options)


def _top(first_token: Any) -> list[tuple[str, float]]:
    """(token text, log-probability) pairs of the first generated token's top alternatives."""
    items = getattr(first_token, "top_logprobs", None) or []
    out = [(str(getattr(t, "token", "")), float(getattr(t, "logprob", -math.inf))) for t in items]
    if not out and getattr(first_token, "token", None) is not None:
        out = [(str(first_token.token), float(first_token.logprob))]
    return out


def _label_of(token: str, labels: Sequence[str]) -> str | None:
    text = token.strip().lower()
    if not text:
        return None
    hits = [label for label in labels if label.startswith(text)]
    return hits[0] if len(hits) == 1 else None


def closed_from_logprobs(first_token: Any, labels: Sequence[str]) -> dict[str, float] | None:
    """Probability per label pooled from the first token's alternatives, normalised over the
    labels; None when no alternative names a label (the caller then reads the text)."""
    mass = {label: 0.0 for label in labels}
    for token, logprob in _top(first_token):
        label = _label_of(token, labels)
        if label is not None and math.isfinite(logprob):
            mass[label] += math.exp(logprob)
    total = sum(mass.values())
    if total <= 0:
        return None
    return {label: m / total for label, m in mass.items()}


def closed_from_text(text: str, kind: str) -> str:
    """A generated answer to a closed question, cleaned (`clean_answer`); for entailment the
    label its first word is a prefix of, when exactly one is."""
    cleaned = clean_answer(text, yes_no=kind == "yes/no")
    if kind == "entailment" and cleaned:
        first = re.split(r"[\s,.!;:]+", cleaned, maxsplit=1)[0]
        label = _label_of(first, ENTAILMENT_LABELS)
        if label is not None:
            return label
    return cleaned


def _letter(token: str, n: int) -> int | None:
    text = token.strip().strip("().:*[]").strip()
    if len(text) == 1 and text in LETTERS[:n]:
        return LETTERS.index(text)
    return None


def letters_from_logprobs(first_token: Any, n: int) -> list[float] | None:
    """Each option's score: the best log-probability among first-token alternatives that
    spell its letter ("A", " A", "A."); `LETTER_FLOOR` for letters not among them. None when
    no letter is among them."""
    scores = [LETTER_FLOOR] * n
    for token, logprob in _top(first_token):
        i = _letter(token, n)
        if i is not None and math.isfinite(logprob):
            scores[i] = max(scores[i], logprob)
    return scores if any(s > LETTER_FLOOR for s in scores) else None


def letters_from_text(text: str, choices: Sequence[str]) -> list[float] | None:
    """One-hot scores from a generated answer: its option letter, upper-case, first ("B",
    "B.", "(B) blue", "Answer: B", "**B**", "The correct answer is B", "Option B"; not a
    sentence's first word, "I think ..." or "A dog") or, failing that, an option's text after
    cleaning, or a lower-case letter written alone ("b", "(b)"), but not a bare "a" after an
    answer prefix ("The answer is a", "Answer: a": the article of a cut-off "... a dog"; "(a)",
    "a.", "Option a", "Choice: a" and "The correct option is a" are letters); None when it names no option or two letters ("A, B",
    "(A) and (B)")."""
    n = len(choices)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = _MARKUP.sub("", first).strip().strip("\"'").strip()  # **B**, `B`, "B"
    bare = _ANSWER_PREFIX.sub("", first)
    # A letter alone, bracketed or followed by . ) : , ("B", "(B) blue", "B. blue"), or before a
    # space when it is not an English word ("B blue"); never "I" or "A" opening a sentence
    # ("I think ...", "A dog ...").
    match = re.match(r"^(?:[(\[]([A-Z])[)\]]|([A-Z])(?:[.):,]|$)|([B-HJ-Z])\s)", bare)
    letter = next((g for g in match.groups() if g), "") if match else ""
    if letter and _SECOND_LETTER.match(bare[match.end():]):  # "A, B", "(A) and (B)", "B or C": a hedge
        return None
    cleaned = clean_answer(first)
    lowered = [c.strip().lower() for c in choices]
    alone = re.fullmatch(r"[(\[]?([a-z])[)\]]?[.:]?", bare)  # "b", "(b)", "b.": a letter, not a word
    if bare == "a" and first != bare and not _OPTION_WORD.search(first[:-1]):
        alone = None  # "The answer is a", "Answer: a": the article of "... a dog" cut off
    if letter and letter in LETTERS[:n]:
        pick = LETTERS.index(letter)
    elif cleaned in lowered:
        pick = lowered.index(cleaned)
    elif alone and alone.group(1).upper() in LETTERS[:n]:
        pick = LETTERS.index(alone.group(1).upper())
    else:
        return None
    return [0.0 if i == pick else LETTER_FLOOR for i in range(n)]


_ANSWER_PREFIX = re.compile(r"^(?:the\s+)?(?:(?:correct|right|best|final)\s+)?(?:answer|option|choice)(?:\s+is)?"
                            r"\s*:?\s*", re.IGNORECASE)
#: Another option letter right after the first ("A, B", "(A) and (B)", "B or C", "B. C."); not
#: a word ("B. A dog", "A. I think").
_SECOND_LETTER = re.compile(r"\s*(?:(?:and|or|&|/)\s+)?(?:[(\[][A-Z][)\]]|[A-Z](?:[.,:)]|\s*$))")
#: An answer prefix after which a letter is an option's ("Option a", "Choice: a", "The correct
#: option is a").
_OPTION_WORD = re.compile(r"(?:option|choice)(?:\s+is)?\s*:?\s*$", re.IGNORECASE)
#: Markdown emphasis and code marks hosted models put around an answer ("**B**", "`B`").
_MARKUP = re.compile(r"[*`]+")


#: What the `prompts` option takes: "auto", "shared", and each family of `hf-vlm`'s table
#: (plugins/models/hf/families.py) that has prompts of its own ("paligemma").
PROMPT_SETS = ("auto", "shared", *(key for key, family in FAMILIES.items() if family.prompts))


def family_prompts(choice: str, model: str) -> dict[str, str]:
    """The prompt per task: `hf-vlm`'s shared ones, with a family's own where it has them. The
    family is `choice`, or for "auto" the one whose key the served `model` name contains, case
    aside ("google/paligemma2-3b-mix-448": PaliGemma's "answer en {question}")."""
    if choice == "auto":
        choice = next((key for key in PROMPT_SETS[2:] if key in model.lower()), "shared")
    return {**PROMPTS, **(dict(FAMILIES[choice].prompts) if choice != "shared" else {})}


def prompt_table(templates: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """Every prompt the model may send, for the fingerprint (a changed prompt re-asks);
    `templates` as `family_prompts` gives them (default: the shared ones). Multiple choice is
    always the lettered prompt."""
    return {"choice": CHOICE_PROMPT, **{k: build_prompt(k, "{question}", "{answer}", dict(templates or PROMPTS))
                                        for k in ("short", "yes/no", "entailment", "explain")}}
