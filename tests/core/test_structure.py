"""The layout keeps its promises: the import-linter contracts of pyproject.toml hold (layers,
independence, forbidden imports, no circle; every import counts, function-local ones too),
and so do the rules it cannot see (helpers_structure.py). Each check is also shown to fail on
the walk-around it exists for."""

from __future__ import annotations

import grimp
import pytest
from helpers_structure import (
    ENTRY_POINT_USERS,
    PACKAGES,
    ROOT,
    contract_results,
    dynamic_import_problems,
    local_import_problems,
    module_imports,
    python_files,
    size_problem,
    tree_problems,
)

_RESULTS: dict[str, tuple[bool, str]] = {}


def _baseline() -> dict[str, tuple[bool, str]]:
    if not _RESULTS:
        _RESULTS.update(contract_results())
    return _RESULTS


def test_the_import_contracts_hold():
    results = _baseline()
    assert len(results) >= 10
    assert [why for kept, why in results.values() if not kept] == []


# Each walk-around the contracts exist for, as the import it would add.
WALK_AROUNDS = [
    ("engine-alone", "harness.run.execute", "vqa_harness_plugins.toy"),  # e.g. inside a function
    ("engine-alone", "harness.api", "vqa_harness_leaderboard.publisher"),
    ("engine-layers", "harness.types", "harness.run.tasks"),
    ("engine-layers", "harness.rundir", "harness.run.execute"),
    ("command-line-on-top", "harness.rundir", "vqa_harness_cli.run_cmd"),
    ("command-line-on-top", "vqa_harness_plugins.models.mlp", "vqa_harness_cli.suitefiles"),
    ("command-line-on-top", "vqa_harness_leaderboard.runs", "vqa_harness_cli.launch"),
    ("command-line-imports-no-plugin", "vqa_harness_cli.run_cmd", "vqa_harness_plugins.toy"),
    ("command-line-imports-no-plugin", "vqa_harness_cli.launch.models", "vqa_harness_leaderboard.publisher"),
    ("command-line-layers", "vqa_harness_cli.publish", "vqa_harness_cli.run_cmd"),
    ("command-line-layers", "vqa_harness_cli.launch.models", "vqa_harness_cli.show_cmd"),
    ("leaderboard-reads-run-folders", "vqa_harness_leaderboard.runs", "vqa_harness_plugins.datasets.toyvqa"),
    ("plugins-and-leaderboard-apart", "vqa_harness_plugins.probes.accuracy", "vqa_harness_leaderboard.tables"),
    ("plugins-through-the-contract", "vqa_harness_plugins.models.mlp", "harness.testing"),
    ("plugins-through-the-contract", "vqa_harness_leaderboard.runs", "harness.run.tasks"),
    ("plugin-layers", "vqa_harness_plugins.decoys", "vqa_harness_plugins.balanced"),
    ("plugin-layers", "vqa_harness_plugins.nlp.base", "vqa_harness_plugins.probes.decoys"),
    ("paper-probes", "vqa_harness_plugins.probes.decoys.probe", "vqa_harness_plugins.probes.balanced.pairs"),
    ("paper-libraries", "vqa_harness_plugins.generators.decoys.wup", "vqa_harness_plugins.generators.counterfactual"),
    ("data-families", "vqa_harness_plugins.datasets.toyvqa.build", "vqa_harness_plugins.datasets.vqa"),
    ("no-circles", "vqa_harness_plugins.nlp.base", "vqa_harness_plugins.nlp.tagger"),
    ("no-circles", "vqa_harness_leaderboard.labels", "vqa_harness_leaderboard.tables"),
]


@pytest.mark.parametrize(("contract", "importer", "imported"), WALK_AROUNDS,
                         ids=[f"{c}:{a}->{b}" for c, a, b in WALK_AROUNDS])
def test_each_contract_breaks_on_its_walk_around(contract, importer, imported):
    assert _baseline()[contract][0], f"{contract} is broken already"
    kept, why = contract_results([(importer, imported)])[contract]
    assert not kept and why


