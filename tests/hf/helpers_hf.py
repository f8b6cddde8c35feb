"""Tiny random-weight ViLT and BLIP checkpoints, built from configs and saved locally (no hub)."""

from __future__ import annotations

from pathlib import Path

import pytest

#: A small word vocabulary covering the toy benchmark's questions reasonably well.
WORDS = [
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[DEC]",
    "what", "color", "is", "the", "how", "many", "are", "there", "?", "a", "of", "shape", "in", "image",
    "picture", "does", "do", "you", "see", "any", "left", "right", "object", "objects", "which", "why",
    "answer", "to", "red", "blue", "green", "yellow", "gray", "circle", "square", "triangle",
    "yes", "no", "0", "1", "2", "3", "4", "5",
]
ANSWERS = ["yes", "no", "red", "blue", "green", "yellow", "circle", "square", "triangle", "1", "2", "3"]


def _tokenizer(**kwargs):
    from transformers import BertTokenizer

    return BertTokenizer(vocab={w: i for i, w in enumerate(WORDS)}, **kwargs)


def build_vilt(folder: Path) -> Path:
    """A 2-layer ViLT VQA classifier over ANSWERS with 64x64 images, saved into `folder`."""
    import torch
    from transformers import ViltConfig, ViltForQuestionAnswering, ViltImageProcessor, ViltProcessor

    torch.manual_seed(0)
    config = ViltConfig(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=48, image_size=64,
        patch_size=16, max_position_embeddings=40, vocab_size=len(WORDS), initializer_range=0.5,
        id2label=dict(enumerate(ANSWERS)), label2id={a: i for i, a in enumerate(ANSWERS)},
    )
    ViltForQuestionAnswering(config).eval().save_pretrained(folder)
    ip = ViltImageProcessor(size={"shortest_edge": 64}, size_divisor=32)
    ViltProcessor(image_processor=ip, tokenizer=_tokenizer()).save_pretrained(folder)
    return folder


def build_blip(folder: Path) -> Path:
    """A 2-layer BLIP VQA generator (32x32 images), saved into `folder`."""
    import torch
    from transformers import BlipConfig, BlipForQuestionAnswering, BlipImageProcessor, BlipProcessor

    torch.manual_seed(0)
    dec = WORDS.index("[DEC]")
    text = dict(vocab_size=len(WORDS), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                intermediate_size=48, max_position_embeddings=40, bos_token_id=dec, sep_token_id=3,
                pad_token_id=0, encoder_hidden_size=32, initializer_range=0.5)
    vision = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=48,
                  image_size=32, patch_size=16, initializer_range=0.5)
    BlipForQuestionAnswering(BlipConfig(text_config=text, vision_config=vision, projection_dim=32)).eval().save_pretrained(folder)
    ip = BlipImageProcessor(size={"height": 32, "width": 32})
    BlipProcessor(image_processor=ip, tokenizer=_tokenizer(bos_token="[DEC]")).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_vilt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_vilt(tmp_path_factory.mktemp("tiny-vilt"))


@pytest.fixture(scope="session")
def tiny_blip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_blip(tmp_path_factory.mktemp("tiny-blip"))


@pytest.fixture(scope="session")
def toy_examples():
    """30 toy benchmark validation examples with real rendered images."""
    from harness.data.session import Session
    from harness.host import PluginHost

    session = Session(PluginHost(blocked=frozenset()), data_dir=None, limit=None)
    return list(session.load("toyvqa:variant=balanced,images=60", "val"))[:30]


CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'].upper() }}: {% for c in m['content'] %}{% if c['type'] == 'image' %}"
    "<image> {% else %}{{ c['text'] }}{% endif %}{% endfor %} {% endfor %}{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)


def build_llava(folder: Path) -> Path:
    """A 2-layer LLaVA (CLIP vision + Llama text) with a word-level tokenizer and chat template."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import (
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
        PreTrainedTokenizerFast,
    )

    torch.manual_seed(0)
    words = ["<pad>", "<unk>", "<s>", "</s>", "<image>", "USER", ":", "ASSISTANT", ".", "entailment", "neutral",
             "contradiction", *[w for w in WORDS if not w.startswith("[")]]
    backend = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>", pad_token="<pad>", bos_token="<s>",
                                        eos_token="</s>", extra_special_tokens={"image_token": "<image>"})
    ip = CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    LlavaProcessor(image_processor=ip, tokenizer=tokenizer, patch_size=16, vision_feature_select_strategy="default",
                   chat_template=CHAT_TEMPLATE, num_additional_image_tokens=1).save_pretrained(folder)
    vision = CLIPVisionConfig(hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=2,
                              image_size=32, patch_size=16, projection_dim=32)
    text = LlamaConfig(vocab_size=len(words), hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                       num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=256, pad_token_id=0,
                       bos_token_id=2, eos_token_id=3, initializer_range=0.2)
    config = LlavaConfig(vision_config=vision, text_config=text, image_token_index=4, vision_feature_layer=-1,
                         vision_feature_select_strategy="default")
    LlavaForConditionalGeneration(config).eval().save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_llava(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_llava(tmp_path_factory.mktemp("tiny-llava"))
