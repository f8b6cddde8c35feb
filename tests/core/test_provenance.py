"""The manifest records what a number depends on beside code and data (harness/provenance.py):
every installed distribution, the CPU and its SIMD features, the numerics settings, torch's
dispatch level when torch was used, and a digest per dataset split trained on or scored."""

from __future__ import annotations

import importlib.metadata as md
import importlib.util
import json
from pathlib import Path

from helpers_core import core_plugins, tiny_examples

from harness import NUMERICS_ENV
from harness.provenance import environment, numerics
from harness.testing import dataset_plugin, make_host, run_in_process

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "compare_runs.py"


def test_the_environment_lists_every_installed_distribution_and_the_cpu():
    env = environment()
    installed = {d.metadata["Name"].lower().replace("_", "-") for d in md.distributions() if d.metadata["Name"]}
    assert set(env["packages"]) == installed
    for name in ("torch", "numpy", "pillow", "transformers", "datasets", "pyarrow", "scipy", "nltk",
                 "bert-score", "pycocoevalcap"):
        assert env["packages"][name] == md.version(name)
    assert env["cpu"]["model"] not in ("", "x86_64") and env["cpu"]["cores"] >= 1 and isinstance(env["cpu"]["simd"], list)
    assert set(numerics()) >= set(NUMERICS_ENV)


def test_a_run_manifest_holds_environment_numerics_and_data_digests(tmp_path):
    plugins, names = core_plugins()
    outcome = run_in_process(make_host(*plugins, names=names), model="echo", suite="tiny-suite", tmp_path=tmp_path)
    manifest = json.loads((outcome.rundir.path / "manifest.json").read_text())
    assert manifest["environment"]["packages"]["pluggy"] == md.version("pluggy")
    assert manifest["numerics"]["MKL_CBWR"] == "COMPATIBLE"
    assert set(manifest["data"]) == {"tiny/val"} and len(manifest["data"]["tiny/val"]) >= 16


def test_other_data_gives_another_digest_and_differences_name_it(tmp_path):
    plugins, names = core_plugins()
    first = run_in_process(make_host(*plugins, names=names), model="echo", suite="tiny-suite", tmp_path=tmp_path / "a")
    other = dataset_plugin("tiny", {"train": tiny_examples(10, "q"), "val": tiny_examples(41)}, suite="tiny-suite")
    second = run_in_process(make_host(plugins[0], other, plugins[2], names=names), model="echo", suite="tiny-suite",
                            tmp_path=tmp_path / "b")
    a, b = (json.loads((o.rundir.path / "manifest.json").read_text()) for o in (first, second))
    spec = importlib.util.spec_from_file_location("compare_runs", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    found = {field for field, _, _ in script.differences(a, b)}
    assert "data.tiny/val" in found
    assert not any(f.startswith("environment.packages") for f in found)  # same machine, same packages


def test_torch_imported_before_harness_is_recorded_and_warned(tmp_path):
    """A notebook that imports torch first gets no pinned numerics; the manifest says so."""
    import subprocess
    import sys

    code = ("import torch, harness\n"
            "from harness.provenance import numerics\n"
            "print(harness.PINS_IN_EFFECT, numerics().get('pins_in_effect'))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]
    done = subprocess.run([sys.executable, "-c", "import harness; print(harness.PINS_IN_EFFECT)"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"
