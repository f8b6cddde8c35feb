"""The third-party plugin the plugin-mistake tests vary: a model answering "red", a probe
reporting the share of "red" answers (a fraction), and a plugin registering what it is given."""

from __future__ import annotations

from harness.api import Model, Probe, Suite, Task
from harness.hookspecs import hookimpl

__all__ = ["Echo", "Share", "plugin_with"]


class Echo(Model):
    name = "echo"

    def answer(self, batch):
        return ["red" for _ in batch]


class Share(Probe):
    """One row: the share of answers that are 'red' (a fraction); `row_kw` goes to `ctx.row`."""

    name = "share"
    requires = ("answer",)
    row_kw: dict = {}

    def run(self, ctx):
        preds = ctx.predict(ctx.examples, "answer")
        share = sum(p.answer == "red" for p in preds) / len(preds)
        return [ctx.row("share", share, len(preds), **self.row_kw)]


def plugin_with(models=(Echo,), probes=(Share,), datasets=(), suite_dataset="colors", suite_probes=("share",)):
    """A plugin registering `models`, `probes`, `datasets` and suite `s` (`suite_probes` on `suite_dataset`/val)."""
    class Plugin:
        @hookimpl
        def register_models(self, register):
            for m in models:
                register(m)

        @hookimpl
        def register_probes(self, register):
            for p in probes:
                register(p)

        @hookimpl
        def register_datasets(self, register):
            for d in datasets:
                register(d)

        @hookimpl
        def register_suites(self, register):
            register(Suite("s", "test suite", (Task(suite_dataset, "val", tuple(suite_probes)),)))

    return Plugin()
