"""A run whose storage fails: a cache deleted mid-run, a model that cannot be trained, a full
disk, a read-only run folder. Each is one line and a failed (not complete) run; nothing is
half-written; the manifest says how the run ended.

The disk-full and read-only cases use a real small tmpfs and a real read-only bind mount in a
user and mount namespace of their own (`unshare`), skipped where that is not allowed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_core import core_plugins

from harness.api import Model, Option
from harness.cache.artifacts import ArtifactStore, clear_cache
from harness.errors import ExitCode, HarnessError
from harness.hookspecs import hookimpl
from harness.paths import cache_dir
from harness.testing import make_host, run_in_process
from harness.types import Answer

HELPER_DIR = Path(__file__).resolve().parent


class CacheDeleter(Model):
    """Deletes the harness cache during its first batch (`rm -rf ~/.cache/vqa-harness` while a
    run goes on), then answers."""

    name = "cache-deleter"

    def answer(self, batch):
        shutil.rmtree(os.environ["VQA_HARNESS_CACHE"], ignore_errors=True)
        return [Answer("red") for _ in batch]


class KindClearer(Model):
    """Runs `harness cache clear tiny-images` (a kind: generated data, trained weights) during
    its first batch, then answers."""

    name = "kind-clearer"
    options = {"kind": Option("tiny-images", "the kind of the harness cache to clear")}

    def answer(self, batch):
        assert [s.kind for s in clear_cache([self.config["kind"]])] == [self.config["kind"]]
        return [Answer("red") for _ in batch]


class UntrainableModel(Model):
    """A trainable model whose (deferred) fit fails, e.g. because its weights folder vanished."""

    name = "untrainable"

    def fit(self, train, *, seed):
        raise FileNotFoundError(2, "No such file or directory", "/cache/models/untrainable/weights.pt")

    def fit_key(self, train_fingerprint, seed):
        return {"train": train_fingerprint, "seed": seed}

    def answer(self, batch):  # an untrained model answers nothing a metric should count
        raise RuntimeError("not fitted")


class Plugin:
    @hookimpl
    def register_models(self, register):
        register(CacheDeleter)
        register(KindClearer)
        register(UntrainableModel)


def _host():
    plugins, names = core_plugins()
    return make_host(*plugins, Plugin(), names=[*names, "storage-models"])


def _manifest(tmp_path: Path) -> dict:
    (run,) = (tmp_path / "runs").iterdir()
    return json.loads((run / "manifest.json").read_text())


def test_a_cache_deleted_mid_run_fails_the_run(tmp_path, fresh_cache):
    with pytest.raises(HarnessError, match=r"the cache .* was deleted or replaced during the run") as info:
        run_in_process(_host(), model="cache-deleter", suite="tiny-suite", tmp_path=tmp_path, cache_path=None)
    assert type(info.value).__name__ == "StorageError" and info.value.exit_code == ExitCode.RESOURCE
    assert "\n" not in str(info.value)
    manifest = _manifest(tmp_path)
    assert manifest["status"] == "failed" and "deleted or replaced" in manifest["error"]
    (run,) = (tmp_path / "runs").iterdir()
    rows = (run / "results.jsonl").read_text() if (run / "results.jsonl").exists() else ""
    assert "vqa_accuracy" not in rows  # the probe that ran on a deleted cache is not gathered
    # --resume redoes it (a failed run is not complete)
    out = run_in_process(_host(), model="echo", suite="tiny-suite", tmp_path=tmp_path / "other")
    assert out.exit_code == 0


@pytest.mark.parametrize("kind", ["tiny-images", "tiny-decoys"])
def test_a_cache_kind_cleared_mid_run_fails_the_run(kind, tmp_path, fresh_cache):
    # `harness cache clear KIND` while a run goes on: the toy benchmark's images (a kind of
    # its own, like trained weights) or an artifact kind (decoy sets, perturbations). Before,
    # the run completed (exit 0) with rows computed on what was left and stored that output
    # for reuse, so a re-run gave the same wrong rows.
    (cache_dir("tiny-images") / "img0.png").write_bytes(b"made before the run")
    ArtifactStore().json("tiny-decoys", {"v": 1}, build=lambda: [1, 2, 3])
    with pytest.raises(HarnessError, match=rf"the cache \S*{kind} was deleted or replaced during the run") as info:
        run_in_process(_host(), model=f"kind-clearer:kind={kind}", suite="tiny-suite", tmp_path=tmp_path)
    assert type(info.value).__name__ == "StorageError" and info.value.exit_code == ExitCode.RESOURCE
    manifest = _manifest(tmp_path)
    assert manifest["status"] == "failed" and kind in manifest["error"]
    (run,) = (tmp_path / "runs").iterdir()
    rows = (run / "results.jsonl").read_text() if (run / "results.jsonl").exists() else ""
    assert "vqa_accuracy" not in rows  # the probe that ran on a cleared kind is neither gathered nor stored
    assert not (fresh_cache / "artifacts" / "probe-outputs").exists()


def test_a_model_that_cannot_be_trained_fails_the_run_instead_of_scoring_zero(tmp_path):
    with pytest.raises(HarnessError) as info:
        run_in_process(_host(), model="untrainable", suite="tiny-suite", tmp_path=tmp_path)
    assert type(info.value).__name__ == "FitError" and info.value.exit_code == ExitCode.PLUGIN
    assert str(info.value) == ("plugin storage-models:untrainable: the model could not be trained: "
                               "FileNotFoundError: [Errno 2] No such file "
                               "or directory: '/cache/models/untrainable/weights.pt'")
    manifest = _manifest(tmp_path)
    assert manifest["status"] == "failed" and manifest["error"] == str(info.value)
    (run,) = (tmp_path / "runs").iterdir()
    assert not (run / "results.jsonl").exists() or "vqa_accuracy" not in (run / "results.jsonl").read_text()


# ---------------------------------------------------------------------------- real file systems

_NAMESPACE_OK: bool | None = None


def _namespaces() -> bool:
    """Whether `unshare -rm` can mount a tmpfs here (a user and mount namespace)."""
    global _NAMESPACE_OK
    if _NAMESPACE_OK is None:
        try:
            probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
                                   capture_output=True, timeout=30)
            _NAMESPACE_OK = probe.returncode == 0
        except (OSError, subprocess.SubprocessError):
            _NAMESPACE_OK = False
    return _NAMESPACE_OK


def _harness_in_namespace(script: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """Run `script` (sh; $HARNESS runs the harness with the in-test plugins) in a namespace."""
    shim = tmp_path / "harness.sh"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c "import sys, helpers_signals; '
                    f'sys.exit(helpers_signals.cli(sys.argv[1:]))" "$@"\n')
    shim.chmod(0o755)
    env = {**os.environ, "HARNESS": str(shim), "T": str(tmp_path), "HARNESS_TEST_MARKERS": str(tmp_path / "markers"),
           "HARNESS_TEST_RELEASE": str(tmp_path / "release"),
           "PYTHONPATH": os.pathsep.join([str(HELPER_DIR), os.environ.get("PYTHONPATH", "")])}
    (tmp_path / "markers").mkdir(exist_ok=True)
    return subprocess.run(["unshare", "-rm", "sh", "-ec", script], env=env, capture_output=True, text=True,
                          timeout=300)


needs_namespaces = pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("unshare") is None
                                      or not _namespaces(), reason="needs unshare -rm (user namespaces)")


@needs_namespaces
def test_a_full_disk_is_one_line_and_a_marked_manifest(tmp_path):
    # The run folder lives on a 1 MiB tmpfs. Once the model runs (the `wait` model announces
    # its first batch and waits), a file fills the disk; then the model is released.
    done = _harness_in_namespace(
        'mkdir -p "$T/disk" && mount -t tmpfs -o size=1m tmpfs "$T/disk"\n'
        '"$HARNESS" run --model wait --suite tiny-suite --out "$T/disk/runs" --cache "$T/cache.sqlite" '
        '--no-leaderboard --device cpu >"$T/out.txt" 2>"$T/err.txt" & pid=$!\n'
        'while [ -z "$(ls "$T/markers")" ] && kill -0 $pid 2>/dev/null; do sleep 0.01; done\n'
        'cat /dev/zero > "$T/disk/ballast" 2>/dev/null || true\n'
        'touch "$T/release"\n'
        'set +e; wait $pid; echo $? > "$T/code.txt"; set -e\n'
        'rm "$T/disk/ballast"; cp -r "$T/disk/runs" "$T/runs-copy"\n', tmp_path)
    assert done.returncode == 0, done.stderr
    code = int((tmp_path / "code.txt").read_text())
    err = (tmp_path / "err.txt").read_text().strip().splitlines()
    assert code == ExitCode.RESOURCE, err
    assert len(err) == 1 and err[0].startswith("error: cannot write ") and "No space left on device" in err[0], err
    (run,) = (tmp_path / "runs-copy").iterdir()
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "No space left on device" in manifest["error"]
    # nothing half-written: no temporary file left, every JSON file whole, no empty traceback
    assert not [p for p in run.rglob(".*.tmp")]
    for path in run.rglob("*.json*"):
        if path.suffix == ".json":
            json.loads(path.read_text())
        else:
            [json.loads(line) for line in path.read_text().splitlines()]
    assert not [p for p in run.rglob("traceback.txt") if not p.read_text()]


@needs_namespaces
def test_a_read_only_run_folder_on_resume_is_one_line(tmp_path):
    plugins, names = core_plugins()
    from helpers_core import EchoModel

    EchoModel.stop_after = 1
    try:
        with pytest.raises(KeyboardInterrupt):
            run_in_process(make_host(*plugins, names=names), model="echo", suite="tiny-suite", tmp_path=tmp_path,
                           batch_size=5)
    finally:
        EchoModel.stop_after = 0
        EchoModel.calls.clear()
    (run,) = (tmp_path / "runs").iterdir()
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    done = _harness_in_namespace(
        'r=$(ls -d "$T"/runs/*) && mount --bind "$r" "$r" && mount -o remount,bind,ro "$r" "$r"\n'
        'set +e; "$HARNESS" run --model echo --suite tiny-suite --out "$T/runs" --cache "$T/cache.sqlite" '
        '--no-leaderboard --device cpu --batch-size 5 --resume >"$T/out.txt" 2>"$T/err.txt"; '
        'echo $? > "$T/code.txt"\n', tmp_path)
    assert done.returncode == 0, done.stderr
    err = (tmp_path / "err.txt").read_text().strip().splitlines()
    assert int((tmp_path / "code.txt").read_text()) == ExitCode.USAGE, err
    assert err == [f"error: run folder {run} cannot be written (Read-only file system); make it writable, or run "
                   "without --resume to start a new run elsewhere (--out)"]
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before
