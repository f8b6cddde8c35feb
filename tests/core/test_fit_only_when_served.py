"""A trainable model is not trained for a task none of whose probes it can serve: the probes are
skipped with the capability it lacks, and the fit (minutes for MLP-QA on the toy data: 693 s
before this test, for a suite whose one probe needs `answer`) is never done."""

from __future__ import annotations

from helpers_core import core_plugins

from harness.api import Model
from harness.hookspecs import hookimpl
from harness.testing import make_host, run_in_process


class ChoicesOnly(Model):
    """Multiple choice only (like MLP-QA): cannot serve the `accuracy` probe (needs `answer`)."""

    name = "choices-only"
    fits: list[int] = []

    def fit(self, train, *, seed):
        ChoicesOnly.fits.append(len(train))

    def score_choices(self, batch):
        return [[1.0] * len(ex.choices) for ex in batch]


class Plugin:
    @hookimpl
    def register_models(self, register):
        register(ChoicesOnly)


def test_a_model_no_probe_of_the_task_can_use_is_not_trained(tmp_path):
    plugins, names = core_plugins(6)
    host = make_host(*plugins, Plugin(), names=[*names, "choices-only"])
    ChoicesOnly.fits.clear()
    out = run_in_process(host, model="choices-only", suite="tiny-suite", tmp_path=tmp_path)
    assert out.rows == []
    assert [reason for _, probe, reason in out.skipped if probe == "accuracy"] == \
        ["model 'choices-only' lacks answer"]
    assert ChoicesOnly.fits == []
