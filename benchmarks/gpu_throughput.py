"""GPU throughput of `hf-vqa` and `hf-vlm`: the harness vs a hand-written loop, same batches.

    python3 benchmarks/gpu_throughput.py --out figures.json             # a CUDA machine, ~2-3 min
    python3 benchmarks/gpu_throughput.py --out figures.json --tiny      # CPU smoke test, tiny shapes

Two models with random weights (nothing is downloaded), each run over the same questions at
the same batch size by (1) a hand-written loop: decode -> processor -> model -> answers, and
(2) the harness prediction path: the adapter under `harness.run.predictor.Predictor` with a fresh
SQLite prediction cache (what `harness run` does for predictions; the probes' scoring is
not timed):

- ViLT-B/32-shaped `hf-vqa` classifier (12 layers, hidden 768, 3,129 answers, 384x384
  images; benchmarks/throughput.py builds it): answer = argmax, bf16 autocast on CUDA;
- LLaVA-7B-shaped `hf-vlm` (CLIP ViT-L/14-336 + a 32-layer, 4096-wide Llama, bf16 weights
  made on the GPU; its folder holds config and processor only, and the weights are handed to
  the adapter in memory): open questions, greedy generation of `--new-tokens` tokens with
  left padding, the adapter's short-answer prompt in both paths.

Prints questions/s for both and the ratio harness / hand loop (goal >= 0.95), and writes the
figures with the device, library versions and load average as JSON to --out. Needs torch,
transformers, pillow, numpy (no `datasets`, `evaluate`, `nltk`, `openai`); runs from a
checkout without `pip install` after `python3 scripts/uninstalled_env.py /tmp/vqa-env` and
`PYTHONPATH=/tmp/vqa-env:.` (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import transformers
from PIL import Image
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (
    CLIPImageProcessor,
    CLIPVisionConfig,
    LlamaConfig,
    LlavaConfig,
    LlavaForConditionalGeneration,
    LlavaProcessor,
    PreTrainedTokenizerFast,
    ViltForQuestionAnswering,
    ViltProcessor,
)

from harness.cache.predictions import PredictionCache
from harness.run.predictor import Predictor
from harness.types import Example
from vqa_harness_plugins.models.hf import HFVLMModel, HFVQAModel, base
from vqa_harness_plugins.models.hf.prompts import build_prompt, clean_answer

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
from throughput import build_model  # noqa: E402  (benchmarks/throughput.py, on the path above)


def _images(folder: Path, count: int, size: int) -> list[str]:
    rng = np.random.default_rng(0)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"img{i:05d}.png"
        Image.fromarray(rng.integers(0, 255, (size, size, 3), dtype=np.uint8)).save(path)
        paths.append(str(path))
    return paths


def _questions(paths: list[str], n: int, words: int) -> list:
    rand = random.Random(0)
    return [Example(id=str(i), question="what " + " ".join(f"w{rand.randrange(words)}" for _ in range(rand.randrange(3, 10)))
                    + " ?", image=paths[i % len(paths)], image_id=str(i % len(paths)),
                    answers=tuple(["a1"] * 10), answer_type="other", question_type="what") for i in range(n)]


def _harness(model, examples: list, batch_size: int, scratch: Path) -> tuple[float, list[str]]:
    """Seconds for Predictor.predict over `examples` (fresh cache), and the answers."""

    cache = PredictionCache(scratch / f"cache-{time.monotonic_ns()}.sqlite")
    runner = Predictor(model, cache=cache, batch_size=batch_size, progress=False)
    _sync()
    start = time.perf_counter()
    preds = runner.predict(examples, "answer")
    _sync()
    seconds = time.perf_counter() - start
    cache.close()
    bad = [p.error for p in preds if not p.ok]
    assert not bad, bad[:3]
    return seconds, [p.answer or "" for p in preds]


def _sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _autocast(device: str):
    return torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.startswith("cuda"))


# ------------------------------------------------------------------------------ ViLT
def vilt(args: argparse.Namespace, root: Path) -> dict:
    size = 128 if args.tiny else 384
    folder = root / "vilt"
    folder.mkdir()
    build_model(folder, args.tiny)
    examples = _questions(_images(root / "vilt-images", 64 if args.tiny else 256, size), args.vilt_n, 1000)
    processor = ViltProcessor.from_pretrained(folder)
    net = ViltForQuestionAnswering.from_pretrained(folder).eval().to(args.device)
    labels = net.config.id2label

    def hand() -> tuple[float, list[str]]:
        out: list[str] = []
        _sync()
        start = time.perf_counter()
        with torch.inference_mode():
            for b in range(0, len(examples), args.vilt_batch):
                batch = examples[b: b + args.vilt_batch]
                images = []
                for ex in batch:
                    with Image.open(ex.image) as im:
                        images.append(im.convert("RGB").resize((size, size), Image.BILINEAR))
                inputs = processor(images=images, text=[ex.question for ex in batch], padding="longest",
                                   truncation=True, max_length=40, return_tensors="pt").to(args.device)
                with _autocast(args.device):
                    logits = net(**inputs).logits
                out.extend(labels[i] for i in logits.float().argmax(-1).tolist())
        _sync()
        return time.perf_counter() - start, out

    model = HFVQAModel(path=str(folder))
    model.setup(args.device)
    return _compare("vilt", hand, lambda: _harness(model, examples, args.vilt_batch, root), args, len(examples),
                    {"batch_size": args.vilt_batch, "image_size": size, "parameters": sum(p.numel() for p in net.parameters())})


# ----------------------------------------------------------------------------- LLaVA
def _llava_parts(tiny: bool, folder: Path):
    """LLaVA-1.5-7B's shapes (tiny: 2-layer stand-ins): config and processor, saved to folder."""

    words = ["<unk>", "<s>", "</s>", "<pad>", "<image>", "USER", "ASSISTANT", ":", "what", "?", "."]
    words += [f"w{i}" for i in range(32064 - len(words))]
    backend = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    tok = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>", pad_token="<pad>", bos_token="<s>",
                                  eos_token="</s>", extra_special_tokens={"image_token": "<image>"})
    side, patch = (56, 14) if tiny else (336, 14)
    template = ("{% for m in messages %}{{ m['role'].upper() }}: {% for c in m['content'] %}{% if c['type'] == 'image' %}"
                "<image>\n{% else %}{{ c['text'] }}{% endif %}{% endfor %} {% endfor %}"
                "{% if add_generation_prompt %}ASSISTANT:{% endif %}")
    ip = CLIPImageProcessor(size={"shortest_edge": side}, crop_size={"height": side, "width": side})
    processor = LlavaProcessor(image_processor=ip, tokenizer=tok, patch_size=patch, vision_feature_select_strategy="default",
                               chat_template=template, num_additional_image_tokens=1)
    if tiny:
        vision = CLIPVisionConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2,
                                  image_size=side, patch_size=patch, projection_dim=64)
        text = LlamaConfig(vocab_size=len(words), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                           num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=1024)
    else:  # openai/clip-vit-large-patch14-336 + Llama-2-7B (llava-hf/llava-1.5-7b-hf)
        vision = CLIPVisionConfig(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16,
                                  image_size=side, patch_size=patch, projection_dim=768)
        text = LlamaConfig(vocab_size=len(words), hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
                           num_attention_heads=32, num_key_value_heads=32, max_position_embeddings=4096)
    text.pad_token_id, text.bos_token_id, text.eos_token_id = 3, 1, 2
    config = LlavaConfig(vision_config=vision, text_config=text, image_token_index=4, vision_feature_layer=-2,
                         vision_feature_select_strategy="default", image_seq_length=(side // patch) ** 2)
    processor.save_pretrained(folder)
    config.save_pretrained(folder)
    return config, processor


def llava(args: argparse.Namespace, root: Path) -> dict:
    folder = root / "llava"
    folder.mkdir()
    config, processor = _llava_parts(args.tiny, folder)
    dtype = torch.float32 if args.tiny else torch.bfloat16
    torch.manual_seed(0)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)  # initialise in the final dtype, on the device: seconds, not minutes
    try:
        with torch.device(args.device):
            net = LlavaForConditionalGeneration(config).eval()
    finally:
        torch.set_default_dtype(previous)
    side = config.vision_config.image_size
    examples = _questions(_images(root / "llava-images", 32 if args.tiny else 128, side), args.llava_n, 30000)
    tok = processor.tokenizer
    dtype_name = "float32" if args.tiny else "bfloat16"
    # The adapter takes these weights instead of loading the (weightless) folder: same key as base.setup.
    base._LOADED.clear()
    base._LOADED[("HFVLMModel", str(folder.resolve()), dtype_name, args.device, False)] = (net, processor)
    model = HFVLMModel(path=str(folder), dtype=dtype_name, max_new_tokens=args.new_tokens)
    model.setup(args.device)

    def hand() -> tuple[float, list[str]]:
        out: list[str] = []
        tok.padding_side = "left"
        _sync()
        start = time.perf_counter()
        with torch.inference_mode():
            for b in range(0, len(examples), args.llava_batch):
                batch = examples[b: b + args.llava_batch]
                images = []
                for ex in batch:
                    with Image.open(ex.image) as im:
                        images.append([im.convert("RGB")])
                prompts = [processor.apply_chat_template(
                    [{"role": "user", "content": [{"type": "image"},
                                                  {"type": "text", "text": build_prompt("short", ex.question)}]}],
                    add_generation_prompt=True, tokenize=False) for ex in batch]
                inputs = processor(images=images, text=prompts, padding=True, return_tensors="pt").to(args.device)
                with _autocast(args.device):
                    generated = net.generate(**inputs, max_new_tokens=args.new_tokens, do_sample=False,
                                             pad_token_id=tok.pad_token_id)
                texts = tok.batch_decode(generated[:, inputs["input_ids"].shape[1]:], skip_special_tokens=True)
                out.extend(clean_answer(t.strip()) for t in texts)
        _sync()
        return time.perf_counter() - start, out

    return _compare("llava", hand, lambda: _harness(model, examples, args.llava_batch, root), args, len(examples),
                    {"batch_size": args.llava_batch, "new_tokens": args.new_tokens, "image_size": side,
                     "parameters": sum(p.numel() for p in net.parameters())})


# ---------------------------------------------------------------------------- driver
def _compare(name: str, hand, harness, args: argparse.Namespace, n: int, facts: dict) -> dict:
    """Warm-up, then alternate hand / harness `--repeats` times; best time of each."""
    t0 = time.perf_counter()
    hand()
    harness()
    best_hand = best_harness = float("inf")
    same = None
    for _ in range(args.repeats):
        seconds, hand_answers = hand()
        best_hand = min(best_hand, seconds)
        seconds, harness_answers = harness()
        best_harness = min(best_harness, seconds)
        same = sum(a == b for a, b in zip(hand_answers, harness_answers))
    row = {**facts, "questions": n, "hand_qps": round(n / best_hand, 2), "harness_qps": round(n / best_harness, 2),
           "ratio": round(best_hand / best_harness, 4), "answers_identical": same,
           "wall_seconds": round(time.perf_counter() - t0, 1)}
    print(f"{name}: hand {row['hand_qps']} q/s, harness {row['harness_qps']} q/s, ratio {row['ratio']} "
          f"(goal >= 0.95); identical answers {same}/{n}", flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="JSON file for the figures")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--tiny", action="store_true", help="tiny shapes (a CPU smoke test of this script)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--vilt-n", type=int, default=0, help="questions for ViLT (default 1024; tiny 64)")
    parser.add_argument("--vilt-batch", type=int, default=32)
    parser.add_argument("--llava-n", type=int, default=0, help="questions for LLaVA (default 256; tiny 16)")
    parser.add_argument("--llava-batch", type=int, default=16)
    parser.add_argument("--new-tokens", type=int, default=10)
    parser.add_argument("--only", choices=("vilt", "llava"), default=None)
    args = parser.parse_args()
    args.vilt_n = args.vilt_n or (64 if args.tiny else 1024)
    args.llava_n = args.llava_n or (16 if args.tiny else 256)
    os.environ.setdefault("TQDM_DISABLE", "1")

    started = time.perf_counter()
    figures: dict = {"device": torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu",
                     "torch": torch.__version__, "transformers": transformers.__version__,
                     "load_average_before": os.getloadavg(), "command": " ".join(sys.argv)}
    with tempfile.TemporaryDirectory() as tmp:
        for name, run in (("vilt", vilt), ("llava", llava)):
            if args.only in (None, name):
                figures[name] = run(args, Path(tmp))
                Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")  # partial figures survive a kill
    figures["load_average_after"] = os.getloadavg()
    figures["total_seconds"] = round(time.perf_counter() - started, 1)
    Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    print(f"figures -> {args.out} ({figures['total_seconds']} s)")


if __name__ == "__main__":
    main()
