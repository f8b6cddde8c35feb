"""Do the trained models' figures come out the same on another machine? Rows of run folders
made THERE (benchmarks/cross_machine.sh) against the same rows HERE, seed by seed.

    python benchmarks/cross_machine.py THERE HERE [HERE ...]

THERE and HERE are folders holding run folders (searched recursively); only complete runs
count, read as benchmarks/seed_spread.py reads them (the latest run per model, suite and
seed, each folder on its own); where runs give the same row, a later HERE folder's row wins,
and within one folder the later run's (by run id). A row is matched by (seed, model, dataset,
split, probe, variant, metric, train), so suites that share a task (the toy suite,
balanced-vqa, a one-task suite) compare. Prints, per model, how many rows matched and how
many are identical to the last bit; then the headline cells of docs/models.md (Goyal's four accuracy cells and Recall@5; Chao's accuracy
per decoy set and its ablations), each with THERE's value, HERE's value of the same seed and
HERE's range over every seed it has: identical, inside the range, or outside it.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from seed_spread import runs  # noqa: E402

#: Goyal et al.'s cells: (test data, training data) -> name.
GOYAL = {
    ("toyvqa:variant=unbalanced", "toyvqa:variant=unbalanced/train"): "UU",
    ("toyvqa:variant=balanced", "toyvqa:variant=unbalanced/train"): "UB",
    ("toyvqa:variant=balanced", "toyvqa-half/train"): "B_half B",
    ("toyvqa:variant=balanced", "toyvqa:variant=balanced/train"): "BB",
}


def load(folders: list[Path]) -> dict[tuple, float]:
    """(seed, model, dataset, split, probe, variant, metric, train) -> value, from the latest
    complete run per model, suite and seed (`seed_spread.runs`) of each folder; where runs give
    the same row (two suites that share a task), a later folder's row wins, and within one
    folder the later run's (by run id)."""
    rows: dict[tuple, float] = {}
    for folder in folders:
        for (_model, _suite, seed), found in runs([folder]).items():  # in run-id order
            for r in found:
                key = (seed, r["model"], r["dataset"], r["split"], r["probe"], r["variant"], r["metric"], r["train"])
                rows[key] = r["value"]
    return rows


def cell(key: tuple) -> str | None:
    """The docs/models.md cell a row is, or None."""
    _, _, dataset, _, probe, variant, metric, train = key
    if probe == "balanced-accuracy" and metric == "vqa_accuracy":
        return GOYAL.get((dataset, train))
    if probe == "counter-examples" and variant == "model" and metric == "counterexample/recall@5":
        return f"Recall@5 {GOYAL.get((dataset, train), '?')}"
    if probe == "decoys" and metric.startswith("mc_accuracy") and dataset.endswith(f"decoys={variant}") \
            and train == f"{dataset}/train":
        return variant + ("" if metric == "mc_accuracy" else " " + metric.split("/", 1)[1])
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("there", type=Path)
    parser.add_argument("here", type=Path, nargs="+")
    args = parser.parse_args(argv)
    there, here = load([args.there]), load(args.here)
    if not there:
        raise SystemExit(f"error: no complete run folder under {args.there}")
    if not here:
        raise SystemExit(f"error: no complete run folder under {', '.join(map(str, args.here))}")
    per_model: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for key, value in there.items():
        if key in here:
            per_model[key[1]][0] += 1
            per_model[key[1]][1] += value == here[key]
    print("rows matched / identical to the last bit, per model:")
    for model, (matched, same) in sorted(per_model.items()):
        print(f"  {model:28} {matched:4} / {same:4}")
    spread: dict[tuple, list[float]] = defaultdict(list)
    for key, value in here.items():
        spread[key[1:]].append(value)
    print("\ncells (%): there, here (same seed), here's range over its seeds")
    verdicts: dict[str, int] = defaultdict(int)
    for key in sorted(k for k in there if k in here and cell(k)):
        value, same_seed, values = there[key], here[key], spread[key[1:]]
        low, high = min(values), max(values)
        verdict = ("identical" if value == same_seed else
                   f"inside the range of {len(values)} seeds" if low <= value <= high else
                   f"OUTSIDE the range of {len(values)} seeds")
        verdicts[verdict.split(" of ")[0]] += 1
        print(f"  seed {key[0]} {key[1]:26} {cell(key):16} {100 * value:6.2f} {100 * same_seed:6.2f} "
              f"[{100 * low:.2f}, {100 * high:.2f}]  {verdict}")
    if not per_model:
        raise SystemExit("error: no row of THERE has a row HERE with the same seed and task")
    print("\n" + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
