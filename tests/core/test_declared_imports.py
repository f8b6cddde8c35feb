"""Every third-party module the project imports is declared in pyproject.toml (a runtime
dependency or an extra), so a fresh install cannot lack it.

A package installed by hand on a developer's machine once hid a missing dependency (orjson):
the code took another path on a clean install and a test failed there only. The check reads
every import statement (function-local and `try: import x` ones included) with `ast`, maps
each top-level module to the distribution that provides it in this environment, and looks
for that distribution among the declared ones. A module that is not installed here at all is
an error too: the test install (`scripts/install.sh --test`) installs every extra.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
#: Folders whose imports must be declared: the installed packages, and the code around them.
FOLDERS = ("harness", "cli", "plugins", "leaderboard", "tests", "benchmarks", "scripts")
OWN = {"harness", "vqa_harness_cli", "vqa_harness_plugins", "vqa_harness_leaderboard"}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> tuple[set[str], set[str]]:
    """(declared distributions, those declared only for other Pythons: `; python_version < ...`)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        specs += extra
    names = {_normal(re.match(r"[A-Za-z0-9_.-]+", spec.strip()).group(0)) for spec in specs}
    conditional = {_normal(re.match(r"[A-Za-z0-9_.-]+", spec.strip()).group(0)) for spec in specs
                   if ";" in spec and "python_version" in spec}
    return names, conditional


#: Imported when present, never installed: (module, why it cannot be declared, how both
#: ways are covered).
OPTIONAL_UNINSTALLABLE = {
    "torchvision": ("the registries have no CPU build matching torch 2.13",
                    "plugins/models/hf/families.py builds video-capable processors without it; "
                    "tests/hf/test_hf_vlm_families.py runs here without it and ran on the GPU machine "
                    "with it (docs/hf-models.md)"),
}


def _local_modules(folder: str, path: Path) -> set[str]:
    """Modules of the tests, benchmarks and scripts themselves, imported by name
    (benchmarks/harness_proc.py; the test helpers that conftest files put on sys.path)."""
    if folder in ("tests", "benchmarks", "scripts"):
        return {p.stem for sub in ("tests", "benchmarks", "scripts") for p in (ROOT / sub).rglob("*.py")}
    return set()


def imports_of(path: Path) -> set[str]:
    """Top-level names of the absolute imports in one file (any depth: function bodies too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def third_party_imports() -> dict[str, set[str]]:
    """top-level module -> the files importing it, for modules neither stdlib nor ours."""
    found: dict[str, set[str]] = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            local = _local_modules(folder, path)
            for name in imports_of(path) - OWN - set(sys.stdlib_module_names) - local - {"__future__"}:
                found.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_imported_third_party_module_is_declared():
    providers = md.packages_distributions()
    declared, conditional = _declared()
    problems = []
    for module, files in sorted(third_party_imports().items()):
        where = ", ".join(sorted(files)[:3]) + (" ..." if len(files) > 3 else "")
        dists = {_normal(d) for d in providers.get(module, [])}
        if not dists and _normal(module) in conditional:
            continue  # declared for other Pythons only (tomli before 3.11), so absent here
        if module in OPTIONAL_UNINSTALLABLE:
            continue
        if not dists:
            problems.append(f"{module}: imported by {where} but not installed by the test install")
        elif not dists & declared:
            problems.append(f"{module} (distribution {', '.join(sorted(dists))}): imported by {where} "
                            "but not declared in pyproject.toml")
    assert problems == []


def test_the_check_sees_function_local_and_guarded_imports(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    import orjson\ntry:\n    from nltk.corpus import wordnet\n"
                      "except ImportError:\n    pass\nfrom . import sibling\n", encoding="utf-8")
    assert imports_of(sample) == {"orjson", "nltk"}


@pytest.mark.parametrize("spec, name", [("bert-score>=0.3.13", "bert-score"), ("PyYAML>=6", "pyyaml"),
                                        ("tomli>=1.1; python_version < '3.11'", "tomli")])
def test_declared_names_are_normalized(spec, name):
    assert _normal(re.match(r"[A-Za-z0-9_.-]+", spec).group(0)) == name
