"""`openai` without a server: reading log-probabilities as vLLM/SGLang/OpenAI return them
(records built with the client's own types), letters, closed answers, Retry-After, image
encoding, options and the fingerprint."""

from __future__ import annotations

import base64
import io
import math
import time
from email.utils import formatdate

import pytest
from openai.types.chat.chat_completion_token_logprob import ChatCompletionTokenLogprob, TopLogprob

from harness.errors import UsageError
from vqa_harness_plugins.models.served import OpenAIModel
from vqa_harness_plugins.models.served.endpoint import MAX_RETRY_AFTER, retry_after
from vqa_harness_plugins.models.served.messages import (
    LETTER_FLOOR,
    choice_prompt,
    closed_from_logprobs,
    closed_from_text,
    image_data_url,
    letters_from_logprobs,
    letters_from_text,
)


def _first(*alternatives: tuple[str, float]) -> ChatCompletionTokenLogprob:
    top = [TopLogprob(token=t, logprob=lp, bytes=None) for t, lp in alternatives]
    return ChatCompletionTokenLogprob(token=alternatives[0][0], logprob=alternatives[0][1], bytes=None, top_logprobs=top)


def test_closed_labels_pool_the_first_tokens_probability():
    # "Yes", " yes" and "yes" all count for yes; "Maybe" counts for nothing.
    first = _first(("Yes", math.log(0.5)), (" yes", math.log(0.1)), ("No", math.log(0.2)), ("Maybe", math.log(0.1)))
    dist = closed_from_logprobs(first, ("yes", "no"))
    assert dist == pytest.approx({"yes": 0.6 / 0.8, "no": 0.2 / 0.8})
    # A prefix counts for the one label it begins ("ent", "neutral"); "n" would be ambiguous for yes/no only if
    # both began with it, and "" never counts.
    first = _first(("ent", math.log(0.3)), ("neutral", math.log(0.4)), (" ", math.log(0.2)))
    dist = closed_from_logprobs(first, ("entailment", "neutral", "contradiction"))
    assert dist == pytest.approx({"entailment": 3 / 7, "neutral": 4 / 7, "contradiction": 0.0})
    assert closed_from_logprobs(_first(("Maybe", -0.1)), ("yes", "no")) is None


def test_letters_from_logprobs_and_from_text():
    first = _first(("B", -0.2), (" A", -1.9), ("A.", -2.5), ("C", -3.0), ("a", -0.1))
    scores = letters_from_logprobs(first, 3)
    assert scores == [-1.9, -0.2, -3.0]  # best alternative per letter; lower-case "a" is not a letter
    assert letters_from_logprobs(first, 2) == [-1.9, -0.2]
    assert letters_from_logprobs(_first(("yes", -0.1)), 2) is None
    assert letters_from_text("B. blue", ["red", "blue", "green"]) == [LETTER_FLOOR, 0.0, LETTER_FLOOR]
    assert letters_from_text("Answer: (C)", ["a", "b", "c"]) == [LETTER_FLOOR, LETTER_FLOOR, 0.0]
    assert letters_from_text("Blue.", ["red", "blue"]) == [LETTER_FLOOR, 0.0]  # the option's text
    assert letters_from_text("a red one", ["x", "y"]) is None
    assert letters_from_text("D", ["x", "y"]) is None  # no option D
    # A sentence's first word is not an option letter: "I" is option 9 of ten, "A" option 1.
    assert letters_from_text("I think the answer is B.", [f"o{i}" for i in range(10)]) is None
    assert letters_from_text("A dog, on the left.", ["a cat", "a dog"]) is None
    assert letters_from_text("C) green", ["a", "b", "c"]) == [LETTER_FLOOR, LETTER_FLOOR, 0.0]
    prompt = choice_prompt("What color?", ["red", "blue"])
    assert prompt.splitlines() == ["What color?", "A. red", "B. blue",
                                   "Answer with the option's letter from the given choices directly."]
    with pytest.raises(ValueError, match="27 choices"):
        choice_prompt("q", [str(i) for i in range(27)])


def test_closed_answers_from_text_follow_hf_vlm_cleaning():
    assert closed_from_text("Yes, there is a dog.", "yes/no") == "yes"
    assert closed_from_text("Neutral.", "entailment") == "neutral"
    assert closed_from_text("contra", "entailment") == "contradiction"
    assert closed_from_text("Perhaps", "entailment") == "perhaps"  # no label: kept (scored as wrong)


