"""Make this checkout usable without `pip install`, for a machine that cannot build it (the
lent GPU machine has no setuptools and no network): writes FOLDER holding links to the
packages whose import names differ from their folders (cli/ -> vqa_harness_cli,
plugins/ -> vqa_harness_plugins, leaderboard/ -> vqa_harness_leaderboard, as setup.py maps
them) and a `vqa_harness` dist-info with the entry points of pyproject.toml, so the plugin
host finds the built-in plugins.

    python3 scripts/uninstalled_env.py /tmp/vqa-env
    PYTHONPATH=/tmp/vqa-env:. python3 -m pytest -q tests/hf/test_hf_vlm_families.py

Nothing is installed and nothing outside FOLDER is written. Python 3.11+ (tomllib).
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"vqa_harness_cli": ROOT / "cli", "vqa_harness_plugins": ROOT / "plugins",
            "vqa_harness_leaderboard": ROOT / "leaderboard"}


def write_env(folder: Path) -> Path:
    """Create FOLDER (links and dist-info); an existing one is refreshed."""
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


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 scripts/uninstalled_env.py FOLDER")
    print(write_env(Path(sys.argv[1])))
