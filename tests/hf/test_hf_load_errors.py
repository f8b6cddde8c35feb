"""A broken local checkpoint is one line naming what is wrong: a config.json that is not JSON,
a folder without tokenizer files."""

from __future__ import annotations

import shutil

import pytest

from harness.errors import ResourceError, UsageError


@pytest.mark.parametrize("text", ['{"model_type": "llava", ', "[1, 2]"], ids=["cut short", "not an object"])
@pytest.mark.parametrize("plugin", ["HFVLMModel", "HFVQAModel"])
def test_a_config_json_that_is_not_a_json_object_is_named(tmp_path, plugin, text):
    """Before: hf-vlm said "could not load the processor from ...: Expecting property name ..."
    and hf-vqa "the model could not be created: JSONDecodeError: ...", neither naming config.json."""
    from vqa_harness_plugins.models import hf

    (tmp_path / "config.json").write_text(text)
    with pytest.raises(UsageError) as err:
        getattr(hf, plugin)(path=str(tmp_path))
    message = str(err.value)
    assert str(tmp_path / "config.json") in message and "\n" not in message
    assert ("not valid JSON" in message) == (text != "[1, 2]")


def test_a_folder_without_tokenizer_files_says_what_the_tokenizer_needs(tiny_llava, tmp_path):
    """Before: "could not load the processor from ...: Couldn't instantiate the backend tokenizer
    from one of: " (the message's first line; what it needs was on the lines after it)."""
    from vqa_harness_plugins.models.hf import HFVLMModel

    folder = shutil.copytree(tiny_llava, tmp_path / "llava")
    for path in folder.glob("tokenizer*"):
        path.unlink()
    with pytest.raises(ResourceError) as err:
        HFVLMModel(path=str(folder)).setup("cpu")
    message = str(err.value)
    assert f"could not load the processor from {folder}" in message and "\n" not in message
    assert "tokenizers` library serialization file" in message and not message.endswith(":")


def test_a_checkpoint_given_to_the_other_adapter_is_one_line_naming_the_right_one(tiny_llava, tiny_blip):
    """Before: hf-vqa loaded a LLaVA (through its generator fallback) and failed every example
    with "Found total 0 <image> tokens and 1 images"; hf-vlm loaded BLIP's VQA checkpoint as a
    captioner and failed every generated answer with "generate() got multiple values for keyword
    argument 'pad_token_id'" while scoring yes/no with it."""
    from vqa_harness_plugins.models.hf import HFVLMModel, HFVQAModel

    with pytest.raises(UsageError, match=rf"chat VLM .*run it with hf-vlm:path={tiny_llava}$"):
        HFVQAModel(path=str(tiny_llava))
    with pytest.raises(UsageError, match=rf"not a chat VLM .*run it with hf-vqa:path={tiny_blip}$"):
        HFVLMModel(path=str(tiny_blip))
