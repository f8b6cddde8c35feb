"""`harness decoys generate`: QoU + IoU decoys (Chao et al. 2018) in the released JSON shape."""

from __future__ import annotations

import json
from pathlib import Path

import click

from harness.data.session import Session
from harness.devices import resolve_device
from harness.errors import UsageError
from harness.fileio import atomic_write_text
from harness.folders import check_writable_file
from harness.host import get_host
from harness.seeding import MAX_SEED
from harness.specs import Place, check_spec_names
from harness.types import Example
from vqa_harness_plugins.generators.decoys import (
    EMPTY_TARGETS,
    DecoyConfig,
    QARecord,
    generate_decoys,
    write_decoy_file,
)
from vqa_harness_plugins.validation import check_not_input

__all__ = ["decoys", "dataset_records"]


@click.group()
def decoys() -> None:
    """Automatic multiple-choice decoys (Chao et al. 2018): see docs/decoys.md."""


def dataset_records(plugin, split: str):
    """The triplets of a dataset split: the decoy datasets' own (target and original decoys
    in meta), else any dataset's examples with `label` as target and `choices` as decoys."""

    if hasattr(plugin, "base_examples"):
        examples = plugin.base_examples(split)
    elif hasattr(plugin, "all_examples"):
        examples = plugin.all_examples()[split]
    else:
        rows = plugin.load(split)
        examples = rows if isinstance(rows, list) else [Example.from_row(r) for r in (rows.to_list() if hasattr(rows, "to_list") else rows)]
    records = []
    for ex in examples:
        target = ex.meta.get("mc_target") or ex.label
        orig = ex.meta.get("decoys", {}).get("orig") if isinstance(ex.meta.get("decoys"), dict) else None
        if orig is None:
            orig = [c for c in ex.choices if c != target]
        records.append(QARecord(ex.id, ex.image_id, ex.question, target, tuple(orig)))
    return records


@decoys.command("generate")
@click.option("--dataset", "dataset", required=True, callback=check_spec_names,
              help="dataset spec, e.g. toyvqa-mc or visual7w:file=...")
@click.option("--split", default="train", show_default=True)
@click.option("--out", type=Place(dir_okay=False, path_type=Path), required=True, help="decoy JSON to write")
@click.option("--data-dir", type=Place(file_okay=False, path_type=Path), default=None)
@click.option("--seed", type=click.IntRange(min=0, max=MAX_SEED), default=0,
              show_default=True)
@click.option("--top-n", type=click.IntRange(min=1), default=10_000, show_default=True, help="QoU: similar questions kept per triplet")
@click.option("--embedding", type=click.Choice(["tfidf", "sentence"]), default="tfidf", show_default=True)
@click.option("--device", default="cpu", show_default=True, help="torch device for the similarity search")
@click.option("--stats", "stats_path", type=Place(dir_okay=False, path_type=Path), default=None,
              help="also write the generation statistics (JSON)")
@click.option("--empty-targets", type=click.Choice(EMPTY_TARGETS), default=None,
              help="a question whose target is empty once normalized ('?', '...'): error, or skip (left out, "
                   "counted)  [default: the dataset's empty_targets option, else error]")
def generate(dataset: str, split: str, out: Path, data_dir: Path | None, seed: int, top_n: int, embedding: str,
             device: str, stats_path: Path | None, empty_targets: str | None) -> None:
    """Write {qa_id: {IoU_decoys, QoU_decoys}} for DATASET/SPLIT to OUT."""
    for path, option in ((out, "--out"), (stats_path, "--stats")):
        if path is not None:  # one line before generating, not a traceback after it
            check_writable_file(path, option)
    if stats_path is not None and stats_path.expanduser().resolve() == out.expanduser().resolve():
        raise UsageError(f"--stats {stats_path} is the --out file: the statistics would replace the decoys")
    session = Session(get_host(), data_dir=data_dir)
    plugin = session.dataset(dataset)
    if split not in plugin.splits:
        raise UsageError(f"dataset {plugin.name!r} has no split {split!r}; splits: {', '.join(plugin.splits)}")
    for path, option in ((out, "--out"), (stats_path, "--stats")):
        if path is not None:
            check_not_input(path, option, plugin)
    records = dataset_records(plugin, split)
    config = DecoyConfig(seed=seed, top_n=top_n, embedding=embedding, device=resolve_device(device))
    policy = empty_targets or plugin.config.get("empty_targets", "error")
    result = generate_decoys(records, config, source=f"{dataset}/{split}", empty_targets=policy)
    write_decoy_file(out, result.released())
    if stats_path is not None:
        atomic_write_text(stats_path, json.dumps(result.stats.to_json(), indent=1, sort_keys=True) + "\n")
    s = result.stats
    click.echo(f"{out}: {s.questions} questions, {s.images} images; IoU from image {s.iou_from_image}, "
               f"QoU from questions {s.qou_from_questions}, fill-ins orig {s.fill_orig} / frequent {s.fill_frequent}, "
               f"short IoU {s.short_iou} / QoU {s.short_qou}"
               + (f"; skipped {s.skipped_empty_targets} question(s) with an empty target (e.g. "
                  f"{', '.join(s.skipped_empty_targets_shown[:5])}; not in the file)" if s.skipped_empty_targets else ""))
