"""Driving malformed inputs through the real command line (`vqa_harness_cli.main`) in-process.

A throwaway plugin registers a cheap non-trainable model (`const`) and one suite per test
(`bad`) whose tasks name built-in datasets with the options that point them at the broken
files; `run_bad` runs it and `expect_one_line` checks what a user would see: a non-zero
exit, exactly one line on stderr starting with `error:`, no traceback, and the file and
the field or row named in that line.
"""

from __future__ import annotations

import functools
import importlib.metadata as md
from pathlib import Path
from typing import Any, Sequence

from harness.api import Model, Suite, Task
from harness.project import ENTRY_POINT_GROUP
from harness.testing import hookimpl, make_host, use_host
from harness.types import Answer, Example
from vqa_harness_cli import main

__all__ = ["ConstModel", "plugin_for", "run_cli", "run_bad", "expect_one_line", "visual7w_data", "write"]


class ConstModel(Model):
    """Answers "yes", scores every choice 0, explains "because": no training, no weights."""

    name = "const"
    description = "constant answers (malformed-input tests)"

    def answer(self, batch: Sequence[Example]) -> list[Answer]:
        return [Answer("yes") for _ in batch]

    def score_choices(self, batch: Sequence[Example]) -> list[list[float]]:
        return [[0.0] * len(ex.choices) for ex in batch]

    def explain(self, batch: Sequence[Example], answers: Sequence[str]) -> list[str]:
        return ["because" for _ in batch]


def plugin_for(tasks: Sequence[Task], *extra_datasets: type) -> object:
    """A plugin registering `const`, the suite `bad` over `tasks`, and `extra_datasets`."""

    class _Plugin:
        @hookimpl
        def register_models(self, register):
            register(ConstModel)

        @hookimpl
        def register_datasets(self, register):
            for cls in extra_datasets:
                register(cls)

        @hookimpl
        def register_suites(self, register):
            register(Suite("bad", "malformed-input test suite", tuple(tasks)))

    return _Plugin()


@functools.lru_cache(maxsize=1)
def _installed() -> tuple[tuple[str, ...], tuple[object, ...]]:
    """The installed plugins' names and modules, read from the entry points once per session
    (scanning distribution metadata costs more than the CLI call under test)."""
    eps = sorted(md.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
    return tuple(ep.name for ep in eps), tuple(ep.load() for ep in eps)


def run_cli(capsys: Any, argv: list[str], plugin: object | None = None) -> tuple[int, str, str]:
    """`harness ARGV` in-process with the installed plugins (+ `plugin`): (exit code, stdout, stderr)."""
    names, modules = _installed()
    extra = [plugin] if plugin is not None else []
    host = make_host(*modules, *extra, names=[*names, *(["malformed-tests"] if extra else [])])
    capsys.readouterr()
    with use_host(host):
        code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def run_bad(capsys: Any, tmp_path: Path, tasks: Sequence[Task], *extra_datasets: type, model: str = "const",
            data_dir: Path | None = None) -> tuple[int, str, str]:
    """`harness run --model MODEL --suite bad` over `tasks`, everything written under tmp_path."""
    argv = ["run", "--model", model, "--suite", "bad", "--out", str(tmp_path / "runs"), "--no-leaderboard",
            "--cache", str(tmp_path / "cache.sqlite"), "--device", "cpu"]
    if data_dir is not None:
        argv += ["--data-dir", str(data_dir)]
    return run_cli(capsys, argv, plugin_for(tasks, *extra_datasets))


def expect_one_line(result: tuple[int, str, str], *needles: str, code: int = 3) -> str:
    """The one error line of `result`, after checking exit code, line count, no traceback
    and that every needle (file name, row, field) is in it."""
    rc, out, err = result
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in out + err, err
    assert rc == code, f"exit {rc} (expected {code}); stderr: {err!r}"
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}: {err!r}"
    line = lines[0]
    assert line.startswith("error: "), line
    for needle in needles:
        assert needle in line, f"{needle!r} not in {line!r}"
    return line


def write(path: Path, content: str | bytes) -> Path:
    """Write text (UTF-8) or bytes to `path`, creating folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def visual7w_data() -> dict:
    """A small Visual7W telling file (3 images: train, train, test; 2 questions each) to break."""
    images = []
    for i in range(3):
        pairs = [{"qa_id": i * 10 + j, "image_id": i, "question": q, "answer": a, "multiple_choices": mc,
                  "type": "what"}
                 for j, (q, a, mc) in enumerate([("What color is the car?", "Red.", ["Blue.", "Green.", "Black."]),
                                                 ("How many dogs?", "Two.", ["Three.", "One.", "Four."])])]
        images.append({"image_id": i, "filename": f"v7w_{i}.jpg", "split": "train" if i < 2 else "test",
                       "qa_pairs": pairs})
    return {"images": images}
