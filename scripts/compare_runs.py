"""Compare the result rows of two sets of runs: are they the same numbers?

    python scripts/compare_runs.py BEFORE_RUNS AFTER_RUNS [--ignore-probe P ...]

Each argument is a folder of run folders (results/runs) or one run folder. When a side holds
several runs of the same (model, suite), only the latest is read (the highest run id, which
starts with its UTC start time), as the leaderboard does. Rows are matched on (model, suite,
dataset, split, probe, variant, metric, train); run ids and row order are ignored. Prints
the rows only in one side and the rows whose value, n or interval differ; for each (model,
suite) whose rows differ, what its two manifests record differently among the things a number
depends on (packages, CPU, numerics settings, data digests, seed, options, code version:
`differences`); then a one-line verdict. Exits 0 when identical, 1
otherwise (also for a row repeated within one run); a side that is missing, holds no run or
an unreadable results.jsonl is a one-line error. Used to check that a change left the main
job's results unchanged, and to explain two machines' different numbers (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Mapping


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, sub in value.items():
            out.update(_flat(sub, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


#: Manifest fields that can explain different numbers (`differences` compares these).
EXPLAINING = ("environment", "numerics", "versions", "data", "seed", "device", "limit", "split", "batch_size",
              "config_digest", "git_commit", "suite_file", "data_dir")


def differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, value in a, value in b) for every manifest field that can change a number and
    differs between two manifests, flattened to dotted names ("environment.packages.pillow")."""
    fa = _flat({k: a.get(k) for k in EXPLAINING if k in a})
    fb = _flat({k: b.get(k) for k in EXPLAINING if k in b})
    return [(k, fa.get(k), fb.get(k)) for k in sorted(set(fa) | set(fb)) if fa.get(k) != fb.get(k)]


KEY = ("model", "suite", "dataset", "split", "probe", "variant", "metric", "train")
VALUES = ("value", "n", "ci_low", "ci_high", "unit", "higher_is_better")


def rows_of(root: Path, folders_out: dict[tuple[str, str], Path] | None = None) -> dict[tuple, dict]:
    """The rows of the latest run per (model, suite) under `root`, keyed by `KEY`
    (`folders_out` receives each (model, suite)'s run folder)."""
    if not root.is_dir():
        raise SystemExit(f"error: {root}: no such folder")
    folders = [root] if (root / "results.jsonl").is_file() else sorted(p for p in root.iterdir()
                                                                        if (p / "results.jsonl").is_file())
    if not folders:
        raise SystemExit(f"error: {root}: no run folder (no results.jsonl) to compare")
    runs: list[tuple[str, Path, list[dict]]] = []
    for folder in folders:
        try:
            lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
            rows = [json.loads(line) for line in lines if line.strip()]
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise SystemExit(f"error: {folder / 'results.jsonl'}: unreadable ({exc})") from None
        runs.append((folder.name, folder, rows))
    latest: dict[tuple[str, str], str] = {}
    for name, _, rows in runs:
        for row in rows:
            pair = (row.get("model", ""), row.get("suite", ""))
            latest[pair] = max(latest.get(pair, ""), row.get("run_id") or name)
    out: dict[tuple, dict] = {}
    for name, folder, rows in runs:
        for row in rows:
            if (row.get("run_id") or name) != latest[(row.get("model", ""), row.get("suite", ""))]:
                continue  # an older run of the same model and suite
            key = tuple(row.get(k, "") for k in KEY)
            if folders_out is not None:
                folders_out[(row.get("model", ""), row.get("suite", ""))] = folder
            if key in out:
                raise SystemExit(f"{folder}: duplicate row {key}")
            out[key] = row
    return out


def _manifest(folder: Path | None) -> dict:
    try:
        return json.loads((folder / "manifest.json").read_text(encoding="utf-8")) if folder else {}
    except (OSError, ValueError):
        return {}


def explain(pair: tuple[str, str], before: Path | None, after: Path | None) -> None:
    """Print what the two runs' manifests record differently among the things a number
    depends on (or that they record nothing different: then the code or a data file that
    neither manifest pins is the suspect)."""
    found = differences(_manifest(before), _manifest(after))
    print(f"why {pair[0]} on {pair[1]} may differ ({before.name if before else '-'} vs "
          f"{after.name if after else '-'}):")
    if not found:
        print("  the manifests record nothing different (same packages, CPU, settings, data digests)")
    for field, a, b in found:
        print(f"  {field}: {a!r} -> {b!r}")
    if any(field.startswith("data.") for field, _, _ in found):
        print("  (data.*: each dataset plugin's fingerprint: the toy data's generation parameters; a file "
              "dataset's file paths, sizes and modification times, so the same files at another path or "
              "copied without their times differ here)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--ignore-probe", action="append", default=[], help="leave this probe's rows out")
    args = parser.parse_args(argv)
    where_before: dict[tuple[str, str], Path] = {}
    where_after: dict[tuple[str, str], Path] = {}
    before, after = rows_of(args.before, where_before), rows_of(args.after, where_after)
    for side in (before, after):
        for key in [k for k in side if k[4] in args.ignore_probe]:
            del side[key]
    only_before = sorted(set(before) - set(after))
    only_after = sorted(set(after) - set(before))
    changed = [k for k in sorted(set(before) & set(after))
               if any(before[k].get(v) != after[k].get(v) for v in VALUES)]
    for key in only_before:
        print("only before:", key)
    for key in only_after:
        print("only after: ", key)
    for key in changed:
        diff = {v: (before[key].get(v), after[key].get(v)) for v in VALUES if before[key].get(v) != after[key].get(v)}
        print("changed:    ", key, diff)
    # rows present on one side only (a probe skipped here, run there) need explaining too,
    # when both sides ran the model on the suite
    for pair in sorted({k[:2] for k in changed + only_before + only_after}):
        if pair in where_before and pair in where_after:
            explain(pair, where_before[pair], where_after[pair])
    same = not (only_before or only_after or changed)
    print(f"{len(before)} rows before, {len(after)} after: "
          + ("identical" if same else f"{len(only_before)} only before, {len(only_after)} only after, "
                                      f"{len(changed)} changed"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
