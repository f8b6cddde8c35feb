"""Make this checkout usable without `pip install`, for a machine that cannot build it (the
lent GPU machine has no setuptools and no network): writes FOLDER holding links to the
packages whose import names differ from their folders (cli/ -> vqa_harness_cli,
plugins/ -> vqa_harness_plugins, leaderboard/ -> vqa_harness_leaderboard, as setup.py maps
them) and a `vqa_harness` dist-info with the entry points of pyproject.toml, so the plugin
host finds the built-in plugins.

    python3 scripts/uninstalled_env.py /tmp/vqa-env
    PYTHONPATH=/tmp/vqa-env:. python3 -m pytest -q tests/hf/test_hf_vlm_families.py

Nothing is installed and nothing outside FOLDER is written. Reads pyproject.toml with
tomllib (Python 3.11+); on Python 3.10 it needs the `tomli` package and says so if it is absent.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"vqa_harness_cli": ROOT / "cli", "vqa_harness_plugins": ROOT / "plugins",
            "vqa_harness_leaderboard": ROOT / "leaderboard"}


def write_env(folder: Path) -> Path:
    """Create FOLDER (links and dist-info); an existing one is refreshed."""
    if tomllib is None:
        raise SystemExit(f"error: reading pyproject.toml needs Python 3.11+ (tomllib) or the tomli package; "
                         f"this is Python {sys.version.split()[0]} without tomli")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    folder.mkdir(parents=True, exist_ok=True)
    for name, target in PACKAGES.items():
        link = folder / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target, target_is_directory=True)
    dist = folder / f"vqa_harness-{project['version']}.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
                                   encoding="utf-8")
    lines = []
    for group, entries in {"console_scripts": project.get("scripts", {}),
                           **project.get("entry-points", {})}.items():
        lines.append(f"[{group}]")
        lines.extend(f"{name} = {target}" for name, target in entries.items())
        lines.append("")
    (dist / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
    (dist / "top_level.txt").write_text("".join(f"{name}\n" for name in ("harness", *PACKAGES)), encoding="utf-8")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the folder to write (created; an existing one is refreshed)")
    args = parser.parse_args(argv)
    if args.folder.exists() and not args.folder.is_dir():
        raise SystemExit(f"error: {args.folder} exists and is not a folder")
    print(write_env(args.folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
