"""Tiny random checkpoints of the chat-VLM families whose processors carry a video part
(torchvision): Qwen2-VL, Qwen2.5-VL, Qwen3-VL, SmolVLM, LLaVA-OneVision, InternVL. Where
torchvision imports they get a real video processor; elsewhere they are built (and loaded by
`hf-vlm`) without it (vlm_family_parts.processor)."""

from __future__ import annotations

from pathlib import Path

from vlm_families_a import _idefics_tokenizer, idefics3_vision
from vlm_family_parts import (
    image_processor,
    processor,
    save,
    siglip_vision,
    template,
    tiny_text,
    word_tokenizer,
)

QWEN_TEMPLATE = template("<|im_start|>{{ m['role'] }}\nCONTENT<|im_end|>\n", "<|im_start|>assistant\n",
                         "<|vision_start|><|image_pad|><|vision_end|>")


def _qwen(folder: Path, name: str, vision: dict, rope: dict, video: str, **text_extra) -> Path:
    import transformers as t

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>",
                "<|video_pad|>"]
    tok = word_tokenizer(specials, eos="<|im_end|>", pad="<|endoftext|>",
                         extra_special_tokens={"image_token": "<|image_pad|>", "video_token": "<|video_pad|>",
                                               "vision_bos_token": "<|vision_start|>",
                                               "vision_eos_token": "<|vision_end|>"})
    ip = image_processor("Qwen2VLImageProcessor", size={"shortest_edge": 32 * 32, "longest_edge": 64 * 64},
                                    patch_size=vision["patch_size"], merge_size=2, temporal_patch_size=2)
    proc = processor(getattr(t, f"{name}Processor"), video, image_processor=ip, tokenizer=tok,
                     chat_template=QWEN_TEMPLATE)
    text = tiny_text("qwen2", tok, rope_scaling=rope, **text_extra).to_dict()
    text.pop("model_type", None)
    c = tok.convert_tokens_to_ids
    config = getattr(t, f"{name}Config")(vision_config=vision, text_config=text, image_token_id=c("<|image_pad|>"),
                                         video_token_id=c("<|video_pad|>"), vision_start_token_id=c("<|vision_start|>"),
                                         vision_end_token_id=c("<|vision_end|>"))
    return save(folder, proc, getattr(t, f"{name}ForConditionalGeneration"), config)


_MROPE = {"type": "mrope", "mrope_section": [2, 3, 3]}


def build_qwen2_vl(folder: Path) -> Path:
    vision = dict(depth=2, embed_dim=32, hidden_size=32, num_heads=2, mlp_ratio=2, patch_size=16, spatial_merge_size=2,
                  temporal_patch_size=2)
    return _qwen(folder, "Qwen2VL", vision, _MROPE, "Qwen2VLVideoProcessor")


def build_qwen2_5_vl(folder: Path) -> Path:
    vision = dict(depth=2, hidden_size=32, intermediate_size=48, num_heads=2, out_hidden_size=32, patch_size=16,
                  spatial_merge_size=2, temporal_patch_size=2, window_size=32, fullatt_block_indexes=[1])
    return _qwen(folder, "Qwen2_5_VL", vision, _MROPE, "Qwen2VLVideoProcessor")


def build_qwen3_vl(folder: Path) -> Path:
    vision = dict(depth=2, hidden_size=32, intermediate_size=48, num_heads=2, out_hidden_size=32, patch_size=16,
                  spatial_merge_size=2, temporal_patch_size=2, num_position_embeddings=16, deepstack_visual_indexes=[1])
    rope = {"rope_type": "default", "mrope_section": [2, 3, 3], "mrope_interleaved": True}
    return _qwen(folder, "Qwen3VL", vision, rope, "Qwen3VLVideoProcessor", head_dim=16)


