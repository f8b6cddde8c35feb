"""Throughput: `harness run` with hf-vqa vs a minimal hand-written loop, same model/data/batch.

    python benchmarks/throughput.py --small            # CPU-sized ViLT, 128x128 images
    python benchmarks/throughput.py --device cuda      # full ViLT-B/32 VQA config, 384x384 images

The model is a ViLT VQA config with random weights (same compute as the released
ViLT-B/32: 12 layers, hidden 768, 3,129 answers) saved to a temporary folder; the images
are generated PNGs. Both paths decode the image files, run the processor and the model,
and take the argmax; the harness path adds the prediction cache, the runner, and the
accuracy probe's scoring. Prints questions/s for both and the ratio (target >= 0.95), plus
where the hand loop's time goes (decode, preprocess, forward).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from PIL import Image

from harness.host import PluginHost
from harness.testing import dataset_plugin, run_in_process
from harness.types import Example
from vqa_harness_plugins.models.hf import base


def build_model(folder: Path, small: bool) -> None:
    """Random-weight ViLT VQA model + processor saved into `folder`."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it
    from transformers import (
        BertTokenizer,
        ViltConfig,
        ViltForQuestionAnswering,
        ViltImageProcessor,
        ViltProcessor,
    )  # heavy: transformers takes seconds; only the Hugging Face models need it

    torch.manual_seed(0)
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(1000 if small else 30517)]
    answers = [f"a{i}" for i in range(3129)]
    size = 128 if small else 384
    dims = dict(hidden_size=192, num_hidden_layers=4, num_attention_heads=3, intermediate_size=768) if small else {}
    config = ViltConfig(vocab_size=len(words), image_size=size, patch_size=32, max_position_embeddings=40,
                        id2label=dict(enumerate(answers)), label2id={a: i for i, a in enumerate(answers)}, **dims)
    ViltForQuestionAnswering(config).eval().save_pretrained(folder)
    tokenizer = BertTokenizer(vocab={w: i for i, w in enumerate(words)})
    ViltProcessor(image_processor=ViltImageProcessor(size={"shortest_edge": size}, size_divisor=32),
                  tokenizer=tokenizer).save_pretrained(folder)


def build_examples(folder: Path, n: int, size: int) -> list:
    """`n` questions over n/4 generated size x size PNG images (random shapes and noise)."""
    import numpy as np  # heavy: numpy is loaded only where arrays are computed

    rng = np.random.default_rng(0)
    paths = []
    for i in range(max(1, n // 4)):
        pixels = rng.integers(0, 255, (size, size, 3), dtype=np.uint8)
        path = folder / f"img{i:05d}.png"
        Image.fromarray(pixels).save(path)
        paths.append(str(path))
    rand = random.Random(0)
    return [
        Example(id=str(i), question=" ".join(f"w{rand.randrange(1000)}" for _ in range(rand.randrange(4, 12))) + " ?",
                image=paths[i % len(paths)], image_id=str(i % len(paths)), answers=tuple(["a1"] * 5 + ["a2"] * 5),
                answer_type="other", question_type="what")
        for i in range(n)
    ]


def hand_loop(model_dir: Path, examples: list, batch_size: int, device: str, size: int) -> tuple[float, dict]:
    """processor -> model -> argmax over the examples; returns (seconds, seconds per stage)."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it
    from transformers import (  # heavy: imported on use
        ViltForQuestionAnswering,
        ViltProcessor,
    )  # heavy: transformers takes seconds; only the Hugging Face models need it

    stages = {"decode": 0.0, "preprocess": 0.0, "forward": 0.0}
    start = time.perf_counter()
    processor = ViltProcessor.from_pretrained(model_dir)
    net = ViltForQuestionAnswering.from_pretrained(model_dir).eval().to(device)
    answers = []
    with torch.inference_mode():
        for b in range(0, len(examples), batch_size):
            batch = examples[b : b + batch_size]
            t0 = time.perf_counter()
            images = []
            for ex in batch:
                with Image.open(ex.image) as im:
                    images.append(im.convert("RGB").resize((size, size)))
            t1 = time.perf_counter()
            inputs = processor(images=images, text=[ex.question for ex in batch], padding="longest",
                               truncation=True, max_length=40, return_tensors="pt").to(device)
            t2 = time.perf_counter()
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.startswith("cuda")):
                logits = net(**inputs).logits
            answers.extend(net.config.id2label[i] for i in logits.argmax(-1).tolist())
            t3 = time.perf_counter()
            stages["decode"] += t1 - t0
            stages["preprocess"] += t2 - t1
            stages["forward"] += t3 - t2
    return time.perf_counter() - start, stages


def harness_run(model_dir: Path, examples: list, batch_size: int, device: str, scratch: Path) -> tuple[float, dict]:
    """The same examples through `harness run` (execute_run) with a fresh cache."""
    base._LOADED.clear()  # load the weights inside the timed run, as the hand loop does
    host = PluginHost(blocked=frozenset(), extra_plugins=[("bench", dataset_plugin("bench", {"val": examples}, suite="bench"))])
    start = time.perf_counter()
    outcome = run_in_process(host, model=f"hf-vqa:path={model_dir}", suite="bench", tmp_path=scratch,
                             batch_size=batch_size, device=device)
    seconds = time.perf_counter() - start
    stats = outcome.rundir.read_manifest().get("stats", {})
    assert outcome.exit_code == 0 and stats.get("model_calls") == len(examples), stats
    return seconds, stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="CPU-sized model (4 layers, hidden 192, 128px)")
    parser.add_argument("--n", type=int, default=0, help="questions (default: 256 small, 4096 full)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--repeats", type=int, default=2, help="alternating timed repeats (best kept)")
    args = parser.parse_args()
    n = args.n or (256 if args.small else 4096)
    size = 128 if args.small else 384
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "model").mkdir()
        (root / "images").mkdir()
        build_model(root / "model", args.small)
        examples = build_examples(root / "images", n, size)
        hand_loop(root / "model", examples[: args.batch_size], args.batch_size, args.device, size)  # warm-up
        best_hand, best_harness, stages, stats = float("inf"), float("inf"), {}, {}
        for r in range(args.repeats):
            seconds, st = hand_loop(root / "model", examples, args.batch_size, args.device, size)
            if seconds < best_hand:
                best_hand, stages = seconds, st
            seconds, stt = harness_run(root / "model", examples, args.batch_size, args.device, root / f"run{r}")
            if seconds < best_harness:
                best_harness, stats = seconds, stt
    hand_qps, harness_qps = n / best_hand, n / best_harness
    print(f"model: ViLT VQA ({'small' if args.small else 'ViLT-B/32 size'}), random weights; {n} questions, "
          f"{size}x{size} images, batch {args.batch_size}, device {args.device}")
    print(f"hand loop:   {hand_qps:8.1f} questions/s  ({best_hand:.2f} s; decode {stages['decode']:.2f} s, "
          f"preprocess {stages['preprocess']:.2f} s, forward {stages['forward']:.2f} s)")
    print(f"harness run: {harness_qps:8.1f} questions/s  ({best_harness:.2f} s; runner predict {stats.get('predict_seconds')} s)")
    print(f"ratio harness / hand loop: {harness_qps / hand_qps:.3f}  (target >= 0.95; end to end, incl. loading and scoring)")
    predict = stats.get("predict_seconds") or 0.0
    hand_predict = sum(stages.values())
    if predict:
        print(f"ratio, prediction loop only (runner predict vs hand decode+preprocess+forward): {hand_predict / predict:.3f}")


if __name__ == "__main__":
    main()
