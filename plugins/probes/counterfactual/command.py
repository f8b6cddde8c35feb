"""`harness perturb`: write counterfactual questions (Stoikou 2023) without running a model."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from harness.data.session import Session
from harness.fileio import atomic_write_text
from harness.folders import check_writable_file
from harness.host import get_host
from harness.seeding import MAX_SEED
from harness.specs import Place, check_spec_names
from vqa_harness_plugins.generators.counterfactual import (
    Perturbation,
    Perturber,
    colors_in,
    perturb_many,
    resolve_kinds,
    skip_reasons,
)
from vqa_harness_plugins.validation import check_not_input

__all__ = ["perturb"]


@click.command()
@click.option("--dataset", "dataset", required=True, callback=check_spec_names,
              help="Dataset spec, e.g. toyvqa or toyvqa:variant=balanced.")
@click.option("--split", default=None, help="Split (default: val when the dataset has one, else its first).")
@click.option("--kind", default="all", show_default=True,
              help="Perturbation kind, a comma list, or all: color_max_common, color_max_uncommon, "
                   "color_min_common, color_min_uncommon, synonym_adj, synonym_verb, hypernym_noun, "
                   "hyponym_noun, sibling_noun, deletion_noun.")
@click.option("--out", type=Place(dir_okay=False, path_type=Path), default=None,
              help="JSONL file to write (default: standard output).")
@click.option("--data-dir", type=Place(file_okay=False, path_type=Path), default=None,
              help="Folder holding the dataset's files (datasets that need a download).")
@click.option("--mode", type=click.Choice(["quality", "paper"]), default="quality", show_default=True,
              help="quality: senses in context, common words, lemminflect forms, whole-phrase deletion "
                   "(the suites' default); paper: the generator as Stoikou et al. describe it.")
@click.option("--seed", type=click.IntRange(min=0, max=MAX_SEED), default=0,
              show_default=True, help="Seed of the word choice.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N questions.")
def perturb(dataset: str, split: str | None, kind: str, out: Path | None, data_dir: Path | None,
            mode: str, seed: int, limit: int | None) -> None:
    """Write one JSONL row per counterfactual question: example id, kind, original and
    counterfactual question, replaced word and replacement (empty for deletions).
    Skipped questions (per kind, by reason) and rejected candidates (quality mode, by
    reason) are counted on standard error."""

    t_start = time.perf_counter()
    if out is not None:
        check_writable_file(out)  # one line, before any work
    kinds = resolve_kinds(kind)
    session = Session(get_host(), data_dir=data_dir, limit=limit)
    plugin = session.dataset(dataset)
    split = split or ("val" if "val" in plugin.splits else plugin.splits[0])
    if out is not None:
        check_not_input(out, "--out", plugin)
    examples = session.load(dataset, split, limit=True)
    vocabulary = [ex.question for ex in examples] + [a for ex in examples for a in ex.answers]
    perturber = Perturber(common_colors=colors_in(vocabulary), seed=seed, kinds=kinds, mode=mode)
    contexts = [tuple(ex.answers) for ex in examples] if mode == "quality" else None
    t_ready, c_ready = time.perf_counter(), time.process_time()
    results, counts, rejected = perturb_many(perturber, [ex.question for ex in examples], contexts)
    t_done, c_done = time.perf_counter(), time.process_time()
    lines = []
    for ex, res in zip(examples, results):
        for k in kinds:
            p = res[k.id]
            if isinstance(p, Perturbation):
                lines.append(json.dumps({
                    "example_id": ex.id, "kind": k.id, "question": p.question,
                    "counterfactual": p.counterfactual, "replaced": p.replaced,
                    "replacement": p.replacement, "concept": p.source, "new_concept": p.target,
                    "evidence": p.detail, "mode": mode,
                }, ensure_ascii=False))
    text = "".join(line + "\n" for line in lines)
    if out is None:
        sys.stdout.write(text)
    else:

        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out, text)
    total = len(examples)
    order = {r: i for i, r in enumerate(skip_reasons(mode))}
    rate = total / max(c_done - c_ready, 1e-9)
    click.echo(f"mode {mode}, {total} questions; timing: data and resources {t_ready - t_start:.2f} s, "
               f"perturbation {t_done - t_ready:.2f} s wall / {c_done - c_ready:.2f} s CPU "
               f"({rate:,.0f} questions per CPU second), writing {time.perf_counter() - t_done:.2f} s", err=True)
    for k in kinds:
        c = counts[k.id]
        skipped = ", ".join(f"{r} {c[r]}" for r in sorted(c, key=lambda r: order.get(r, -1)) if r != "applied") or "none"
        line = f"{k.id}: {c['applied']}/{total} questions perturbed; skipped: {skipped}"
        if rejected[k.id]:
            line += "; candidates rejected: " + ", ".join(
                f"{r} {rejected[k.id][r]}" for r in sorted(rejected[k.id], key=lambda r: order.get(r, -1)))
        click.echo(line, err=True)
