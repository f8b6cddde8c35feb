"""Seed spread of the trainable models' toy figures (docs/models.md): mean, standard deviation
and range over the seeds found, per model and cell, and which comparisons survive it.

    python benchmarks/seed_spread.py RUNS_FOLDER [RUNS_FOLDER ...] [--json out.json]

Reads every complete run folder under the folders given (manifest.json, results.jsonl): the
latest run per (model, suite, seed). A cell is one result row's key without the seed:
(suite, probe, dataset, split, variant, metric, train). Prints, per cell and model, the values in %
over the seeds, and, for every pair of models scored on the same cell with at least 3 seeds
each, whether their ranges overlap ("survives": the worse model's best seed is below the
better model's worst seed). Nothing is computed here that the runs did not compute.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from itertools import combinations
from pathlib import Path

CELL = ("suite", "probe", "dataset", "split", "variant", "metric", "train")


def runs(roots: list[Path]) -> dict[tuple[str, str, int], list[dict]]:
    """(model, suite, seed) -> the rows of the latest complete run, in run-id order."""
    latest: dict[tuple[str, str, int], tuple[str, list[dict]]] = {}
    for root in roots:
        for folder in sorted(p for p in root.rglob("manifest.json")):
            run = folder.parent
            try:
                manifest = json.loads(folder.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                print(f"skipped {run}: unreadable manifest ({exc})", file=sys.stderr)
                continue
            if manifest.get("status") != "complete" or not (run / "results.jsonl").is_file():
                continue
            key = (manifest["model"], manifest["suite"], int(manifest.get("seed", 0)))
            if key not in latest or latest[key][0] < manifest["run_id"]:
                rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines() if line.strip()]
                latest[key] = (manifest["run_id"], rows)
    return {key: rows for key, (_, rows) in sorted(latest.items(), key=lambda item: item[1][0])}


def spread(found: dict[tuple[str, str, int], list[dict]]) -> dict[tuple, dict[str, dict[int, float]]]:
    """cell -> model -> seed -> value (in %)."""
    cells: dict[tuple, dict[str, dict[int, float]]] = {}
    for (model, _suite, seed), rows in found.items():
        for row in rows:
            cell = tuple(row.get(k, "") for k in CELL)
            if row.get("unit") == "fraction":
                cells.setdefault(cell, {}).setdefault(model, {})[seed] = 100 * row["value"]
    return cells


def summary(values: dict[int, float]) -> dict[str, float]:
    v = list(values.values())
    return {"seeds": sorted(values), "mean": statistics.fmean(v), "sd": statistics.stdev(v) if len(v) > 1 else 0.0,
            "min": min(v), "max": max(v)}


def comparisons(models: dict[str, dict[int, float]], min_seeds: int = 3) -> list[str]:
    out = []
    for a, b in combinations(sorted(models), 2):
        if len(models[a]) < min_seeds or len(models[b]) < min_seeds:
            continue
        sa, sb = summary(models[a]), summary(models[b])
        hi, lo = (a, b) if sa["mean"] >= sb["mean"] else (b, a)
        shi, slo = summary(models[hi]), summary(models[lo])
        verdict = "survives" if slo["max"] < shi["min"] else "does NOT survive (ranges overlap)"
        out.append(f"    {hi} > {lo} by {shi['mean'] - slo['mean']:.2f} points (mean): {verdict}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, help="write the spreads as JSON")
    args = parser.parse_args(argv)
    cells = spread(runs(args.roots))
    dump = []
    for cell in sorted(cells):
        models = cells[cell]
        print(" | ".join(str(c) for c in cell if c))
        for model in sorted(models):
            s = summary(models[model])
            print(f"  {model}: {s['mean']:.2f} ± {s['sd']:.2f} (min {s['min']:.2f}, max {s['max']:.2f}; "
                  f"{len(s['seeds'])} seeds)")
            dump.append({"cell": dict(zip(CELL, cell)), "model": model, **s})
        print("\n".join(comparisons(models)))
    if args.json:
        args.json.write_text(json.dumps(dump, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
