"""Tiny random checkpoints of the chat-VLM families whose processors need no torchvision:
LLaVA-NeXT, Idefics3, PaliGemma, Gemma 3, Mllama (LLaVA-1.5 is helpers_hf.build_llava). Each
has its real processor class, a tokenizer with the family's special tokens and a chat
template in the family's layout (simplified: one user turn, roles as the family names them)."""

from __future__ import annotations

from pathlib import Path

from vlm_family_parts import (
    clip_vision,
    ids,
    image_processor,
    processor,
    save,
    siglip_vision,
    template,
    tiny_text,
    word_tokenizer,
)


def build_llava_next(folder: Path) -> Path:
    """LLaVA-NeXT (Mistral-style [INST] prompt), anyres grid of 32x32 tiles."""
    import transformers as t

    tok = word_tokenizer(["<s>", "</s>", "<pad>", "<image>", "[INST]", "[/INST]"], bos="<s>", eos="</s>", pad="<pad>",
                         extra_special_tokens={"image_token": "<image>"})
    grid = [[32, 32], [32, 64], [64, 32]]
    ip = image_processor("LlavaNextImageProcessor", size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32},
                                      image_grid_pinpoints=grid)
    proc = processor(t.LlavaNextProcessor, image_processor=ip, tokenizer=tok, patch_size=16,
                     vision_feature_select_strategy="default", num_additional_image_tokens=1,
                     chat_template=template("[INST] CONTENT [/INST]", "", "<image>\n"))
    config = t.LlavaNextConfig(vision_config=clip_vision(), text_config=tiny_text("llama", tok),
                               image_token_index=tok.image_token_id, vision_feature_layer=-1,
                               vision_feature_select_strategy="default", image_grid_pinpoints=grid, image_seq_length=4)
    return save(folder, proc, t.LlavaNextForConditionalGeneration, config)


def _idefics_tokenizer(bos: str):
    specials = [bos, "<end_of_utterance>", "<|finetune_right_pad_id|>", "<image>", "<fake_token_around_image>",
                "<global-img>"]
    return word_tokenizer(specials, bos=bos, eos="<end_of_utterance>", pad="<|finetune_right_pad_id|>",
                          extra_special_tokens={"image_token": "<image>", "fake_image_token": "<fake_token_around_image>",
                                                "global_image_token": "<global-img>",
                                                "end_of_utterance_token": "<end_of_utterance>"})


def idefics3_vision():
    from transformers import Idefics3VisionConfig

    return Idefics3VisionConfig(hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=2,
                                image_size=32, patch_size=16)


def build_idefics3(folder: Path) -> Path:
    """Idefics3 ("User:<image>...<end_of_utterance>\\nAssistant:"), one 32x32 image, no splitting."""
    import transformers as t

    tok = _idefics_tokenizer("<|begin_of_text|>")
    ip = image_processor("Idefics3ImageProcessor", size={"longest_edge": 64}, max_image_size={"longest_edge": 32},
                                     do_image_splitting=False)
    proc = processor(t.Idefics3Processor, image_processor=ip, tokenizer=tok, image_seq_len=1,
                     chat_template=template("User:CONTENT<end_of_utterance>\n", "Assistant:", "<image>",
                                            prefix="<|begin_of_text|>"))
    config = t.Idefics3Config(vision_config=idefics3_vision().to_dict(), text_config=tiny_text("llama", tok).to_dict(),
                              image_token_id=tok.convert_tokens_to_ids("<image>"), scale_factor=2,
                              pad_token_id=tok.pad_token_id)
    return save(folder, proc, t.Idefics3ForConditionalGeneration, config)