def test_the_contracts_see_imports_inside_functions_and_type_checking_blocks(tmp_path, monkeypatch):
    # What the contracts check is grimp's graph: an import hidden in a function is in it.
    package = tmp_path / "throwaway_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("def f():\n    from throwaway_pkg import high\n    return high\n")
    (package / "high.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                     "    from throwaway_pkg import other\n")
    (package / "other.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("throwaway_pkg", cache_dir=None)
    assert graph.direct_import_exists(importer="throwaway_pkg.low", imported="throwaway_pkg.high")
    assert graph.direct_import_exists(importer="throwaway_pkg.high", imported="throwaway_pkg.other")


# ------------------------------------------------------------- what import-linter cannot see


def test_the_tree_keeps_the_rules_import_linter_cannot_see():
    assert tree_problems() == {"local imports": [], "dynamic imports": [], "size": []}


THROWAWAY = {
    "import_module": ("import importlib\n\ndef load():\n    return importlib.import_module('vqa_harness_plugins.toy')\n",
                      "dynamic"),
    "import_module from": ("from importlib import import_module\nplugin = import_module('vqa_harness_plugins')\n",
                           "dynamic"),
    "__import__": ("def load():\n    return __import__('vqa_harness_plugins.decoys')\n", "dynamic"),
    "file as module": ("import importlib.util\nspec = importlib.util.spec_from_file_location('p', 'plugins/toy.py')\n",
                       "dynamic"),
    "entry point load": ("import importlib.metadata as md\n\ndef plugins():\n"
                         "    return [ep.load() for ep in md.entry_points(group='vqa_harness')]\n", "dynamic"),
    "entry point import": ("from importlib.metadata import entry_points\n", "dynamic"),
    "local first-party": ("def run():\n    from harness.run import execute_run  # a circle dodged\n"
                          "    return execute_run\n", "local"),
    "local relative": ("def run():\n    from .tasks import TaskRunner\n    return TaskRunner\n", "local"),
    "local light": ("def f():\n    import json\n    return json\n", "local"),
    "heavy without comment": ("def f():\n    import torch\n    return torch\n", "local"),
    "401 lines": ("x = 1\n" * 401, "size"),
}


@pytest.mark.parametrize("case", list(THROWAWAY))
def test_each_own_rule_fails_on_its_walk_around(case):
    source, rule = THROWAWAY[case]
    where = "benchmarks/throwaway.py"  # benchmarks/ and scripts/ are checked like the packages
    found = {"dynamic": dynamic_import_problems(source, where), "local": local_import_problems(source, where),
             "size": size_problem(source, where)}
    assert found[rule], f"{case} passed the {rule} rule"


def test_the_own_rules_accept_what_they_should():
    heavy = "def f():\n    import torch  # heavy: seconds to import\n    return torch\n"
    optional = "try:\n    import orjson\nexcept ImportError:\n    orjson = None\n"
    guarded = "def f():\n    try:\n        import orjson  # optional\n    except ImportError:\n        return None\n"
    parsing = "import pickle\n\ndef f(stream):\n    return pickle.Unpickler(stream).load()\n"
    for source in (heavy, optional, guarded, parsing, "x = 1\n" * 400):
        assert not (local_import_problems(source, "m.py") + dynamic_import_problems(source, "m.py")
                    + size_problem(source, "m.py")), source
    # The plugin host is where entry points are loaded.
    host = (ROOT / "harness" / "host.py").read_text(encoding="utf-8")
    assert dynamic_import_problems(host, "harness/host.py") and not dynamic_import_problems(
        host, "harness/host.py", entry_points_allowed=True)
    assert ROOT / "harness" / "host.py" in ENTRY_POINT_USERS


def test_hashlib_is_imported_only_by_the_digest_helper_and_the_seeded_streams():
    # One digest helper (harness/digest.py); harness/seeding.py seeds random.Random from raw
    # SHA-256 bytes, which no hex digest gives.
    allowed = {ROOT / "harness" / "digest.py", ROOT / "harness" / "seeding.py"}
    users = [str(p.relative_to(ROOT)) for p in python_files(PACKAGES.values())
             if p not in allowed and "hashlib" in module_imports(p)]
    assert users == []
