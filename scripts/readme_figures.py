"""Regenerate the README's figures from the main job's run folders (never typed by hand).

    python scripts/readme_figures.py RUNS_FOLDER [--write]

RUNS_FOLDER holds the run folders of the README's command 1 (results/runs after
`harness run --model prior --model qonly --model cnn-lstm --model retrieval-explainer
--suite toy`). Prints the markdown block; with --write, replaces the block between the
`<!-- figures:start -->` and `<!-- figures:end -->` markers of README.md, and refuses (exit 1,
README.md untouched) when the runs do not give every figure of the block. The figures are
meant to be the same on any x86-64 machine with AVX2 and the locked install (constraints.txt):
training runs on one thread with kernels chosen not to depend on the CPU model (docs/models.md,
"Machine-independent numerics"). Measured: every cell identical on an AMD EPYC (here) and an
Intel Xeon (the lent GPU machine, its own torch 2.11; docs/benchmarks.md, "A second CPU").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- figures:start -->", "<!-- figures:end -->"
MODELS = (("prior", "prior"), ("qonly", "qonly (question only)"), ("cnn-lstm", "cnn-lstm (image + question)"))


def _rows(runs: Path) -> list[dict]:
    if not runs.is_dir():
        raise SystemExit(f"error: {runs} is not a folder")
    latest: dict[str, Path] = {}
    for run in sorted(p for p in runs.iterdir() if (p / "results.jsonl").is_file()):
        try:
            manifest = json.loads((run / "manifest.json").read_text())
        except (OSError, ValueError) as exc:
            print(f"skipped {run}: unreadable manifest ({exc})", file=sys.stderr)
            continue
        if manifest.get("suite") == "toy" and manifest.get("status") == "complete":
            latest[manifest["model"]] = run
    rows = []
    for run in latest.values():
        rows += [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines() if line.strip()]
    return rows


def _value(rows: list[dict], model: str, **where: str) -> float | None:
    for r in rows:
        if r["model"] == model and all(r.get(k) == v for k, v in where.items()):
            return r["value"]
    return None


def cells(rows: list[dict]) -> dict[str, float | None]:
    """The README's figures: Goyal's UU / BB accuracy of the three answer models, and the
    decoy effect for cnn-lstm (IQA and QA); None where no row gives the cell."""
    out: dict[str, float | None] = {}
    for model, _ in MODELS:
        for cell, (train, data) in {"UU": ("toyvqa:variant=unbalanced/train", "toyvqa:variant=unbalanced"),
                                    "BB": ("toyvqa:variant=balanced/train", "toyvqa:variant=balanced")}.items():
            out[f"{model} {cell}"] = _value(rows, model, probe="balanced-accuracy", metric="vqa_accuracy",
                                            dataset=data, train=train)
    for name, metric in (("IQA", "mc_accuracy"), ("QA", "mc_accuracy/QA")):
        out[f"cnn-lstm decoys {name}"] = _value(rows, "cnn-lstm", probe="decoys", variant="iou+qou", metric=metric)
    return out


def block(values: dict[str, float | None]) -> str:
    """The markdown block of `cells`' figures ("-" for a missing accuracy cell)."""
    def acc(model: str, cell: str) -> str:
        v = values[f"{model} {cell}"]
        return "-" if v is None else f"{100 * v:.2f}"

    lines = ["| model | unbalanced (UU) | balanced (BB) |", "|---|---|---|"]
    lines += [f"| {label} | {acc(m, 'UU')} | {acc(m, 'BB')} |" for m, label in MODELS]
    iq, qa = values["cnn-lstm decoys IQA"], values["cnn-lstm decoys QA"]
    if iq is not None and qa is not None:
        lines += ["", f"On the IoU+QoU decoys (`decoys`), cnn-lstm picks the target {100 * iq:.1f}% of the time with "
                      f"the image and {100 * qa:.1f}% with the image blanked."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path)
    parser.add_argument("--write", action="store_true",
                        help="replace the block in README.md (refused unless the runs give every figure)")
    args = parser.parse_args(argv)
    values = cells(_rows(args.runs))
    missing = [name for name, v in values.items() if v is None]
    if args.write and missing:
        raise SystemExit(f"error: no complete toy run under {args.runs} gives {len(missing)} of the "
                         f"{len(values)} figures ({', '.join(missing)}); README.md not written")
    print(block(values))
    if missing:
        print(f"note: {len(missing)} figures missing ({', '.join(missing)})", file=sys.stderr)
    if args.write:
        readme = ROOT / "README.md"
        content = readme.read_text(encoding="utf-8")
        if START not in content or END not in content:
            raise SystemExit("README.md has no figures markers")
        head, rest = content.split(START, 1)
        _, tail = rest.split(END, 1)
        readme.write_text(f"{head}{START}\n{block(values)}\n{END}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