def build_paligemma(folder: Path) -> Path:
    """PaliGemma: no chat template (the processor adds image tokens, BOS and a newline)."""
    import transformers as t

    tok = word_tokenizer(["<bos>", "<eos>", "<pad>", "<image>"], bos="<bos>", eos="<eos>", pad="<pad>",
                         extra_special_tokens={"image_token": "<image>"})
    ip = image_processor("SiglipImageProcessor", size={"height": 32, "width": 32})
    ip.image_seq_length = 4
    proc = processor(t.PaliGemmaProcessor, image_processor=ip, tokenizer=tok)  # adds its <loc>/<seg> tokens
    text = tiny_text("gemma", tok, num_key_value_heads=1, head_dim=16)
    config = t.PaliGemmaConfig(vision_config=siglip_vision(projection_dim=32).to_dict(), text_config=text.to_dict(),
                               image_token_index=tok.image_token_id, projection_dim=32, hidden_size=32)
    return save(folder, proc, t.PaliGemmaForConditionalGeneration, config)


def build_gemma3(folder: Path) -> Path:
    """Gemma 3 ("<start_of_turn>user\\n<start_of_image>...<end_of_turn>\\n<start_of_turn>model\\n")."""
    import transformers as t

    specials = ["<bos>", "<eos>", "<pad>", "<start_of_turn>", "<end_of_turn>", "<start_of_image>", "<end_of_image>",
                "<image_soft_token>"]
    tok = word_tokenizer(specials, bos="<bos>", eos="<eos>", pad="<pad>",
                         extra_special_tokens={"image_token": "<image_soft_token>", "boi_token": "<start_of_image>",
                                               "eoi_token": "<end_of_image>"})
    role = "{{ 'model' if m['role'] == 'assistant' else m['role'] }}"
    proc = processor(t.Gemma3Processor, image_processor=image_processor("Gemma3ImageProcessor", size={"height": 32, "width": 32}),
                     tokenizer=tok, image_seq_length=4,
                     chat_template=template(f"<start_of_turn>{role}\nCONTENT<end_of_turn>\n", "<start_of_turn>model\n",
                                            "<start_of_image>", prefix="{{ bos_token }}"))
    text = t.Gemma3TextConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                              num_attention_heads=2, num_key_value_heads=1, head_dim=16, max_position_embeddings=512,
                              initializer_range=0.2, sliding_window=64, **ids(tok))
    c = tok.convert_tokens_to_ids
    config = t.Gemma3Config(vision_config=siglip_vision().to_dict(), text_config=text.to_dict(), mm_tokens_per_image=4,
                            boi_token_index=c("<start_of_image>"), eoi_token_index=c("<end_of_image>"),
                            image_token_index=c("<image_soft_token>"))
    return save(folder, proc, t.Gemma3ForConditionalGeneration, config)


def build_mllama(folder: Path) -> Path:
    """Llama 3.2 Vision (Mllama): header-id chat layout, one 32x32 tile, one cross-attention layer."""
    import transformers as t

    specials = ["<|begin_of_text|>", "<|eot_id|>", "<|finetune_right_pad_id|>", "<|image|>", "<|start_header_id|>",
                "<|end_header_id|>"]
    tok = word_tokenizer(specials, bos="<|begin_of_text|>", eos="<|eot_id|>", pad="<|finetune_right_pad_id|>")
    ip = image_processor("MllamaImageProcessor", size={"height": 32, "width": 32}, max_image_tiles=1)
    chat = template("<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\nCONTENT<|eot_id|>",
                    "<|start_header_id|>assistant<|end_header_id|>\n\n", "<|image|>", prefix="{{ bos_token }}")
    proc = processor(t.MllamaProcessor, image_processor=ip, tokenizer=tok, chat_template=chat)
    vision = t.MllamaVisionConfig(hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_global_layers=1,
                                  attention_heads=2, image_size=32, patch_size=16, max_num_tiles=1, vision_output_dim=64,
                                  intermediate_layers_indices=[0], supported_aspect_ratios=[[1, 1]])
    text = t.MllamaTextConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                              num_attention_heads=2, num_key_value_heads=2, cross_attention_layers=[1],
                              max_position_embeddings=512, initializer_range=0.2, **ids(tok))
    config = t.MllamaConfig(vision_config=vision.to_dict(), text_config=text.to_dict(),
                            image_token_index=tok.convert_tokens_to_ids("<|image|>"))
    return save(folder, proc, t.MllamaForConditionalGeneration, config)