def test_retry_after_in_seconds_milliseconds_and_as_a_date():
    assert retry_after({"retry-after": "2"}) == 2.0
    assert retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"retry-after": "100000"}) == MAX_RETRY_AFTER
    when = retry_after({"retry-after": formatdate(time.time() + 30, usegmt=True)})
    assert 25 <= when <= 31
    assert retry_after({}) is None and retry_after({"retry-after": "soon"}) is None


def test_image_encoding_format_size_and_cache(tmp_path):
    from PIL import Image

    path = tmp_path / "im.png"
    Image.new("RGB", (200, 100), (200, 10, 10)).save(path)
    url = image_data_url(str(path), "png", 95, 50)
    assert url.startswith("data:image/png;base64,")
    decoded = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert decoded.size == (50, 25) and decoded.getpixel((10, 10)) == (200, 10, 10)
    assert image_data_url(str(path), "jpeg").startswith("data:image/jpeg;base64,")
    assert image_data_url(str(path), "png") != url  # not resized: another encoding
    time.sleep(0.01)
    Image.new("RGB", (200, 100), (0, 0, 255)).save(path)  # a rewritten file is encoded again
    again = Image.open(io.BytesIO(base64.b64decode(image_data_url(str(path), "png", 95, 50).split(",", 1)[1])))
    assert again.getpixel((10, 10)) == (0, 0, 255)


def test_options_and_fingerprint():
    with pytest.raises(UsageError, match="base_url=... is required"):
        OpenAIModel(model="m")
    with pytest.raises(UsageError, match="option model=... is required"):
        OpenAIModel(base_url="http://127.0.0.1:1/v1")
    a = OpenAIModel(base_url="http://127.0.0.1:1/v1", model="m", api_key_env="KEY_A", concurrency=4)
    b = OpenAIModel(base_url="http://10.0.0.2:8000/v1", model="m", api_key_env="KEY_B", concurrency=64, timeout=5)
    # Where the server runs, how it is reached and how hard it is pushed do not change answers.
    assert a.fingerprint() == b.fingerprint()
    for changed in ({"model": "n"}, {"max_tokens": 11}, {"image_format": "png"}, {"logprobs": "off"},
                    {"model_revision": "2026-01"}, {"temperature": 0.5}, {"temperature": -1},
                    {"token_param": "max_completion_tokens"}):
        other = OpenAIModel(**{"base_url": "http://127.0.0.1:1/v1", "model": "m", **changed})
        assert other.fingerprint() != a.fingerprint(), changed
    # The default length field leaves the fingerprint as it was before the option existed.
    assert "token_param" not in a.fingerprint_config()
    with pytest.raises(UsageError, match=r"option temperature=-0.5 is out of range \(-1: not sent, or >= 0\)"):
        OpenAIModel(base_url="http://127.0.0.1:1/v1", model="m", temperature=-0.5)
    assert a.capabilities() == {"answer", "score_choices", "explain"}


@pytest.mark.parametrize("key", ["sk-proj-Secret123", "gsk_Secret123abcDEF"], ids=["not a name", "name-shaped"])
def test_a_key_passed_as_api_key_env_is_refused_before_anything_is_written(key, tmp_path, monkeypatch):
    """`api_key_env=$OPENAI_API_KEY` (the key, not its variable's name): the run stopped at the
    first request only after the run folder was made, with the key in the folder's name, the
    manifest, report.md and the error line. A key of letters, digits and '_' only (Groq's gsk_...)
    is shaped like a name: unset and not in capitals, it is refused too."""
    from harness.host import PluginHost
    from harness.testing import run_in_process

    monkeypatch.delenv(key, raising=False)
    spec = f"openai:base_url=http://127.0.0.1:9/v1,model=m,api_key_env={key}"
    with pytest.raises(UsageError) as refused:
        run_in_process(PluginHost(blocked=frozenset()), model=spec, suite="vqa-accuracy", tmp_path=tmp_path, limit=2)
    message = str(refused.value)
    assert "api_key_env must be the name of an environment variable" in message and key not in message
    assert "\n" not in message
    assert not [p for p in tmp_path.rglob("*") if key in str(p) or (p.is_file() and key in p.read_text("latin-1"))]
    assert OpenAIModel(base_url="http://127.0.0.1:1/v1", model="m", api_key_env="OPENAI_API_KEY")
