"""The layout keeps its promises (as datasette's meta-tests do): layers only look down, no
module imports the command line, modules stay small enough to read."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"harness": ROOT / "harness", "vqa_harness_plugins": ROOT / "plugins",
            "vqa_harness_leaderboard": ROOT / "leaderboard"}


def _imports(path: Path, package: str) -> set[str]:
    """Absolute names of every module `path` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(PACKAGES[package]).with_suffix("")
    here = [package, *rel.parts[:-1]] if rel.name != "__init__" else [package, *rel.parts[:-1]]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
    return found


def _modules(package: str) -> list[Path]:
    return sorted(PACKAGES[package].rglob("*.py"))


def _offenders(package: str, forbidden: tuple[str, ...]) -> list[str]:
    out = []
    for path in _modules(package):
        bad = sorted(m for m in _imports(path, package) if m.split(".")[0] in forbidden)
        if bad:
            out.append(f"{path.relative_to(ROOT)}: {', '.join(bad)}")
    return out


def test_the_core_imports_no_plugin_and_no_leaderboard():
    assert _offenders("harness", ("vqa_harness_plugins", "vqa_harness_leaderboard")) == []


def test_the_leaderboard_imports_no_plugin():
    assert _offenders("vqa_harness_leaderboard", ("vqa_harness_plugins",)) == []


def test_no_module_imports_the_command_line_except_its_entry_point():
    out = []
    for package in PACKAGES:
        for path in _modules(package):
            if PACKAGES["harness"] / "cli" in path.parents:
                continue  # the CLI package itself (its __main__ is the entry point)
            if any(m == "harness.cli" or m.startswith("harness.cli.") for m in _imports(path, package)):
                out.append(str(path.relative_to(ROOT)))
    assert out == []


def test_no_module_is_over_400_lines():
    long = [f"{p.relative_to(ROOT)}: {n}" for package in PACKAGES for p in _modules(package)
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400]
    assert long == []


def test_the_import_check_sees_imports():
    # The checks above are only as good as `_imports`: it must resolve relative imports.
    found = _imports(ROOT / "plugins" / "decoys.py", "vqa_harness_plugins")
    assert "vqa_harness_plugins.probes.decoys" in found and "harness.hookspecs" in found
    assert "harness.api" in _imports(ROOT / "leaderboard" / "publish.py", "vqa_harness_leaderboard")


def test_hashlib_is_imported_only_by_the_digest_helper_and_the_seeded_streams():
    # One digest helper (harness/digest.py); harness/seeding.py seeds random.Random from raw
    # SHA-256 bytes, which no hex digest gives.
    allowed = {ROOT / "harness" / "digest.py", ROOT / "harness" / "seeding.py"}
    users = [str(p.relative_to(ROOT)) for package in PACKAGES for p in _modules(package)
             if p not in allowed and any(m.split(".")[0] == "hashlib" for m in _imports(p, package))]
    assert users == []
