"""Print the toy figures of the papers' models (docs/models.md) from `harness run` folders.

    python benchmarks/paper_models.py results/runs/*

For every run folder given (its manifest and results.jsonl only): the model, suite, wall
time (manifest start to finish) and the figures the issue compares: multiple-choice
accuracy per decoy set (IQA and the QA / IA / A ablations), official VQA accuracy per
task, and counter-example Recall@5 per ranker, with 95% intervals. Values in %.
"""

from __future__ import annotations

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


def main(argv: list[str]) -> int:
    for arg in argv:
        folder = Path(arg)
        if (folder / "manifest.json").is_file() and (folder / "results.jsonl").is_file():
            print("\n".join(summarize(folder)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
