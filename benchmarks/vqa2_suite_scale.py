"""The `vqa2` suite at full scale: VQA v2 val's 214,354 questions, time and peak memory.

    python benchmarks/vqa2_suite_scale.py [--questions 214354] [--keep DIR]

Generates VQA v2 val in the official format (benchmarks/balanced_vqa_load.py's generator:
questions, 10 answers each, complementary pairs; no images) and an answers file in the
official results format, then runs, each in a fresh process with its own empty cache:

1. `harness run --model predictions:path=answers.json --suite vqa2` (a fast model: the
   answers come from the file), cold: parse and cache the files, score every probe;
2. the same again, warm (cached data, predictions and probe outputs);
3. `--limit 1000` on a cold cache: `--limit` applies before per-example work, so this
   costs the file parsing plus a thousand questions, not the whole split.

Prints wall seconds and the peak resident memory of each process (target: under 4 GB),
and the load (`uptime`) before and after. Counter-examples need image features, which
this synthetic data lacks: that probe reports the metric as unavailable, as it would
on real data without images or a features file.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from balanced_vqa_load import N_QUESTIONS, VOCAB, generate  # noqa: E402
from harness_proc import run_harness, uptime  # noqa: E402


def _run(args: list[str], cwd: Path, cache: Path) -> tuple[float, float, str]:
    wall, peak_mb, output, _ = run_harness(args, cwd, cache)
    return wall, peak_mb, output


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=N_QUESTIONS)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="vqa2-scale-"))
    try:
        data = root / "data"
        files = generate(data, args.questions)
        questions = json.loads(files[0].read_text())["questions"]
        rng = random.Random(1)
        answers = root / "answers.json"
        answers.write_text(json.dumps([{"question_id": q["question_id"], "answer": rng.choice(VOCAB)}
                                       for q in questions]))
        del questions
        job = ["run", "--model", f"predictions:path={answers}", "--suite", "vqa2", "--data-dir", str(data),
               "--no-leaderboard"]
        print(f"load before: {uptime()}")
        print(f"{args.questions:,} questions; command: harness {' '.join(job)}")
        cold, cold_mb, out = _run(job, root, root / "cache")
        print(f"cold:  {cold:7.1f} s wall, peak {cold_mb:7.0f} MB")
        warm, warm_mb, _ = _run(job, root, root / "cache")
        print(f"warm:  {warm:7.1f} s wall, peak {warm_mb:7.0f} MB   (cold / warm = {cold / warm:.1f}x)")
        small, small_mb, _ = _run([*job, "--limit", "1000"], root, root / "cache-limit")
        print(f"--limit 1000 (cold cache): {small:.1f} s wall, peak {small_mb:.0f} MB")
        print(f"peak memory target (under 4 GB): {'met' if max(cold_mb, warm_mb) < 4096 else 'NOT met'}")
        print("\n".join(line for line in out.splitlines() if "result rows" in line))
        print(f"load after: {uptime()}")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
