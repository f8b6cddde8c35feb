"""Print the toy figures of the papers' models (docs/models.md) from `harness run` folders.

    python benchmarks/paper_models.py results/runs/*

For every run folder given (its manifest and results.jsonl only): the model, suite, wall
time (manifest start to finish) and the figures the issue compares: multiple-choice
accuracy per decoy set (IQA and the QA / IA / A ablations), official VQA accuracy per
task, and counter-example Recall@5 per ranker, with 95% intervals. Values in %. Paths that
are not run folders are skipped (a glob may match other files); a path that does not exist, or
no run folder among the paths, is an error (exit 1).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

DECOY_METRICS = {"mc_accuracy": "IQA", "mc_accuracy/QA": "QA", "mc_accuracy/IA": "IA", "mc_accuracy/A": "A"}
RANKERS = ("random", "distance", "model", "trained")


def _pct(row: dict) -> str:
    ci = "" if row.get("ci_low") is None else f" [{100 * row['ci_low']:.1f}, {100 * row['ci_high']:.1f}]"
    return f"{100 * row['value']:.2f}{ci}"


def summarize(folder: Path) -> list[str]:
    """Lines describing one run folder."""
    manifest = json.loads((folder / "manifest.json").read_text())
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines() if line.strip()]
    start, end = manifest.get("started"), manifest.get("finished")
    wall = ((datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
            if start and end else float("nan"))
    out = [f"{manifest['model']} on {manifest['suite']} (seed {manifest.get('seed')}): {wall:.0f} s, "
           f"status {manifest.get('status')}"]
    for r in rows:
        task = f"{r['dataset']} (train {r['train'] or '-'})"
        if r["probe"] == "decoys" and r["metric"] in DECOY_METRICS:
            out.append(f"  decoys {r['variant']:8s} {DECOY_METRICS[r['metric']]:3s} {_pct(r)}")
        elif r["probe"] in ("accuracy", "balanced-accuracy") and r["metric"] == "vqa_accuracy":
            out.append(f"  vqa_accuracy {task}: {_pct(r)}")
        elif r["probe"] in ("accuracy", "balanced-accuracy") and r["metric"].startswith("vqa_accuracy/answer_type="):
            out.append(f"    {r['metric'].split('=', 1)[1]}: {_pct(r)}")
        elif r["probe"] == "counter-examples" and r["variant"] in RANKERS:
            out.append(f"  recall@5 {r['variant']:8s} {task}: {_pct(r)} (n={r['n']})")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, metavar="RUN_FOLDER",
                        help="`harness run` folders (manifest.json and results.jsonl), e.g. results/runs/*")
    args = parser.parse_args(argv)
    absent = [str(f) for f in args.folders if not f.exists()]
    if absent:
        raise SystemExit(f"error: no such file or folder: {', '.join(absent)}")
    found = [f for f in args.folders if (f / "manifest.json").is_file() and (f / "results.jsonl").is_file()]
    if not found:
        raise SystemExit(f"error: none of the {len(args.folders)} paths given is a run folder (manifest.json and "
                         f"results.jsonl); give the run folders themselves, e.g. results/runs/*")
    for folder in found:
        try:
            lines = summarize(folder)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"error: {folder}: unreadable manifest.json or results.jsonl "
                             f"({type(exc).__name__}: {exc})") from None
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
