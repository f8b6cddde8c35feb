"""The main job, fresh and warm, back to back (issue: fast first runs, near-instant re-runs).

    python benchmarks/main_job.py [--models prior,qonly,cnn-lstm,retrieval-explainer] [--suite toy]
                                  [--json out.json] [--keep DIR]

1. Fresh: a new, empty cache folder (VQA_HARNESS_CACHE) and a new working folder; the
   README's command 1 job (`harness run --model ... --suite toy`): toy data generated,
   models trained, every probe computed.
2. Warm: the same command again, same cache (every prediction and probe output cached).
3. `harness run --model qonly --suite vqa-accuracy`, first run and re-run, in a second
   fresh cache folder (the smaller re-run target).

Prints, for each step: wall seconds, the per-model seconds (from each run's manifest),
peak memory (the largest resident set of the run's process), and the ratios fresh/warm
and first/re-run. The baseline of each ratio is measured in the same invocation, on the
same machine state; the load (`uptime`) is printed before and after. Nothing is written
into the project: everything goes to a temporary folder (or --keep DIR, which must be new or
empty: a DIR that holds anything, e.g. an earlier --keep run's cache, is refused with exit 1,
since the first step would then not be fresh; remove it or name another).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_proc import run_harness, uptime  # noqa: E402

MAIN_JOB = ("prior", "qonly", "cnn-lstm", "retrieval-explainer")


def _run(args: list[str], workdir: Path, cache: Path) -> dict:
    """Run `harness ...`; wall time, peak memory and the per-model figures of its manifests."""
    before = set((workdir / "results" / "runs").glob("*")) if (workdir / "results" / "runs").is_dir() else set()
    wall, peak_mb, _, code = run_harness(args, workdir, cache)
    runs = sorted(set((workdir / "results" / "runs").glob("*")) - before)
    per_model = {}
    for run in runs:
        m = json.loads((run / "manifest.json").read_text())
        seconds = (datetime.fromisoformat(m["finished"]) - datetime.fromisoformat(m["started"])).total_seconds()
        per_model[m["model"]] = {"seconds": seconds, "model_calls": m["stats"]["model_calls"],
                                 "probe_outputs_reused": m["stats"].get("probe_outputs_reused", 0)}
    return {"wall": wall, "peak_mb": peak_mb, "per_model": per_model, "exit": code}


def _show(label: str, r: dict) -> None:
    print(f"{label}: {r['wall']:.1f} s wall, peak memory {r['peak_mb']:.0f} MB")
    for model, m in r["per_model"].items():
        print(f"    {model:22s} {m['seconds']:7.1f} s   model calls {m['model_calls']:>7}   "
              f"probe outputs reused {m['probe_outputs_reused']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MAIN_JOB))
    parser.add_argument("--suite", default="toy")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="work in DIR and keep it; DIR must be new or empty (an earlier run's "
                             "cache would make the fresh step warm), anything else is refused")
    parser.add_argument("--skip-small", action="store_true", help="skip the qonly/vqa-accuracy step")
    args = parser.parse_args(argv)
    if args.keep is not None and args.keep.exists() and (not args.keep.is_dir() or any(args.keep.iterdir())):
        raise SystemExit(f"error: --keep {args.keep} " + ("is not a folder" if not args.keep.is_dir() else
                         "is not empty (a fresh run needs a new or empty folder: remove it or name another)"))
    root = args.keep or Path(tempfile.mkdtemp(prefix="harness-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    models = [m for m in args.models.split(",") if m]
    job = ["run", *[a for m in models for a in ("--model", m)], "--suite", args.suite]
    print(f"load before: {uptime()}")
    print(f"command: harness {' '.join(job)}")
    out: dict = {"command": "harness " + " ".join(job), "load_before": uptime()}
    try:
        (root / "work").mkdir(parents=True)
        fresh = _run(job, root / "work", root / "cache")
        _show("fresh", fresh)
        warm = _run(job, root / "work", root / "cache")
        _show("warm ", warm)
        print(f"fresh / warm = {fresh['wall'] / warm['wall']:.1f}x   (target: at least 50x)")
        out.update(fresh=fresh, warm=warm, ratio=fresh["wall"] / warm["wall"])
        if not args.skip_small:
            small = ["run", "--model", "qonly", "--suite", "vqa-accuracy"]
            (root / "work-small").mkdir()
            first = _run(small, root / "work-small", root / "cache-small")
            again = _run(small, root / "work-small", root / "cache-small")
            print(f"qonly on vqa-accuracy: first {first['wall']:.1f} s, re-run {again['wall']:.2f} s, "
                  f"ratio {first['wall'] / again['wall']:.1f}x   (target: at least 20x)")
            out.update(small_first=first, small_again=again, small_ratio=first["wall"] / again["wall"])
    finally:
        out["load_after"] = uptime()
        print(f"load after: {out['load_after']}")
        if args.json:
            args.json.write_text(json.dumps(out, indent=1) + "\n")
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
