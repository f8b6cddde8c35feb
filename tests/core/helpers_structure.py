"""The structure checks: the import-linter contracts of pyproject.toml, run on the real import
graph (optionally with imports added, to show that a walk-around breaks them), and the rules
import-linter cannot see, as functions of a source text so tests can feed them throwaway code.

What import-linter cannot see, and so is checked here:

- imports by name at run time (`importlib.import_module`, `__import__`, loading files as
  modules) and plugin loading outside the plugin host (`entry_points`, `EntryPoint.load`);
- imports inside functions that are not for a heavy optional dependency, or carry no comment
  saying why (an import hidden in a function to dodge a circle is still a circle);
- modules over 400 lines, anywhere (benchmarks/, scripts/ and tests/ included).
"""

from __future__ import annotations

import ast
import contextlib
from pathlib import Path
from typing import Iterable, Iterator

import grimp
from importlinter import configuration
from importlinter.application.app_config import settings
from importlinter.application.use_cases import (
    _register_built_in_contract_types,
    create_report,
    read_user_options,
)

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"harness": ROOT / "harness", "vqa_harness_cli": ROOT / "cli", "vqa_harness_plugins": ROOT / "plugins",
            "vqa_harness_leaderboard": ROOT / "leaderboard"}
#: Every folder of Python code in the repository.
CODE = [*PACKAGES.values(), ROOT / "benchmarks", ROOT / "scripts", ROOT / "tests"]
MAX_LINES = 400

#: Modules a function may import when it needs them, and why: importing them costs tenths of a
#: second or more, or they are optional / version-dependent. Anything else, first-party code
#: above all, is imported at the top of the module.
HEAVY = {
    "torch": "seconds to import", "torchvision": "with torch", "transformers": "seconds to import",
    "accelerate": "optional (hf extra)", "huggingface_hub": "optional (hf extra)",
    "datasets": "about 0.5 s", "evaluate": "optional wrapper", "pyarrow": "about 0.1 s",
    "numpy": "about 0.1 s", "scipy": "about 0.1 s", "matplotlib": "about 0.2 s (plots extra)",
    "nltk": "about 1 s", "bert_score": "imports torch", "pycocoevalcap": "starts Java tools",
    "lemminflect": "loads its tables", "wordfreq": "loads its word lists", "tabulate": "about 60 ms",
    "tqdm": "about 40 ms", "h5py": "optional", "openai": "optional (openai extra)", "sklearn": "optional", "orjson": "optional",
    "tomllib": "Python >= 3.11", "tomli": "Python 3.10", "resource": "Unix only",
}
#: The one place that loads plugins from entry points (and the test kit that fakes them).
ENTRY_POINT_USERS = {ROOT / "harness" / "host.py", ROOT / "harness" / "testing.py"}
_DYNAMIC_CALLS = {"import_module", "__import__", "spec_from_file_location", "exec_module", "load_module"}


# ---------------------------------------------------------------------------- contracts


class _Builder:
    """import-linter's graph builder, plus imports a test adds."""

    def __init__(self, extra: Iterable[tuple[str, str]]) -> None:
        self.extra = list(extra)

    def build(self, root_package_names, cache_dir=None, include_external_packages=False,
              exclude_type_checking_imports=False) -> grimp.ImportGraph:
        graph = grimp.build_graph(*root_package_names, include_external_packages=include_external_packages,
                                  exclude_type_checking_imports=exclude_type_checking_imports, cache_dir=None)
        for importer, imported in self.extra:
            graph.add_import(importer=importer, imported=imported, line_number=1, line_contents="(added by a test)")
        return graph


@contextlib.contextmanager
def _builder(extra: Iterable[tuple[str, str]]) -> Iterator[None]:
    configuration.configure()
    _register_built_in_contract_types()  # as `lint-imports` does before it reads the contracts
    saved = settings.GRAPH_BUILDER
    settings.configure(GRAPH_BUILDER=_Builder(extra))
    try:
        yield
    finally:
        settings.configure(GRAPH_BUILDER=saved)


