"""Benchmark: reading official VQA JSON with duplicate keys refused vs the fast reader.

    python benchmarks/strict_json.py [--n 100000] [--repeat 3]

The official-format loaders (VQA questions/annotations/pairs, Visual7W, Visual Genome, VCR)
read with `read_json(..., duplicate_keys="error")` since issue 26: a key twice in one record is
an error instead of json.loads' silent last value. That parser cannot use orjson (which keeps
the last value without a word), so a cold load parses more slowly; the parsed split is cached
as Arrow afterwards. This script writes a seeded synthetic annotations file of N questions
(10 answers each, the official shape), then times in one process: orjson (`duplicate_keys=
"ignore"`, the fast path before), the standard parser without and with the duplicate check,
and prints each ratio to orjson (best of `--repeat`).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

from harness.jsonio import read_json

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_proc import best_of  # noqa: E402


def write_annotations(path: Path, n: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    words = ["red", "blue", "yes", "no", "2", "3", "dog", "cat", "table", "none"]
    anns = []
    for qid in range(n):
        truth = rng.choice(words)
        anns.append({"question_id": qid, "image_id": qid // 3, "question_type": "what color is the",
                     "answer_type": "other", "multiple_choice_answer": truth,
                     "answers": [{"answer": truth if rng.random() < 0.8 else rng.choice(words),
                                  "answer_confidence": "yes", "answer_id": j + 1} for j in range(10)]})
    path.write_text(json.dumps({"annotations": anns}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="questions in the synthetic file")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "v2_mscoco_val2014_annotations.json"
        write_annotations(path, args.n)
        size = path.stat().st_size / 1e6
        import orjson  # the fast path of read_json(duplicate_keys="ignore")

        fast = best_of(args.repeat, lambda: orjson.loads(path.read_bytes()))
        stdlib = best_of(args.repeat, lambda: json.loads(path.read_text()))
        strict = best_of(args.repeat, lambda: read_json(path, duplicate_keys="error"))
        assert read_json(path, duplicate_keys="error") == orjson.loads(path.read_bytes())
    print(f"{args.n:,} annotations, {size:.1f} MB")
    print(f"orjson (fast path, last value wins)     {fast:7.3f} s  1.00x")
    print(f"json.loads (last value wins)            {stdlib:7.3f} s  {stdlib / fast:.2f}x")
    print(f"read_json duplicate_keys='error'        {strict:7.3f} s  {strict / fast:.2f}x")


if __name__ == "__main__":
    main()
