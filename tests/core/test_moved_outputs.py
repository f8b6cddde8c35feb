"""A probe output is restored from a moved image folder (the same bytes elsewhere) and names the
images where they are now. Before, its key held each image file's path (and modification time),
so a moved folder, `--data-dir` elsewhere, ran every probe again from cached predictions; and a
text model's output, keyed without its images, was restored naming them in the old folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from helpers_core import EchoModel, core_plugins, run_stats

from harness.api import DatasetPlugin, Probe, Suite, Task
from harness.cache.contents import forget_contents
from harness.digest import digest
from harness.hookspecs import hookimpl
from harness.showcase import Picture, Shown, read_examples, write_examples
from harness.testing import make_host, run_in_process
from harness.types import Example


class _Looker(EchoModel):
    name = "looker"
    uses_images = True


class _Shower(Probe):
    """Accuracy-like: asks for answers, shows the examples with their pictures, names one in
    its report."""

    name = "shower"
    requires = ("answer",)

    def run(self, ctx):
        preds = ctx.predict(ctx.examples, "answer")
        write_examples(ctx, "shown", [Shown(ex.id, ex.question, (Picture("image", ex.image),)) for ex in ctx.examples])
        ctx.report(f"first image: {ctx.examples[0].image}")
        return [ctx.row("answered", sum(1 for p in preds if p.answer) / len(preds), len(preds))]


class _Pics(DatasetPlugin):
    """Four images in --data-dir, fingerprinted by what they are, not where (as the toy data:
    its generation parameters)."""

    name = "pics"
    splits = ("val",)

    def load(self, split):
        folder = Path(self.data_dir or "")
        return [Example(id=f"q{i}", question=f"what color is the ball {i}?", image=str(folder / f"img{i}.png"),
                        answers=("red",) * 10) for i in range(4)]

    def fingerprint(self, split):
        return digest({"dataset": self.name, "split": split, "images": 4})


class _Plugin:
    @hookimpl
    def register_models(self, register):
        register(_Looker)

    @hookimpl
    def register_datasets(self, register):
        register(_Pics)

    @hookimpl
    def register_probes(self, register):
        register(_Shower)

    @hookimpl
    def register_suites(self, register):
        register(Suite("shown", "pictures shown", (Task("pics", "val", ("shower",)),)))


def _run(tmp_path, model, data, **options):
    plugins, names = core_plugins()
    host = make_host(*plugins, _Plugin(), names=[*names, "pics", "looker", "shower"])
    outcome = run_in_process(host, model=model, suite="shown", tmp_path=tmp_path, data_dir=data, **options)
    shown = read_examples(outcome.rundir.path)[0]
    pictures = [p.path for s in shown for e in s.examples for p in e.pictures]
    report = (outcome.rundir.path / "report.md").read_text(encoding="utf-8")
    stats = run_stats(outcome)
    return stats["model_calls"], stats["probe_outputs_reused"], pictures, report


def test_a_moved_image_folder_restores_outputs_naming_the_new_folder(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for i in range(4):
        (data / f"img{i}.png").write_bytes(b"image %d" % i)
    for model in ("looker", "echo"):
        assert _run(tmp_path, model, data)[:2] == (4, 0)
    moved = tmp_path / "moved"
    shutil.copytree(data, moved, copy_function=shutil.copyfile)  # new modification times, same bytes
    shutil.rmtree(data)
    for model in ("looker", "echo"):
        calls, reused, pictures, report = _run(tmp_path, model, moved)
        assert (calls, reused) == (0, 1)  # before, for looker: (0, 0), the probe ran again
        assert pictures == [str(moved / f"img{i}.png") for i in range(4)]  # before, for echo: the old folder
        assert f"first image: {moved / 'img0.png'}" in report and str(data) + os.sep not in report


def test_one_changed_image_runs_the_probe_again_asking_only_for_it(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for i in range(4):
        (data / f"img{i}.png").write_bytes(b"image %d" % i)
    assert _run(tmp_path, "looker", data)[:2] == (4, 0)
    stat = os.stat(data / "img2.png")
    (data / "img2.png").write_bytes(b"image X")  # one byte, same size, same modification time
    os.utime(data / "img2.png", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    forget_contents()  # as a new process finds it (the memo holds a file read once per process)
    EchoModel.calls.clear()
    assert _run(tmp_path, "looker", data)[:2] == (1, 0) and EchoModel.calls == ["q2"]
    assert _run(tmp_path, "looker", data)[:2] == (0, 1)
    assert _run(tmp_path, "echo", data)[:2] == (4, 0)
    (data / "img3.png").write_bytes(b"a new image 3")
    assert _run(tmp_path, "echo", data)[:2] == (0, 1)  # a text model's output does not depend on the bytes


def test_an_output_naming_a_folder_that_is_not_given_now_runs_again(tmp_path, monkeypatch):
    """An output stored naming --data-dir cannot be restored into a run without one."""
    data = tmp_path / "data"
    data.mkdir()
    for i in range(4):
        (data / f"img{i}.png").write_bytes(b"image %d" % i)
    assert _run(tmp_path, "echo", data)[:2] == (4, 0)
    monkeypatch.chdir(data)  # the same images, without --data-dir: relative to the working folder
    calls, reused, pictures, _ = _run(tmp_path, "echo", None)
    assert (calls, reused) == (0, 0) and pictures == [f"img{i}.png" for i in range(4)]
