"""What a run caches is keyed by what it read: a suite file is hashed from the bytes parsed,
and a dataset whose files change while they are read is refused, not cached under the old
files' fingerprint (issue 26, finding 9: "hash, then read again")."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from harness.api import Model
from harness.digest import digest
from harness.errors import DataError
from harness.paths import cache_dir
from harness.testing import ListDataset, dataset_plugin, hookimpl, make_host, run_in_process
from harness.types import Example
from vqa_harness_cli.suitefiles import load_suite_file

EXAMPLES = [Example(f"q{i}", "what color?", answers=("red",) * 10) for i in range(4)]


class Red(Model):
    name = "red-answerer"

    def answer(self, batch):
        return ["red" for _ in batch]


class Plugin:
    @hookimpl
    def register_models(self, register):
        register(Red)


def test_suite_file_is_hashed_from_the_bytes_parsed(tmp_path: Path, monkeypatch) -> None:
    import vqa_harness_cli.suitefiles.read as read

    host = make_host(Plugin(), dataset_plugin("cf-data", {"val": EXAMPLES}), builtins=True,
                     names=["cf-model", "cf-data"])
    suite = tmp_path / "mine.yaml"
    old = "name: mine\ntasks:\n- {dataset: cf-data, split: val, probes: [accuracy]}\n"
    suite.write_text(old)
    real = read.read_bytes

    def read_then_replace(path, hint=""):
        blob = real(path, hint)
        Path(path).write_text(old.replace("mine", "theirs"))  # edited right after the run parsed it
        return blob

    monkeypatch.setattr(read, "read_bytes", read_then_replace)
    out = run_in_process(host, model="red-answerer", suite=load_suite_file(suite, host), tmp_path=tmp_path)
    manifest = json.loads((out.rundir.path / "manifest.json").read_text())
    assert manifest["suite"] == "mine"
    assert manifest["suite_file"]["sha256"] == hashlib.sha256(old.encode()).hexdigest()


class ChangingFile(ListDataset):
    """Reads a file whose content changes while it is loaded (a file still being written)."""

    name = "changing-file"
    splits = ("val",)
    path: Path = Path()

    def expected_files(self, split):
        return [self.path]

    def fingerprint(self, split):  # the default kind: the files' size and mtime
        st = os.stat(self.path)
        return digest([st.st_size, st.st_mtime_ns])

    def load(self, split):
        text = self.path.read_text()
        self.path.write_text(text + "more answers\n")  # another job appends meanwhile
        return list(EXAMPLES)


def test_dataset_files_changed_while_read_are_refused(tmp_path: Path) -> None:
    ChangingFile.path = tmp_path / "data.txt"
    ChangingFile.path.write_text("answers\n")

    class Data:
        @hookimpl
        def register_datasets(self, register):
            register(ChangingFile)

    host = make_host(Plugin(), Data(), builtins=True, names=["cf-model", "cf-changing"])
    suite = tmp_path / "s.yaml"
    suite.write_text("name: s\ntasks:\n- {dataset: changing-file, split: val, probes: [accuracy]}\n")
    with pytest.raises(DataError, match="changing-file.*changed on disk while the run read them"):
        run_in_process(host, model="red-answerer", suite=load_suite_file(suite, host), tmp_path=tmp_path)


def test_vqa_files_changed_while_parsed_are_not_cached(tmp_path: Path, fresh_cache, monkeypatch) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites"))
    from helpers_official import write_vqa

    from vqa_harness_plugins.datasets.vqa.loaders import VQA2

    write_vqa(tmp_path, version=2, split="val", n_images=4, seed=0)
    plugin = VQA2(data_dir=tmp_path)
    key = plugin._key("val")
    real = VQA2._parse

    def parse_then_touch(self, split):
        parsed = real(self, split)
        path = self.annotations_file(split)
        path.write_text(path.read_text() + " ")  # replaced while it was parsed
        return parsed

    monkeypatch.setattr(VQA2, "_parse", parse_then_touch)
    with pytest.raises(DataError, match="vqa2 val: its files changed on disk while they were read"):
        plugin.load("val")
    assert not (cache_dir("vqa-official") / key).exists()
