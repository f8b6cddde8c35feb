"""Package discovery for vqa-harness.

The folders `cli/`, `plugins/` and `leaderboard/` (docs/architecture.md) are installed under
the distinctive import names `vqa_harness_cli`, `vqa_harness_plugins` and
`vqa_harness_leaderboard`, so that no generic top-level `cli` or `plugins` module lands in
site-packages. Sub-packages are discovered, not listed by hand; everything else is declared
in pyproject.toml.
"""

from setuptools import find_packages, setup

FOLDERS = {"harness": "harness", "vqa_harness_cli": "cli", "vqa_harness_plugins": "plugins",
           "vqa_harness_leaderboard": "leaderboard"}


def _packages() -> list[str]:
    found: list[str] = []
    for import_name, folder in FOLDERS.items():
        found.append(import_name)
        found += [f"{import_name}.{sub}" for sub in find_packages(where=folder)]
    return found


setup(packages=_packages(), package_dir=FOLDERS)
