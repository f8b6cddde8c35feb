"""Shared parts of the tiny family checkpoints (vlm_families_*.py): a word-level tokenizer
carrying the family's special tokens, chat templates in each family's layout, and tiny
vision and text configs. Everything is built locally; nothing comes from the hub."""

from __future__ import annotations

from typing import Any

from vqa_harness_plugins.models.hf.families import has_torchvision, without_video

#: Words of the toy benchmark's questions and answers, the prompts and the chat roles.
WORDS = ["what", "color", "is", "the", "how", "many", "are", "there", "?", "a", "of", "shape", "in", "image",
         "picture", "does", "do", "you", "see", "any", "left", "right", "object", "objects", "which", "why",
         "answer", "to", "red", "blue", "green", "yellow", "gray", "circle", "square", "triangle", "cube", "sphere",
         "yes", "no", "0", "1", "2", "3", "4", "5", "entailment", "neutral", "contradiction", "question", "using",
         "single", "word", "or", "phrase", "with", "explain", "one", "sentence", "because", "user", "assistant",
         "model", "system", "User", "Assistant", "USER", "ASSISTANT", ":", ".", ",", "A", "B", "C", "D"]

#: One user turn's content; IMG is replaced by the family's image placeholder.
CONTENT = "{% for c in m['content'] %}{% if c['type'] == 'image' %}IMG{% else %}{{ c['text'] }}{% endif %}{% endfor %}"


def template(turn: str, assistant: str, image: str, prefix: str = "") -> str:
    """A chat template: `prefix`, each message as `turn` (its content at CONTENT, images as
    `image`), then `assistant` when a generation prompt is asked for."""
    body = turn.replace("CONTENT", CONTENT.replace("IMG", image))
    return (prefix + "{% for m in messages %}" + body + "{% endfor %}"
            "{% if add_generation_prompt %}" + assistant + "{% endif %}")


def word_tokenizer(specials: list[str], *, bos: str | None = None, eos: str | None = None, pad: str | None = None,
                   **named: Any) -> Any:
    """A word-level fast tokenizer: `specials` (matched before splitting), then WORDS."""
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab: dict[str, int] = {}
    for word in ["<unk>", *specials, *WORDS]:
        vocab.setdefault(word, len(vocab))
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    backend.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in specials])
    return PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>", bos_token=bos, eos_token=eos,
                                   pad_token=pad, **named)


def ids(tok: Any) -> dict[str, Any]:
    """pad/bos/eos ids of `tok` for a text config."""
    return {"pad_token_id": tok.pad_token_id, "bos_token_id": tok.bos_token_id, "eos_token_id": tok.eos_token_id}


def tiny_text(kind: str, tok: Any, **extra: Any) -> Any:
    """A 2-layer text config of `kind` (llama, qwen2, gemma) over the tokenizer's vocabulary."""
    import transformers

    cls = {"llama": transformers.LlamaConfig, "qwen2": transformers.Qwen2Config, "gemma": transformers.GemmaConfig}[kind]
    dims = dict(vocab_size=len(tok), hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=2,
                num_key_value_heads=2, max_position_embeddings=512, initializer_range=0.2)
    return cls(**{**dims, **ids(tok), **extra})


def clip_vision(**extra: Any) -> Any:
    from transformers import CLIPVisionConfig

    return CLIPVisionConfig(**{**dict(hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=2,
                                      image_size=32, patch_size=16, projection_dim=32), **extra})


def siglip_vision(**extra: Any) -> Any:
    from transformers import SiglipVisionConfig

    return SiglipVisionConfig(**{**dict(hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                                        num_attention_heads=2, image_size=32, patch_size=16), **extra})


def processor(cls: type, video: str | None = None, **parts: Any) -> Any:
    """A processor of class `cls` from `parts`. A family whose processor has a video part gets
    a real one (class name `video`) where torchvision imports; elsewhere it is built without
    it, as `hf-vlm` loads it there (families.py)."""
    import transformers

    if video is None:
        return cls(**parts)
    if has_torchvision():
        return cls(video_processor=getattr(transformers, video)(), **parts)
    return without_video(cls)(video_processor=None, **parts)


def image_processor(name: str, **options: Any) -> Any:
    """The family's image processor `name`: its PIL backend (`<name>Pil`) where torchvision is
    missing, else the default class (older transformers have no `...Pil` classes)."""
    import transformers

    pil = getattr(transformers, f"{name}Pil", None)
    return (pil if pil is not None and not has_torchvision() else getattr(transformers, name))(**options)


def save(folder: Any, proc: Any, model_cls: type, config: Any) -> Any:
    """Save the processor and a seeded random model built from `config` into `folder`."""
    import torch

    proc.save_pretrained(folder)
    torch.manual_seed(0)
    model_cls(config).eval().save_pretrained(folder)
    return folder
