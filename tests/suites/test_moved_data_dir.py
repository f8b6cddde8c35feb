"""A `--data-dir` moved or copied elsewhere with its files' sizes and modification times (`cp -a`,
`rsync -a`, `mv`: a cluster job staging its data onto a node's disk) restores every probe output
and rebuilds no model-independent artifact; a file changed there still runs its tasks again.
Before, the built-in datasets' fingerprints held each file's absolute path: every probe ran again,
the prior was fitted again and asked again, decoy sets and `ctx.memo` values were built again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers_official import write_visual7w, write_vqa, write_vqax

from harness.api import DatasetPlugin, Suite, Task
from harness.cache.artifacts import cache_status
from harness.digest import file_stamps
from harness.hookspecs import hookimpl
from harness.testing import make_host, run_in_process

SUITES = ("vqa2", "decoys-visual7w", "vqa-x-test")


class _Plugin:
    @hookimpl
    def register_suites(self, register):
        register(Suite("vqa-x-test", "VQA-X test through the accuracy probe", (Task("vqa-x", "test", ("accuracy",)),)))


def _world(root: Path) -> None:
    for split, n in (("train", 12), ("val", 10)):
        write_vqa(root, version=2, split=split, n_images=n, seed=0)
    write_visual7w(root, released=False)  # decoys generated: a "decoys" artifact and ctx.memo values
    for split in ("train", "test"):
        write_vqax(root, split)


def _entries() -> dict[str, int]:
    return {k.kind: k.entries for k in cache_status() if k.kind in ("decoys", "probe-memo-reads", "vqa-official")}


def _runs(tmp_path: Path, data: Path) -> dict[str, tuple[int, int]]:
    """(model calls, probe outputs reused) of the prior through each suite."""
    host = make_host(_Plugin(), builtins=True, names=["moved-data-test"])
    out = {}
    for suite in SUITES:
        outcome = run_in_process(host, model="prior", suite=suite, tmp_path=tmp_path, data_dir=data)
        assert outcome.exit_code == 0, (suite, outcome.probe_failures, outcome.skipped)
        stats = json.loads((outcome.rundir.path / "manifest.json").read_text())["stats"]
        out[suite] = (stats["model_calls"], stats["probe_outputs_reused"])
    return out


def test_a_data_dir_copied_with_its_times_restores_everything_and_a_changed_file_does_not(tmp_path, fresh_cache):
    first = tmp_path / "A"
    _world(first)
    before = _runs(tmp_path, first)
    assert all(calls > 0 and reused == 0 for calls, reused in before.values()), before
    built = _entries()
    assert built["decoys"] > 0 and built["probe-memo-reads"] > 0, built

    staged = tmp_path / "node-disk" / "B"
    shutil.copytree(first, staged, copy_function=shutil.copy2)  # as `cp -a`: sizes and times kept
    shutil.rmtree(first)
    moved = _runs(tmp_path, staged)
    # before: every probe ran again, the prior was fitted and asked again: (236, 0) for decoys-visual7w
    assert {s: calls for s, (calls, _) in moved.items()} == dict.fromkeys(SUITES, 0), moved
    assert all(reused > 0 for _, reused in moved.values()), moved
    assert _entries() == built  # before: the decoy sets and memo values were built again

    vqax = staged / "vqax" / "vqaX_test.json"
    data = json.loads(vqax.read_text())
    first_id = sorted(data)[0]
    data[first_id]["answers"] = [{"answer": "purple"}] * 10
    vqax.write_text(json.dumps(data))
    changed = _runs(tmp_path, staged)
    assert changed["vqa-x-test"][1] == 0  # the edited file's task runs again
    assert changed["vqa2"] == (0, moved["vqa2"][1]) and changed["decoys-visual7w"] == (0, moved["decoys-visual7w"][1])


def test_a_relative_data_dir_renamed_restores_everything(tmp_path, fresh_cache, monkeypatch):
    # `--data-dir data`, then the folder renamed and given as `--data-dir moved`: the loaders
    # name the files by absolute paths, which hold the folder's token (a review took relative
    # paths for a case that reuses nothing; measured, it reuses every output).
    monkeypatch.chdir(tmp_path)
    _world(tmp_path / "data")
    first = _runs(tmp_path, Path("data"))
    assert all(reused == 0 for _, reused in first.values()), first
    (tmp_path / "data").rename(tmp_path / "moved")
    again = _runs(tmp_path, Path("moved"))
    assert {s: calls for s, (calls, _) in again.items()} == dict.fromkeys(SUITES, 0), again
    assert all(reused > 0 for _, reused in again.values()), again


def test_file_stamps_name_files_inside_the_root_relative_to_it(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    (a / "sub").mkdir(parents=True)
    (a / "sub" / "f.json").write_text("{}")
    shutil.copytree(a, b, copy_function=shutil.copy2)
    outside = tmp_path / "other.json"
    outside.write_text("[]")
    stamps_a = file_stamps([a / "sub" / "f.json", outside, a / "absent.json"], root=a)
    assert stamps_a == file_stamps([b / "sub" / "f.json", outside, b / "absent.json"], root=b)
    assert stamps_a[0][0] == "<<data-dir>>/sub/f.json" and stamps_a[1][0] == str(outside)
    assert stamps_a[2][1:] == [None, None]
    assert file_stamps([a / "sub" / "f.json"])[0][0] == str(a / "sub" / "f.json")  # no root: as before
    # A relative path outside any root is not confused with one inside it.
    assert file_stamps(["sub/f.json"], root=a)[0][0] == "sub/f.json"


class _ThirdParty(DatasetPlugin):
    name = "third-party-files"

    def expected_files(self, split):
        return [Path(self.data_dir) / "mine" / f"{split}.txt"]


class _OwnFingerprint(_ThirdParty):
    def fingerprint(self, split):
        return f"own:{self.data_dir}"


@pytest.mark.parametrize("cls,same", [(_ThirdParty, True), (_OwnFingerprint, False)])
def test_a_plugin_with_the_default_fingerprint_moves_one_with_its_own_keeps_it(tmp_path, cls, same):
    for folder in ("a", "b"):
        (tmp_path / folder / "mine").mkdir(parents=True)
        (tmp_path / folder / "mine" / "val.txt").write_text("x")
    shutil.copystat(tmp_path / "a" / "mine" / "val.txt", tmp_path / "b" / "mine" / "val.txt")
    fa, fb = cls(data_dir=tmp_path / "a").fingerprint("val"), cls(data_dir=tmp_path / "b").fingerprint("val")
    assert (fa == fb) is same and fa == cls(data_dir=tmp_path / "a").fingerprint("val")
