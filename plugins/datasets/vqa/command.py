"""`harness export`: write embedded data in official file formats."""

from __future__ import annotations

import errno
from pathlib import Path

import click

from harness.errors import DataError
from harness.folders import check_output_folder, storage_error
from harness.seeding import MAX_SEED
from harness.specs import Place
from vqa_harness_plugins.datasets.vqa import export_toy_vqa2

__all__ = ["export"]


@click.group()
def export() -> None:
    """Export embedded datasets in official file formats."""


@export.command("toy-vqa2")
@click.option("--variant", type=click.Choice(["balanced", "unbalanced"]), default="balanced", show_default=True,
              help="toyvqa variant (balanced has complementary pairs).")
@click.option("--out", type=Place(file_okay=False, path_type=Path), required=True,
              help="Folder to write (a --data-dir layout: vqa2/ and coco/).")
@click.option("--seed", type=click.IntRange(min=0, max=MAX_SEED), default=0,
              show_default=True, help="toyvqa generation seed.")
@click.option("--images", type=int, default=0, show_default=True, help="Scenes per split (0: toyvqa default).")
@click.option("--size", type=int, default=64, show_default=True, help="Image side in pixels.")
@click.option("--split", "splits", multiple=True, type=click.Choice(["train", "val"]),
              help="Splits to export (default: train and val).")
@click.option("--no-images", is_flag=True, help="Write the JSON files only.")
def toy_vqa2(variant: str, out: Path, seed: int, images: int, size: int, splits: tuple[str, ...],
             no_images: bool) -> None:
    """Write toyvqa in the official VQA v2 format; read it back with `--data-dir OUT` and vqa2."""
    check_output_folder(out, "--out")
    try:
        result = export_toy_vqa2(out, variant=variant, seed=seed, images=images, size=size,
                                 splits=splits or ("train", "val"), copy_images=not no_images)
    except OSError as exc:  # e.g. a file where OUT/vqa2 or OUT/coco/val2014 must be a folder
        in_the_way = exc.errno in (errno.EEXIST, errno.ENOTDIR)
        reason = "a file is where a folder must be" if in_the_way else exc.strerror or str(exc)
        raise storage_error(exc, out) or DataError(f"export: cannot write {exc.filename or out} ({reason})") from None
    json_files = [p for p in result.files if p.suffix == ".json"]
    for path in json_files:
        click.echo(str(path))
    n_images = len(result.files) - len(json_files)
    counts = ", ".join(f"{s}: {len(m)} questions" for s, m in result.id_map.items())
    click.echo(f"exported toyvqa {variant} ({counts}; {n_images} images) -> {out}")
