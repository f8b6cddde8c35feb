"""A model class defined in a script or a notebook (module `__main__`, whose `__spec__` is
None) runs like any other (issue 26, finding 8: `source_digest` crashed on it)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from harness.digest import class_source_digest, source_digest

SCRIPT = textwrap.dedent('''
    from pathlib import Path

    from harness.api import Model
    from harness.testing import dataset_plugin, hookimpl, make_host, run_in_process
    from harness.types import Example

    class ScriptModel(Model):
        name = "script-model"

        def answer(self, batch):
            return ["red" for _ in batch]

    class Plugin:
        @hookimpl
        def register_models(self, register):
            register(ScriptModel)

    data = dataset_plugin("script-data", {"val": [Example(f"q{i}", "what color?", answers=("red",) * 10)
                                                  for i in range(4)]}, suite="script-suite")
    host = make_host(Plugin(), data, builtins=True, names=["script-plugin", "script-data"])
    assert not host.failures, host.failures
    for attempt in range(2):  # the second run restores the probe output (its key digests __main__)
        out = run_in_process(host, model="script-model", suite="script-suite", tmp_path=Path.cwd() / f"run{attempt}")
        acc = [r.value for r in out.rows if r.metric == "vqa_accuracy"]
        print("exit", int(out.exit_code), "accuracy", acc)
''')


def test_model_defined_in_a_script_runs(tmp_path: Path) -> None:
    script = tmp_path / "my_adapter.py"
    script.write_text(SCRIPT, encoding="utf-8")
    env = {**os.environ, "VQA_HARNESS_CACHE": str(tmp_path / "cache"), "TQDM_DISABLE": "1"}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["exit 0 accuracy [1.0]"] * 2


def test_main_module_digest_follows_the_script(tmp_path: Path, monkeypatch) -> None:
    """`__main__` without a spec is digested from its file: an edit changes the digest."""
    import types

    script = tmp_path / "main.py"
    script.write_text("x = 1\n", encoding="utf-8")
    fake = types.ModuleType("__main__")
    fake.__file__ = str(script)
    fake.__spec__ = None
    monkeypatch.setitem(sys.modules, "__main__", fake)
    first = source_digest(["__main__"])
    script.write_text("x = 2\n", encoding="utf-8")
    assert source_digest(["__main__"]) != first


def test_notebook_class_is_digested_by_its_source(monkeypatch) -> None:
    """A class whose module has no file (a notebook cell) counts by its source text or,
    without one, by its identity: never skipped as if it had no code."""
    import types

    cell = types.ModuleType("__main__")
    cell.__spec__ = None
    monkeypatch.setitem(sys.modules, "__main__", cell)
    namespace: dict = {"__name__": "__main__"}
    exec("class Adapter:\n    pass\n", namespace)
    first = namespace["Adapter"]
    exec("class Adapter:\n    pass\n", namespace)
    assert class_source_digest(first) != class_source_digest(namespace["Adapter"])  # no source: identity
    cell.Adapter = namespace["Adapter"]
    assert source_digest(["__main__"])  # no crash, no file: the definitions' sources