def contract_results(extra: Iterable[tuple[str, str]] = ()) -> dict[str, tuple[bool, str]]:
    """contract id -> (kept, what broke it) for the contracts of pyproject.toml, on the real
    import graph with `extra` (importer, imported) imports added."""
    with _builder(extra):
        report = create_report(read_user_options(str(ROOT / "pyproject.toml")), cache_dir=None)
    assert not report.could_not_run and not report.invalid_contract_options, "import-linter could not run"
    return {contract.contract_options["id"]: (check.kept, "" if check.kept else f"{contract.name}: {check.metadata}")
            for contract, check in report.get_contracts_and_checks()}


# ------------------------------------------------------------------ what it cannot see


def _functions(tree: ast.AST) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _guarded_optional(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Inside `try: ... except ImportError` (an optional dependency with a fallback)."""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.Try) and any(
                h.type is not None and any(n in ast.unparse(h.type) for n in ("ImportError", "ModuleNotFoundError"))
                for h in node.handlers):
            return True
    return False


def local_import_problems(source: str, where: str) -> list[str]:
    """Imports inside functions that are not for a `HEAVY` module, or carry no comment."""
    tree = ast.parse(source)
    lines = source.splitlines()
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    out = []
    for function in _functions(tree):
        for node in ast.walk(function):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.Import):
                tops = {alias.name.split(".")[0] for alias in node.names}
            else:
                tops = {"." if node.level else (node.module or "").split(".")[0]}
            text = f"{where}:{node.lineno}: {ast.unparse(node)}"
            if not tops <= HEAVY.keys() and not _guarded_optional(node, parents):
                out.append(f"{text} (import it at the top of the module)")
            elif "#" not in lines[node.end_lineno - 1] and not lines[node.lineno - 2].strip().startswith("#"):
                out.append(f"{text} (say why it is imported here, in a comment)")
    return out


def dynamic_import_problems(source: str, where: str, *, entry_points_allowed: bool = False) -> list[str]:
    """Imports by name at run time, and plugin loading outside the plugin host."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _DYNAMIC_CALLS:
                out.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]} (import by name: import it)")
            elif (name == "load" and isinstance(func, ast.Attribute) and not node.args and not node.keywords
                  and not isinstance(func.value, ast.Call) and not entry_points_allowed):
                out.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]} (an entry point loaded outside "
                           "the plugin host)")
        elif (isinstance(node, (ast.Name, ast.Attribute))
              and (node.id if isinstance(node, ast.Name) else node.attr) in ("entry_points", "EntryPoint")
              and not entry_points_allowed):
            out.append(f"{where}:{node.lineno}: {ast.unparse(node)} (plugins are loaded by harness.host only)")
        elif isinstance(node, ast.ImportFrom) and not entry_points_allowed and any(
                alias.name in ("entry_points", "EntryPoint") for alias in node.names):
            out.append(f"{where}:{node.lineno}: {ast.unparse(node)} (plugins are loaded by harness.host only)")
    return out


def size_problem(source: str, where: str) -> list[str]:
    """A module over `MAX_LINES` lines."""
    n = len(source.splitlines())
    return [f"{where}: {n} lines (at most {MAX_LINES}: split it by design)"] if n > MAX_LINES else []


def python_files(folders: Iterable[Path]) -> list[Path]:
    return sorted(p for folder in folders for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def tree_problems() -> dict[str, list[str]]:
    """Every problem of the repository, by rule."""
    found: dict[str, list[str]] = {"local imports": [], "dynamic imports": [], "size": []}
    sources = [ROOT / "setup.py", *python_files(CODE)]
    for path in sources:
        source, where = path.read_text(encoding="utf-8"), str(path.relative_to(ROOT))
        found["size"] += size_problem(source, where)
        if ROOT / "tests" in path.parents:
            continue  # tests import what they test where they test it
        found["local imports"] += local_import_problems(source, where)
        found["dynamic imports"] += dynamic_import_problems(source, where,
                                                            entry_points_allowed=path in ENTRY_POINT_USERS)
    return found


def module_imports(path: Path) -> set[str]:
    """Top-level names of the modules `path` imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found
