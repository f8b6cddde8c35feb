"""An image file rewritten at the same path is a new input for a model that looks at images:
before, the prediction cache was keyed by the path alone, so a re-run over regenerated
images (another corruption level written into the same folder) gave the cached answers of
the old images, silently."""

from __future__ import annotations

import os

from helpers_core import EchoModel, core_plugins, run_stats

from harness.api import Model, Suite, Task
from harness.hookspecs import hookimpl
from harness.testing import dataset_plugin, make_host, run_in_process
from harness.types import BLANK_IMAGE, CANDIDATE_IMAGES, Example


class _Looker(EchoModel):
    name = "looker"
    uses_images = True


class _Plugin:
    @hookimpl
    def register_models(self, register):
        register(_Looker)

    @hookimpl
    def register_suites(self, register):
        register(Suite("pictures", "accuracy on pictures", (Task("pics", "val", ("accuracy",)),)))


def _rewrite(path, data: bytes) -> None:
    """New bytes at the same path, with a modification time unlike the old one's."""
    before = os.stat(path).st_mtime_ns
    path.write_bytes(data)
    os.utime(path, ns=(before + 10**9, before + 10**9))


def test_a_rewritten_image_is_asked_again_and_only_it(tmp_path):
    images = []
    for i in range(4):
        images.append(tmp_path / f"img{i}.png")
        images[-1].write_bytes(b"old")
    examples = [Example(id=f"q{i}", question=f"what color is the ball {i}?", image=str(images[i]),
                        answers=("red",) * 10) for i in range(4)]
    plugins, names = core_plugins()
    host = make_host(*plugins, dataset_plugin("pics", {"val": examples}), _Plugin(),
                     names=[*names, "pics", "looker"])
    first = run_in_process(host, model="looker", suite="pictures", tmp_path=tmp_path)
    assert run_stats(first)["model_calls"] == 4
    _rewrite(images[2], b"new image")
    EchoModel.calls.clear()
    second = run_in_process(host, model="looker", suite="pictures", tmp_path=tmp_path)
    assert run_stats(second)["model_calls"] == 1 and EchoModel.calls == ["q2"]  # before: 0 calls


def test_only_a_model_that_uses_images_keys_on_the_file(tmp_path):
    image = tmp_path / "a.png"
    image.write_bytes(b"old")
    other = tmp_path / "b.png"
    other.write_bytes(b"x")
    ex = Example(id="q", question="what is it?", image=str(image),
                 meta={CANDIDATE_IMAGES: [["1", str(other)]]})
    looker, reader = _Looker(), EchoModel()
    keys = {m: [m.input_key(ex, c) for c in ("answer", "score_images")] for m in (looker, reader)}
    _rewrite(image, b"new")
    assert looker.input_key(ex, "answer") != keys[looker][0]
    assert reader.input_key(ex, "answer") == keys[reader][0]  # the text alone: the same input
    before = looker.input_key(ex, "score_images")
    _rewrite(other, b"y")
    assert looker.input_key(ex, "score_images") != before  # a candidate image rewritten
    assert reader.input_key(ex, "score_images") == keys[reader][1]
    blank = Example(id="b", question="what is it?", image=BLANK_IMAGE)
    missing = Example(id="m", question="what is it?", image=str(tmp_path / "gone.png"))
    assert looker.input_key(blank, "answer") == looker.input_key(blank, "answer")
    assert looker.input_key(missing, "answer") != looker.input_key(blank, "answer")
    assert isinstance(Model.input_key(looker, missing, "answer"), str)  # no file: no stamp, no error


def test_a_moved_image_folder_asks_only_for_the_changed_image(tmp_path):
    """The key held each image's path: a renamed folder (a moved cache with its toy images) asked
    the model about every question again. Its bytes name an image now, wherever it lies."""
    folder = tmp_path / "images"
    folder.mkdir()
    for i in range(4):
        (folder / f"img{i}.png").write_bytes(b"image %d" % i)
    plugins, names = core_plugins()
    calls = []
    for step, where in enumerate(("images", "moved", "moved")):
        if step == 1:
            folder.rename(tmp_path / where)
        if step == 2:
            _rewrite(tmp_path / where / "img2.png", b"a new image 2")
        examples = [Example(id=f"q{i}", question=f"what color is the ball {i}?",
                            image=str(tmp_path / where / f"img{i}.png"), answers=("red",) * 10) for i in range(4)]
        for model in ("looker", "echo"):
            host = make_host(*plugins, dataset_plugin("pics", {"val": examples}), _Plugin(),
                             names=[*names, "pics", "looker"])
            outcome = run_in_process(host, model=model, suite="pictures", tmp_path=tmp_path)
            calls.append(run_stats(outcome)["model_calls"])
    assert calls == [4, 4, 0, 0, 1, 0]  # before: [4, 4, 4, 4, 1, 0]


def test_an_image_put_back_with_its_size_and_modification_time_is_asked_again(tmp_path):
    """`cp -p` or `touch -r` over an image keeps its size and modification time (and `cp` its
    inode); its change time moves, and keys the remembered digest: before, the process's memo
    gave the old image's digest and the cached answer."""
    image = tmp_path / "img.png"
    image.write_bytes(b"old image")
    examples = [Example(id="q0", question="what color is the ball?", image=str(image), answers=("red",) * 10)]
    plugins, names = core_plugins()
    host = make_host(*plugins, dataset_plugin("pics", {"val": examples}), _Plugin(),
                     names=[*names, "pics", "looker"])
    assert run_stats(run_in_process(host, model="looker", suite="pictures", tmp_path=tmp_path))["model_calls"] == 1
    before = os.stat(image)
    while os.stat(image).st_ctime_ns == before.st_ctime_ns:  # a coarse clock: until the change time moves
        with open(image, "r+b") as fh:
            fh.write(b"new image")
        os.utime(image, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert run_stats(run_in_process(host, model="looker", suite="pictures", tmp_path=tmp_path))["model_calls"] == 1
