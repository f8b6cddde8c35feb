"""Where a dataset's files come from: --data-dir, or a distribution that ships them (easy-VQA's
`easy_vqa`): `harness list suites` asks no --data-dir for those, and the manifest records it."""

from __future__ import annotations

import functools
import importlib.metadata as md
import sys
from pathlib import Path
from typing import Any, Iterable

__all__ = ["file_distribution", "dataset_provenance"]


@functools.lru_cache(maxsize=1)
def _import_roots() -> tuple[Path, ...]:
    """The sys.path folders that exist, longest first."""
    roots = {Path(p).resolve() for p in sys.path if p and Path(p).is_dir()}
    return tuple(sorted(roots, key=lambda p: len(p.parts), reverse=True))


@functools.lru_cache(maxsize=1)
def _packages() -> dict[str, list[str]]:
    return md.packages_distributions()


def file_distribution(path: Path | str) -> str:
    """"<distribution> <version>" of the installed distribution whose package holds `path`
    ("" for a file no distribution ships, such as one under --data-dir)."""
    try:
        resolved = Path(path).resolve()
    except OSError:
        return ""
    for root in _import_roots():
        try:
            parts = resolved.relative_to(root).parts
        except ValueError:
            continue
        if len(parts) < 2:
            continue
        top = parts[0][:-3] if parts[0].endswith(".py") else parts[0]
        for name in _packages().get(top, []):
            try:
                return f"{name} {md.version(name)}"
            except md.PackageNotFoundError:
                continue
    return ""


def dataset_provenance(plugin: Any, entry: Any, splits: Iterable[str]) -> dict[str, Any]:
    """The manifest's record of one dataset: plugin, distribution, description, release, and
    where the files of `splits` were read from (the distributions that ship them, --data-dir)."""
    files: list[Path] = []
    for split in splits:
        try:
            files += [Path(p) for p in plugin.expected_files(split)]
        except Exception:  # metadata only: a plugin that cannot list its files is recorded without them
            continue
    shipped = sorted({d for d in (file_distribution(p) for p in files) if d})
    data_dir = getattr(plugin, "data_dir", None)
    under = sorted({str(p) for p in files if data_dir is not None and _inside(p, Path(data_dir))})
    return {"name": getattr(plugin, "name", ""), "plugin": entry.plugin,
            "plugin_distribution": entry.distribution,
            "description": getattr(plugin, "description", "") or "",
            "release": getattr(plugin, "release", "") or "",
            "files_from": shipped + (["--data-dir"] if under else [])
            + (["embedded (no files)"] if not files else [])}


def _inside(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, ValueError):  # ValueError: a NUL byte
        return False
