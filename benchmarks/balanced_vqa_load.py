"""Benchmark: load and score 214,354 VQA v2 questions in the official format.

214,354 is the size of VQA v2 val. The script generates questions, annotations (10
answers each) and complementary pairs in the official v2 JSON format, then times, in one
process, with a private cache folder:

- plain `json.load` of the three files (the baseline every loader pays at least once);
- `vqa2` first load (parse, validate, write the Arrow cache) and cached load (memory-map);
- the conversion of the Arrow rows to `Example`s (what a run does next);
- scoring with `harness.metrics.vqa_accuracy_batch` against a per-question
  `vqa_accuracy` loop (the baseline).

    python benchmarks/balanced_vqa_load.py [--questions 214354] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from harness.metrics import vqa_accuracy, vqa_accuracy_batch
from harness.types import Example
from vqa_harness_plugins.datasets.vqa import VQA2

N_QUESTIONS = 214_354
VOCAB = ["yes", "no", "1", "2", "3", "4", "red", "blue", "white", "black", "green", "tennis", "baseball",
         "frisbee", "dog", "cat", "pizza", "kitchen", "2 people", "the man", "skiing", "surfing"]
TYPES = [("is the", "yes/no"), ("how many", "number"), ("what color is the", "other"), ("what is the", "other")]


def generate(folder: Path, n: int, seed: int = 0) -> list[Path]:
    """Write v2 val files with `n` questions (about 5.3 per image, as in VQA v2 val)."""
    rng = random.Random(seed)
    questions, annotations = [], []
    image, k = 1, 0
    for i in range(n):
        if k >= rng.randint(3, 7):
            image, k = image + 1, 0
        qid = image * 1000 + k
        k += 1
        qtype, atype = TYPES[i % len(TYPES)]
        main = rng.choice(VOCAB)
        answers = [main if rng.random() < 0.7 else rng.choice(VOCAB) for _ in range(10)]
        questions.append({"image_id": image, "question": f"{qtype.capitalize()} thing number {i}?",
                          "question_id": qid})
        annotations.append({"question_id": qid, "image_id": image, "question_type": qtype, "answer_type": atype,
                            "multiple_choice_answer": main,
                            "answers": [{"answer": a, "answer_confidence": "yes", "answer_id": j + 1}
                                        for j, a in enumerate(answers)]})
    qids = [q["question_id"] for q in questions]
    rng.shuffle(qids)
    pairs = [[qids[j], qids[j + 1]] for j in range(0, len(qids) - 1, 2)]
    vqa2 = folder / "vqa2"
    vqa2.mkdir(parents=True, exist_ok=True)
    files = [vqa2 / "v2_OpenEnded_mscoco_val2014_questions.json", vqa2 / "v2_mscoco_val2014_annotations.json",
             vqa2 / "v2_mscoco_val2014_complementary_pairs.json"]
    files[0].write_text(json.dumps({"questions": questions}))
    files[1].write_text(json.dumps({"annotations": annotations}))
    files[2].write_text(json.dumps(pairs))
    return files


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=N_QUESTIONS)
    parser.add_argument("--keep", type=Path, default=None, help="write the files here and keep them")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="vqa2-bench-"))
    os.environ["VQA_HARNESS_CACHE"] = str(work / "cache")  # a cold cache of our own
    try:

        files, t_gen = timed(lambda: generate(work, args.questions))
        size_mb = sum(p.stat().st_size for p in files) / 2**20
        print(f"generated {args.questions:,} questions ({size_mb:.0f} MB of JSON) in {t_gen:.1f} s")

        _, t_json = timed(lambda: [json.loads(p.read_bytes()) for p in files])
        table, t_first = timed(lambda: VQA2(data_dir=work).load("val"))
        assert table.num_rows == args.questions
        table, t_cached = timed(lambda: VQA2(data_dir=work).load("val"))
        examples, t_examples = timed(lambda: [Example.from_row(r) for r in table.to_list()])
        pairs = VQA2(data_dir=work).summary("val")["pairs_used"]

        rng = random.Random(1)
        preds = [ex.label if rng.random() < 0.6 else rng.choice(VOCAB) for ex in examples]
        humans = [ex.answers for ex in examples]
        scores, t_batch = timed(lambda: vqa_accuracy_batch(preds, humans))
        sample = min(len(preds), 50_000)
        loop, t_loop = timed(lambda: [vqa_accuracy(p, h) for p, h in zip(preds[:sample], humans[:sample])])
        assert list(scores[:sample]) == loop  # bit-identical per question
        t_loop_all = t_loop * len(preds) / sample

        print(f"plain json.load of the 3 files:        {t_json:6.2f} s  (baseline)")
        print(f"vqa2 first load (parse+validate+Arrow): {t_first:6.2f} s  ({t_first / t_json:.2f}x json.load)")
        print(f"vqa2 cached load (Arrow memory-map):    {t_cached:6.2f} s  ({t_cached / t_json:.3f}x json.load, "
              f"{t_first / t_cached:.0f}x faster than first)")
        print(f"Arrow rows -> Example objects:          {t_examples:6.2f} s")
        print(f"pairs used: {pairs:,}")
        print(f"score {len(preds):,} with vqa_accuracy_batch:   {t_batch:6.2f} s  (mean accuracy {scores.mean():.4f})")
        print(f"per-question vqa_accuracy loop (est.):  {t_loop_all:6.2f} s  (batch is {t_loop_all / t_batch:.1f}x faster; "
              f"measured on {sample:,})")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
