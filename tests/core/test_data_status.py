"""`harness data status`: files found and missing, image folders, releases, runnable suites."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from harness.api import DatasetPlugin, Suite, Task
from harness.errors import UsageError
from harness.host import reset_host
from harness.testing import ListDataset, hookimpl, make_host, use_host
from harness.types import Example
from vqa_harness_cli import main


class FileData(DatasetPlugin):
    """Needs <data-dir>/fd/<split>.json and fd/shared.json; images in five folders."""

    name = "file-data"
    description = "test data with files"
    splits: ClassVar[tuple[str, ...]] = ("train", "val")
    release = "Test Release — https://example.org/download"

    def _root(self) -> Path:
        if self.data_dir is None:
            raise UsageError("no --data-dir given: file-data is looked up under it")
        return self.data_dir

    def expected_files(self, split: str) -> list[Path]:
        return [self._root() / "fd" / f"{split}.json", self._root() / "fd" / "shared.json"]

    def image_folders(self) -> list[Path]:
        return [self._root() / "img" / x for x in "abcde"]


class OtherData(DatasetPlugin):
    name = "other-data"
    splits: ClassVar[tuple[str, ...]] = ("val",)

    def expected_files(self, split: str) -> list[Path]:
        return [Path(self.data_dir or ".") / "other" / f"{split}.json"]


class Embedded(ListDataset):
    name = "embedded-data"
    description = "in memory"
    splits = ("val",)
    data: ClassVar[dict[str, list[Example]]] = {"val": [Example(id="1", question="q?")]}


class Plugin:
    @hookimpl
    def register_datasets(self, register):
        for cls in (FileData, OtherData, Embedded):
            register(cls)

    @hookimpl
    def register_suites(self, register):
        register(Suite("both", "", (Task("file-data", "val", ("accuracy",), train=("file-data", "train")),)))
        register(Suite("embedded", "", (Task("embedded-data", "val", ("accuracy",)),), toy=True))
        register(Suite("needs-other", "", (Task("other-data", "val", ("accuracy",)),)))
        register(Suite("part", "", (Task("file-data", "val", ("accuracy",), train=("file-data", "val")),
                                    Task("other-data", "val", ("accuracy",))), partial=True))


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    d = tmp_path / "d"
    (d / "fd").mkdir(parents=True)
    (d / "fd" / "val.json").write_text("{}")
    (d / "fd" / "shared.json").write_text("{}")
    (d / "img" / "a" / "sub").mkdir(parents=True)
    for name in ("1.jpg", "2.JPG", "notes.txt", "sub/3.png"):
        (d / "img" / "a" / name).write_bytes(b"")
    return d


def status(capsys, *args: str) -> list[str]:
    with use_host(make_host(Plugin(), names=["test-data"])):
        assert main(["data", "status", *args]) == 0
    return capsys.readouterr().out.splitlines()


def test_status_names_each_file_and_folder_and_says_which_suites_run(data_dir, capsys):
    d = data_dir
    lines = status(capsys, "--data-dir", str(d))
    assert lines[0] == f"data folder: {d}"
    block = lines[lines.index("file-data — test data with files"):]
    assert block[:9] == [
        "file-data — test data with files",
        "  release: Test Release — https://example.org/download",
        f"  missing  {d}/fd/train.json  (train)",
        f"  found    {d}/fd/shared.json  (train, val)",
        f"  found    {d}/fd/val.json  (val)",
        f"  images   {d}/img/a: 3 image files",
        f"  images   missing: {d}/img/b, {d}/img/c, {d}/img/d (+1 more)",
        "  ready: val; not ready: train",
        "",
    ]
    assert lines[lines.index("embedded-data — in memory") + 1:][:2] == [
        "  release: (not stated by the plugin)", "  no files needed: every split is ready"]
    suites = lines[lines.index(next(x for x in lines if x.startswith("suites (ready:"))) + 1:]
    assert suites == [
        f"  ready*     both: trainable models need 1 missing file(s), e.g. {d}/fd/train.json",
        "  ready      embedded",
        f"  not ready  needs-other: 1 file(s) missing, e.g. {d}/other/val.json",
        "  partial    part: 1 of 2 tasks can run; skipped: other-data/val",
        "  ready      toy",
    ]


def test_once_every_file_is_there_the_suites_are_ready(data_dir, capsys):
    (data_dir / "fd" / "train.json").write_text("{}")
    (data_dir / "other").mkdir()
    (data_dir / "other" / "val.json").write_text("{}")
    lines = status(capsys, "--data-dir", str(data_dir))
    assert "  ready: train, val" in lines
    assert [x for x in lines if x.startswith("  ready  ") or x.startswith("  ready*")] == [
        "  ready      both", "  ready      embedded", "  ready      needs-other", "  ready      part",
        "  ready      toy"]


def test_without_a_data_dir_the_reason_is_printed(capsys):
    lines = status(capsys)
    assert lines[0].startswith("data folder: none given (--data-dir)")
    assert "  unknown  no --data-dir given: file-data is looked up under it  (train, val)" in lines
    assert "  images   unknown: no --data-dir given: file-data is looked up under it" in lines
    assert "  not ready  both: no --data-dir given: file-data is looked up under it" in lines


def test_builtin_vqa2_layout(tmp_path, capsys):
    d = tmp_path / "data"
    (d / "vqa2").mkdir(parents=True)
    for name in ("v2_OpenEnded_mscoco_val2014_questions.json", "v2_mscoco_val2014_annotations.json",
                 "v2_mscoco_val2014_complementary_pairs.json"):
        (d / "vqa2" / name).write_text("{}")  # never read: status only looks
    (d / "coco" / "val2014").mkdir(parents=True)
    (d / "coco" / "val2014" / "COCO_val2014_000000000042.jpg").write_bytes(b"")
    reset_host(None)
    assert main(["data", "status", "--data-dir", str(d)]) == 0
    lines = capsys.readouterr().out.splitlines()
    block = lines[lines.index("vqa2 — VQA v2 (balanced, complementary pairs) from the official files under --data-dir"):]
    assert block[1].startswith("  release: VQA v2 (questions, annotations, complementary pairs) — "
                               "https://visualqa.org/download.html")
    assert block[2:13] == [
        f"  missing  {d}/vqa2/v2_OpenEnded_mscoco_train2014_questions.json  (train)",
        f"  missing  {d}/vqa2/v2_mscoco_train2014_annotations.json  (train)",
        f"  missing  {d}/vqa2/v2_mscoco_train2014_complementary_pairs.json  (train)",
        f"  found    {d}/vqa2/v2_OpenEnded_mscoco_val2014_questions.json  (val)",
        f"  found    {d}/vqa2/v2_mscoco_val2014_annotations.json  (val)",
        f"  found    {d}/vqa2/v2_mscoco_val2014_complementary_pairs.json  (val)",
        f"  missing  {d}/vqa2/v2_OpenEnded_mscoco_test-dev2015_questions.json  (test-dev)",
        f"  missing  {d}/vqa2/v2_OpenEnded_mscoco_test2015_questions.json  (test)",
        f"  images   {d}/coco/val2014: 1 image file",
        f"  images   missing: {d}/coco/train2014, {d}/coco/test2015",
        "  ready: val; not ready: train, test-dev, test",
    ]
    assert f"  ready*     counterfactual-vqa2: trainable models need 3 missing file(s), e.g. " \
           f"{d}/vqa2/v2_OpenEnded_mscoco_train2014_questions.json, {d}/vqa2/v2_mscoco_train2014_annotations.json, " \
           f"{d}/vqa2/v2_mscoco_train2014_complementary_pairs.json" in lines
    assert "  ready      balanced-vqa" in lines
    assert any(x.startswith("  not ready  goyal: ") for x in lines)
    reset_host(None)


def test_list_suites_has_a_needs_column(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # one line per suite (narrower terminals wrap the columns)
    with use_host(make_host(Plugin(), names=["test-data"])):
        assert main(["list", "suites"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["name", "needs"]
    row = {line.split()[0]: line for line in lines[2:] if line.strip()}
    assert "--data-dir: fd/ (+ img/ images for image models)" in row["both"]
    assert "nothing (embedded)" in row["embedded"] and "nothing (embedded)" in row["toy"]
    assert "--data-dir: any of fd/, other/ (+ img/ images for image models)" in row["part"]


def test_list_suites_needs_of_the_builtin_real_suites(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # one line per suite (narrower terminals wrap the columns)
    reset_host(None)
    assert main(["list", "suites"]) == 0
    row = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[2:] if line.strip()}
    assert "--data-dir: vqa1/, vqa2/ (+ coco/ images for image models)" in row["goyal"]
    assert "--data-dir: visual7w/ " in row["decoys-visual7w"] + " "
    assert "nothing (embedded)" in row["decoys"]
    assert "--data-dir: any of esnlive/, vqax/, vcr/" in row["e-vil"]
    reset_host(None)


def test_a_folder_where_a_file_belongs_is_not_found(tmp_path, capsys):
    from harness.host import PluginHost

    (tmp_path / "esnlive" / "esnlive_dev.csv").mkdir(parents=True)
    with use_host(PluginHost(blocked=frozenset())):
        assert main(["data", "status", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"a folder  {tmp_path / 'esnlive' / 'esnlive_dev.csv'}" in out
    assert "found    " + str(tmp_path / "esnlive" / "esnlive_dev.csv") not in out
