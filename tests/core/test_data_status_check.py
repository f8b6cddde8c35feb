"""`harness data status` counts what trainable models can run, `--check` parses the files, and
`harness list suites` does not ask for --data-dir for files a package ships (issue 26,
finding 6)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import ClassVar

import click

from harness.api import DatasetPlugin, Suite, Task
from harness.host import reset_host
from harness.testing import hookimpl, make_host, use_host
from vqa_harness_cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites"))
from helpers_official import write_vqa  # noqa: E402


class Files(DatasetPlugin):
    """<data-dir>/f/<split>.json."""

    name = "check-files"
    splits: ClassVar[tuple[str, ...]] = ("train", "val")

    def expected_files(self, split):
        return [Path(self.data_dir or ".") / "f" / f"{split}.json"]


class Shipped(DatasetPlugin):
    """Files inside an installed distribution's package (here click's own module file)."""

    name = "shipped-files"
    splits: ClassVar[tuple[str, ...]] = ("val",)

    def expected_files(self, split):
        return [Path(click.__file__)]


class Plugin:
    @hookimpl
    def register_datasets(self, register):
        register(Files)
        register(Shipped)

    @hookimpl
    def register_suites(self, register):
        register(Suite("two-parts", "", (Task("check-files", "val", ("accuracy",)),
                                         Task("check-files", "test", ("accuracy",))), partial=True))
        register(Suite("from-package", "", (Task("shipped-files", "val", ("accuracy",)),)))


def _lines(capsys, *args):
    with use_host(make_host(Plugin(), names=["status-check"])):
        assert main(list(args)) == 0
    return capsys.readouterr().out.splitlines()


def test_partial_suite_says_what_trainable_models_can_run(tmp_path, capsys) -> None:
    (tmp_path / "f").mkdir()
    (tmp_path / "f" / "val.json").write_text("{}")  # train.json missing
    Files.splits = ("train", "val", "test")
    try:
        lines = _lines(capsys, "data", "status", "--data-dir", str(tmp_path))
    finally:
        Files.splits = ("train", "val")
    assert (f"  partial    two-parts: 1 of 2 tasks can run for pretrained models, 0 for trainable models (they "
            f"need 1 missing file(s), e.g. {tmp_path}/f/train.json); skipped: check-files/test") in lines


def test_check_parses_files_and_a_truncated_one_is_not_found(tmp_path, capsys) -> None:
    write_vqa(tmp_path, version=2, split="val", n_images=4, seed=0)
    annotations = tmp_path / "vqa2" / "v2_mscoco_val2014_annotations.json"
    annotations.write_text(annotations.read_text()[:-40])  # an interrupted download
    reset_host(None)
    try:
        assert main(["data", "status", "--data-dir", str(tmp_path)]) == 0
        plain = capsys.readouterr().out.splitlines()
        assert f"  found    {annotations}  (val)" in plain  # without --check: it exists
        assert main(["data", "status", "--data-dir", str(tmp_path), "--check"]) == 0
        checked = capsys.readouterr().out.splitlines()
    finally:
        reset_host(None)
    assert f"  unreadable  {annotations}  (val)" in checked
    assert any(x.startswith(f"  broken   val: {annotations}: line 1 column") and "truncated JSON" in x
               for x in checked)
    block = checked[checked.index(next(x for x in checked if x.startswith("vqa2 — "))):]
    assert next(x for x in block if x.startswith("  ready:")) == "  ready: none; not ready: train, val, test-dev, test"
    assert any(x.startswith("  not ready  vqa2: ") and "truncated JSON" in x for x in checked)


def test_list_suites_names_the_package_not_its_path(capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one line per suite (narrower terminals wrap the columns)
    lines = _lines(capsys, "list", "suites")
    row = next(x for x in lines if x.startswith("from-package"))
    assert "files shipped with click " in row and str(Path(click.__file__).parent) not in row
