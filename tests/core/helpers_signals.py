"""`harness` in a real process with in-test plugins, for the tests that send it real signals.

    python -c "import sys, helpers_signals; sys.exit(helpers_signals.cli(sys.argv[1:]))" run ...

(imported, not run as a script: a model class must live in an importable module.)

The `wait` model writes `<pid>-<tag>` into $HARNESS_TEST_MARKERS when its first batch
starts, then waits (for a stop, or for $HARNESS_TEST_RELEASE to exist); the test waits for
the marker before it signals, so nothing depends on timing. Without either, it gives up after
two minutes and answers, so a broken test never hangs.

The `late-signal` model raises Ctrl-C in its own process while the run makes its last write.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import time
from pathlib import Path

from helpers_core import core_plugins

from harness.api import Model, Option
from harness.hookspecs import hookimpl
from harness.testing import make_host, use_host
from harness.types import Answer
from vqa_harness_cli import main


class LateSignalModel(Model):
    """Answers; the first signal arrives while the run writes its last manifest (its usage is
    asked for then, after the report notes that follow the last task)."""

    name = "late-signal"

    def __init__(self, **options):
        super().__init__(**options)
        self.tasks_done = self.signalled = False

    def answer(self, batch):
        return [Answer("red") for _ in batch]

    def report_notes(self):
        self.tasks_done = True
        return ""

    def usage(self):
        if self.tasks_done and not self.signalled:
            self.signalled = True
            signal.raise_signal(signal.SIGINT)  # Ctrl-C, delivered before this returns
        return {}


#: How long the `wait` model waits before it answers anyway (seconds).
PATIENCE = 120.0


class WaitModel(Model):
    """Announces its first batch, then waits to be stopped."""

    name = "wait"
    options = {"tag": Option("a", "tells two runs of this model apart")}

    def answer(self, batch):
        markers = Path(os.environ["HARNESS_TEST_MARKERS"])
        release = os.environ.get("HARNESS_TEST_RELEASE", "")
        (markers / f"{os.getpid()}-{self.config['tag']}").write_text("", encoding="utf-8")
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline and not (release and Path(release).exists()):
            time.sleep(0.02)  # a signal raises here
        return [Answer("red") for _ in batch]


class WaitPlugin:
    @hookimpl
    def register_models(self, register):
        register(WaitModel)


def host():
    plugins, names = core_plugins()
    return make_host(*plugins, WaitPlugin(), names=[*names, "wait-model"])


def cli(argv: list[str]) -> int:
    """`harness ARGV` with the in-test plugins. SIGUSR1 prints every thread's stack to stderr, in
    this process and in the workers it forks (a test that times out asks for them)."""
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    with use_host(host()):
        return main(argv)
