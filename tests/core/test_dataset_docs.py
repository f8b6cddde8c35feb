"""A dataset plugin can be written from docs/plugins.md alone: the guide's easy-VQA example
runs as written, every Example field and DatasetPlugin attribute is documented, training
shows progress in the terminal and the manifest records where a dataset's files came from
(issue 26, finding 7)."""

from __future__ import annotations

import importlib.metadata
import json
import re
import sys
import textwrap
import types
from dataclasses import fields
from pathlib import Path
from typing import ClassVar

import click

from harness.api import DatasetPlugin
from harness.testing import ListDataset, hookimpl, make_host, run_in_process
from harness.types import Example

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")


def _datasets_section() -> str:
    start = GUIDE.index("## Datasets\n")
    return GUIDE[start:GUIDE.index("\n## ", start + 1)]


def test_every_example_field_and_dataset_attribute_is_documented() -> None:
    section = _datasets_section()
    for f in fields(Example):
        assert f"| `{f.name}` |" in section, f.name
    for name in ("name", "description", "release", "splits", "labelled_splits", "options", "provides",
                 "derived_meta", "answers_depend_on", "load(split)", "expected_files(split)", "image_folders()",
                 "fingerprint(split)", "summary(split)"):
        assert f"`{name}`" in section, name
    public = {n for n in vars(DatasetPlugin) if not n.startswith("_") and n not in ("kind", "is_labelled")}
    documented = set(re.findall(r"`([a-z_]+)(?:\(|`)", section))
    assert public <= documented | {"load", "expected_files", "image_folders", "fingerprint", "summary"}, \
        public - documented


def _fake_easy_vqa(root: Path) -> None:
    """A stand-in for the `easy-vqa` package with the same functions (two tiny splits)."""
    pkg = root / "easy_vqa"
    for split, n in (("train", 30), ("test", 12)):
        (pkg / "data" / split / "images").mkdir(parents=True)
        rows = []
        for i in range(n):
            color = ("red", "blue", "green")[i % 3]
            shape = ("circle", "triangle")[i % 2]
            from PIL import Image

            Image.new("RGB", (8, 8), {"red": (220, 0, 0), "blue": (0, 0, 220), "green": (0, 200, 0)}[color]).save(
                pkg / "data" / split / "images" / f"{i}.png")
            rows.append([f"what color is the {shape}?", color, i] if i % 4 else [f"is there a {shape}?", "yes", i])
        (pkg / "data" / split / "questions.json").write_text(json.dumps(rows))
    (pkg / "__init__.py").write_text(textwrap.dedent('''
        import json
        from pathlib import Path

        _DATA = Path(__file__).parent / "data"

        def _questions(split):
            rows = json.loads((_DATA / split / "questions.json").read_text())
            return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]

        def _paths(split):
            return {int(p.stem): str(p) for p in (_DATA / split / "images").glob("*.png")}

        def get_train_questions():
            return _questions("train")

        def get_test_questions():
            return _questions("test")

        def get_train_image_paths():
            return _paths("train")

        def get_test_image_paths():
            return _paths("test")
    '''))


def test_the_guide_easy_vqa_plugin_runs_as_written(tmp_path, monkeypatch) -> None:
    code = re.search(r"```python\n(.*?)```", _datasets_section(), re.S).group(1)
    _fake_easy_vqa(tmp_path / "site")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    module = types.ModuleType("easy_vqa_plugin")
    exec(compile(code, "docs/plugins.md", "exec"), module.__dict__)  # the guide's code, unchanged
    monkeypatch.setitem(sys.modules, "easy_vqa_plugin", module)
    host = make_host(module, builtins=True, names=["easy-vqa-plugin"])
    assert not host.failures, host.failures
    out = run_in_process(host, model="prior", suite="easy-vqa", tmp_path=tmp_path)
    assert out.exit_code == 0, (out.probe_failures, out.skipped)
    rows = {(r.probe, r.variant, r.metric): r for r in out.rows}
    assert rows[("accuracy", "", "label_accuracy")].n == 12  # one answer per question: label accuracy
    assert not [k for k in rows if k[2].startswith("vqa_accuracy")]
    assert ("image-ablation", "blank", "label_accuracy_drop") in rows
    manifest = json.loads((out.rundir.path / "manifest.json").read_text())
    recorded = manifest["datasets"]["easy-vqa"]
    assert recorded["description"].startswith("easy-VQA: coloured shapes") and recorded["splits"] == ["test", "train"]
    assert (recorded["plugin"], recorded["plugin_distribution"]) == ("easy-vqa-plugin", "(in-process)")


class Shipped(ListDataset):
    """In-memory examples whose declared files are inside an installed distribution (click)."""

    name = "shipped"
    splits = ("train", "val")
    description = "files from a package"
    data: ClassVar[dict] = {s: [Example(f"{s}{i}", "q?", answers=("yes",) * 10) for i in range(4)]
                            for s in ("train", "val")}

    def expected_files(self, split):
        return [Path(click.__file__)]


class Plugin:
    @hookimpl
    def register_datasets(self, register):
        register(Shipped)

    @hookimpl
    def register_suites(self, register):
        from harness.api import Suite, Task

        register(Suite("shipped-suite", "", (Task("shipped", "val", ("accuracy",)),)))


def test_manifest_names_the_distribution_a_dataset_was_read_from(tmp_path) -> None:
    host = make_host(Plugin(), builtins=True, names=["shipped-plugin"])
    out = run_in_process(host, model="prior", suite="shipped-suite", tmp_path=tmp_path)
    recorded = json.loads((out.rundir.path / "manifest.json").read_text())["datasets"]["shipped"]
    assert recorded["files_from"] == [f"click {importlib.metadata.version('click')}"]
    assert recorded["description"] == "files from a package" and recorded["splits"] == ["train", "val"]


def test_training_is_announced_in_the_terminal(tmp_path, capsys, monkeypatch, fresh_cache) -> None:
    host = make_host(Plugin(), builtins=True, names=["shipped-plugin"])
    run_in_process(host, model="prior", suite="shipped-suite", tmp_path=tmp_path, progress=True)
    out = capsys.readouterr().out
    assert "prior: training on shipped/train (or loading its cached weights)..." in out
    assert re.search(r"prior: trained on shipped/train in \d+\.\d s", out)
    # A torch model off a terminal (no progress bar there) prints a line per epoch.
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    run_in_process(host, model="qonly:epochs=2", suite="shipped-suite", tmp_path=tmp_path / "q", progress=True)
    out = capsys.readouterr().out
    assert re.search(r"train qonly: epoch 1/2, loss -?\d+\.\d{3}\n.*train qonly: epoch 2/2", out, re.S), out
