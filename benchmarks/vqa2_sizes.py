"""How the `vqa2` suite grows with the number of questions: time, memory and disk per size.

    python benchmarks/vqa2_sizes.py [--sizes 25000,50000,100000] [--model prior] [--keep DIR]

For each size N it generates VQA v2 train and val in the official format (N questions each,
10 answers, complementary pairs; benchmarks/balanced_vqa_load.py's generator, no images) and
runs, each in a fresh process (harness_proc: wall seconds, peak resident memory):

1. `harness run --model MODEL --suite vqa2` with an empty cache (cold);
2. the same again (warm: probe outputs restored);
3. `harness leaderboard build` over the two runs with `--all-runs`;
4. `harness compare` of the two runs (paired tests over every question).

It prints, per size and step, the figures and the ratio to the previous size (doubling N
should at most double them), and the disk the cold run and the cache's probe outputs take:
"written" counts every file at its full size, as the harness stored them before run folders
linked identical prediction files and the cache linked (not copied) a run's files; "on disk"
counts each file once (hard links share it). The load (`uptime`) is printed with each size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from balanced_vqa_load import VOCAB, generate  # noqa: E402
from harness_proc import run_harness, uptime  # noqa: E402


def write_data(root: Path, n: int) -> Path:
    """VQA v2 train and val with `n` questions each, and an official results file for val."""
    data = root / "data"
    generate(data, n)
    scratch = root / "train-scratch"
    for f in generate(scratch, n, seed=7):
        f.rename(data / "vqa2" / f.name.replace("val2014", "train2014"))
    shutil.rmtree(scratch)
    questions = json.loads((data / "vqa2" / "v2_OpenEnded_mscoco_val2014_questions.json").read_text())["questions"]
    rng = random.Random(1)
    (root / "answers.json").write_text(json.dumps([{"question_id": q["question_id"], "answer": rng.choice(VOCAB)}
                                                   for q in questions]))
    return data


def disk(*folders: Path) -> tuple[int, int]:
    """(bytes of every file at its size, bytes with each hard-linked file counted once)."""
    written, seen, unique = 0, set(), 0
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file() and not path.is_symlink():
                st = path.stat()
                written += st.st_size
                if (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    unique += st.st_size
    return written, unique


def measure(n: int, root: Path, model: str) -> dict[str, tuple[float, float]]:
    data = write_data(root, n)
    spec = f"predictions:path={root / 'answers.json'}" if model == "predictions" else model
    out, cache = root / "runs", root / "cache"
    job = ["run", "--model", spec, "--suite", "vqa2", "--data-dir", str(data), "--out", str(out), "--no-leaderboard"]
    steps: dict[str, tuple[float, float]] = {}
    wall, peak, _, _ = run_harness(job, root, cache)
    steps["run, cold"] = (wall, peak)
    cold = sorted(out.iterdir())[-1]
    written, unique = disk(cold, cache / "artifacts")
    wall, peak, _, _ = run_harness(job, root, cache)
    steps["run, warm"] = (wall, peak)
    warm = sorted(p for p in out.iterdir() if p != cold)[-1]
    wall, peak, _, _ = run_harness(["leaderboard", "build", str(out), "--out", str(root / "lb"), "--all-runs"],
                                   root, cache)
    steps["leaderboard --all-runs"] = (wall, peak)
    wall, peak, _, _ = run_harness(["compare", str(cold), str(warm), "--n-boot", "1000"], root, cache)
    steps["compare (1000 resamples)"] = (wall, peak)
    mb = 2 ** 20
    print(f"  disk, cold run + cache's probe outputs: {written / mb:.0f} MB written as separate files, "
          f"{unique / mb:.0f} MB on disk ({written / max(unique, 1):.1f}x less)")
    steps["disk MB (on disk)"] = (unique / mb, 0.0)
    return steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="25000,50000,100000", help="comma-separated question counts")
    parser.add_argument("--model", default="prior", help="prior, qonly, predictions (answers from a file) ...")
    parser.add_argument("--keep", type=Path, default=None, help="keep the data and runs here")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    base = args.keep or Path(tempfile.mkdtemp(prefix="vqa2-sizes-"))
    results: dict[int, dict[str, tuple[float, float]]] = {}
    try:
        for n in sizes:
            print(f"{n:,} questions (train and val each); load before: {uptime()}")
            root = base / str(n)
            root.mkdir(parents=True, exist_ok=True)
            results[n] = measure(n, root, args.model)
            for step, (wall, peak) in results[n].items():
                if step.startswith("disk"):
                    continue
                print(f"  {step:26s} {wall:7.1f} s   peak {peak:6.0f} MB")
            print(f"  load after: {uptime()}")
            if args.keep is None:
                shutil.rmtree(root, ignore_errors=True)
        print("\nratio to the previous size (time / memory; a doubling of questions should give at most 2.0):")
        for prev, n in zip(sizes, sizes[1:]):
            cells = []
            for step, (wall, peak) in results[n].items():
                w0, p0 = results[prev][step]
                cells.append(f"{step} {wall / w0:.2f}" + (f"/{peak / p0:.2f}" if p0 else ""))
            print(f"  {prev:,} -> {n:,} ({n / prev:.1f}x): " + "; ".join(cells))
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TQDM_DISABLE", "1")
    sys.exit(main())