def build_smolvlm(folder: Path) -> Path:
    """SmolVLM ("<|im_start|>User:<image>...<end_of_utterance>\\nAssistant:")."""
    import transformers as t

    tok = _idefics_tokenizer("<|im_start|>")
    ip = image_processor("SmolVLMImageProcessor", size={"longest_edge": 64}, max_image_size={"longest_edge": 32},
                                    do_image_splitting=False)
    chat = template("{{ m['role'] | capitalize }}:CONTENT<end_of_utterance>\n", "Assistant:", "<image>",
                    prefix="<|im_start|>")
    proc = processor(t.SmolVLMProcessor, "SmolVLMVideoProcessor", image_processor=ip, tokenizer=tok, image_seq_len=1,
                     chat_template=chat)
    config = t.SmolVLMConfig(vision_config=idefics3_vision().to_dict(), text_config=tiny_text("llama", tok).to_dict(),
                             image_token_id=tok.convert_tokens_to_ids("<image>"), scale_factor=2,
                             pad_token_id=tok.pad_token_id)
    return save(folder, proc, t.SmolVLMForConditionalGeneration, config)


def build_llava_onevision(folder: Path) -> Path:
    """LLaVA-OneVision (Qwen2 chat layout, "<image>\\n" before the text), SigLIP vision."""
    import transformers as t

    tok = word_tokenizer(["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<image>", "<video>"], eos="<|im_end|>",
                         pad="<|endoftext|>", extra_special_tokens={"image_token": "<image>", "video_token": "<video>"})
    grid = [[32, 32], [32, 64], [64, 32]]
    ip = image_processor("LlavaOnevisionImageProcessor", size={"height": 32, "width": 32}, image_grid_pinpoints=grid)
    proc = processor(t.LlavaOnevisionProcessor, "LlavaOnevisionVideoProcessor", image_processor=ip, tokenizer=tok,
                     num_image_tokens=4, vision_feature_select_strategy="full", vision_aspect_ratio="anyres_max_1",
                     chat_template=template("<|im_start|>{{ m['role'] }}\nCONTENT<|im_end|>\n",
                                            "<|im_start|>assistant\n", "<image>\n"))
    c = tok.convert_tokens_to_ids
    config = t.LlavaOnevisionConfig(vision_config=siglip_vision().to_dict(), text_config=tiny_text("qwen2", tok).to_dict(),
                                    image_token_index=c("<image>"), video_token_index=c("<video>"),
                                    vision_feature_select_strategy="full", vision_feature_layer=-1,
                                    image_grid_pinpoints=grid, vision_aspect_ratio="anyres_max_1")
    return save(folder, proc, t.LlavaOnevisionForConditionalGeneration, config)


def build_internvl(folder: Path) -> Path:
    """InternVL 3 (Qwen2 chat layout; <img><IMG_CONTEXT></img> per image), one 32x32 tile."""
    import transformers as t

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<img>", "</img>", "<IMG_CONTEXT>", "<video>"]
    tok = word_tokenizer(specials, eos="<|im_end|>", pad="<|endoftext|>",
                         extra_special_tokens={"start_image_token": "<img>", "end_image_token": "</img>",
                                               "context_image_token": "<IMG_CONTEXT>", "video_token": "<video>"})
    ip = image_processor("GotOcr2ImageProcessor", size={"height": 32, "width": 32}, crop_to_patches=False)
    proc = processor(t.InternVLProcessor, "InternVLVideoProcessor", image_processor=ip, tokenizer=tok,
                     image_seq_length=1, chat_template=template("<|im_start|>{{ m['role'] }}\nCONTENT<|im_end|>\n",
                                                                "<|im_start|>assistant\n", "<IMG_CONTEXT>\n"))
    vision = t.InternVLVisionConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=48,
                                    image_size=[32, 32], patch_size=[16, 16])
    config = t.InternVLConfig(vision_config=vision.to_dict(), text_config=tiny_text("qwen2", tok).to_dict(),
                              image_token_id=tok.convert_tokens_to_ids("<IMG_CONTEXT>"), image_seq_length=1,
                              downsample_ratio=0.5)
    return save(folder, proc, t.InternVLForConditionalGeneration, config)
