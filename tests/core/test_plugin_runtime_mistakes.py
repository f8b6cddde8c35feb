"""A third-party plugin author's mistakes found while running are one line naming the plugin:
a model or dataset whose code raises or returns what is not examples (not a traceback), rows in
a unit the leaderboard would drop (not a row lost without a word)."""

from __future__ import annotations

import errno

import pytest
from helpers_mistakes import Echo, Share, plugin_with

from harness.api import DatasetPlugin
from harness.errors import PluginError, StorageError, UsageError
from harness.testing import dataset_plugin, make_host, run_in_process
from harness.types import Example

EXAMPLES = [Example(id=f"q{i}", question="what color?", answers=("red",) * 10) for i in range(4)]


def _host(*plugins):
    data = dataset_plugin("colors", {"val": EXAMPLES})
    return make_host(data, *plugins, names=["data", *(f"mine{i}" for i in range(len(plugins)))])


# --------------------------------------------------------------------- run time


@pytest.mark.parametrize("row_kw, says", [
    ({"unit": "percent"}, "unit 'percent' is not one of fraction"),
])
def test_a_row_the_leaderboard_would_drop_fails_its_probe(row_kw, says, tmp_path):
    probe = type("Bad", (Share,), {"name": "share", "row_kw": row_kw})
    outcome = run_in_process(_host(plugin_with(probes=(probe,))), model="echo", suite="s", tmp_path=tmp_path)
    assert outcome.exit_code == 1 and outcome.rows == []
    [failure] = outcome.probe_failures
    assert failure.plugin == "mine0" and says in failure.message


class Returns(Share):
    """Returns `returned(row)` instead of a list of its row."""

    returned = staticmethod(lambda row: [row])

    def run(self, ctx):
        return type(self).returned(super().run(ctx)[0])


@pytest.mark.parametrize("returned, says", [
    (lambda row: None, "run() returned None, not a list of ResultRow (return [] for no rows)"),
    (lambda row: row, "run() returned a ResultRow, not a list of ResultRow (return [row])"),
    (lambda row: "share", "run() returned a str, not a list of ResultRow"),
])
def test_a_probe_returning_what_is_not_a_list_of_rows_says_so(returned, says, tmp_path):
    """A probe that forgot its `return` failed with "TypeError: 'NoneType' object is not
    iterable" (one returning its row alone, likewise 'ResultRow'; a string, with one failure per
    character: "returned a str, not a ResultRow")."""
    probe = type("Ret", (Returns,), {"name": "share", "returned": staticmethod(returned)})
    outcome = run_in_process(_host(plugin_with(probes=(probe,))), model="echo", suite="s", tmp_path=tmp_path)
    assert outcome.exit_code == 1 and outcome.rows == []
    [failure] = outcome.probe_failures
    assert failure.plugin == "mine0" and failure.message.startswith(says), failure.message


def test_a_probe_returning_a_tuple_or_generator_of_rows_is_kept(tmp_path):
    for returned in (lambda row: (row,), lambda row: (r for r in [row])):
        probe = type("Ret", (Returns,), {"name": "share", "returned": staticmethod(returned)})
        outcome = run_in_process(_host(plugin_with(probes=(probe,))), model="echo", suite="s",
                                 tmp_path=tmp_path / str(id(returned)))
        assert outcome.exit_code == 0 and [r.value for r in outcome.rows] == [1.0]


def test_a_percentage_in_another_unit_is_kept(tmp_path):
    probe = type("Pct", (Share,), {"name": "share", "row_kw": {"unit": "score"}})
    outcome = run_in_process(_host(plugin_with(probes=(probe,))), model="echo", suite="s", tmp_path=tmp_path)
    assert outcome.exit_code == 0 and [r.value for r in outcome.rows] == [1.0]


class RaisesInInit(Echo):
    name = "raises-init"

    def __init__(self, **options):
        super().__init__(**options)
        raise RuntimeError("weights\nnot found")


class RaisesInSetup(Echo):
    name = "raises-setup"

    def setup(self, device):
        raise RuntimeError("no such device")


@pytest.mark.parametrize("model, says", [
    ("raises-init", "plugin mine0:raises-init: the model could not be created: RuntimeError: weights not found"),
    ("raises-setup", "plugin mine0:raises-setup: setup('cpu') failed: RuntimeError: no such device"),
])
def test_a_model_whose_construction_or_setup_raises_is_one_plugin_error(model, says, tmp_path):
    host = _host(plugin_with(models=(RaisesInInit, RaisesInSetup)))
    with pytest.raises(PluginError) as caught:
        run_in_process(host, model=model, suite="s", tmp_path=tmp_path)
    assert str(caught.value) == says


def test_a_bad_model_option_stays_a_usage_error(tmp_path):

    with pytest.raises(UsageError, match="does not accept option"):
        run_in_process(_host(plugin_with()), model="echo:nope=1", suite="s", tmp_path=tmp_path)


class Loads(DatasetPlugin):
    name = "loads"
    splits = ("val",)
    returned: object = None

    def load(self, split):
        if isinstance(self.returned, BaseException):
            raise self.returned
        return self.returned


@pytest.mark.parametrize("returned, says", [
    (KeyError("questions"), "plugin mine0:loads: load('val') failed: KeyError: 'questions'"),
    (None, "plugin mine0:loads: load('val') returned a NoneType, not a list"),
    ([{"id": "1", "question": "q"}], "plugin mine0:loads: load('val') returned a dict among its examples"),
    ([EXAMPLES[0], EXAMPLES[1], EXAMPLES[0]],
     "plugin mine0:loads: load('val') returned 1 id(s) used more than once (first: 'q0', 2 times)"),
])
def test_a_dataset_load_that_raises_or_returns_what_is_not_examples_is_one_plugin_error(returned, says, tmp_path):
    dataset = type("Bad", (Loads,), {"returned": returned})
    host = make_host(plugin_with(datasets=(dataset,), suite_dataset="loads"), names=["mine0"])
    with pytest.raises(PluginError) as caught:
        run_in_process(host, model="echo", suite="s", tmp_path=tmp_path)
    assert str(caught.value).startswith(says)


def test_a_full_disk_while_a_dataset_loads_is_the_disk_not_theplugin_with(tmp_path):
    """A loader writing its cache (VQA's Arrow files) onto a full disk: StorageError (exit 5,
    "make room ... --resume"), not a PluginError blaming the dataset plugin."""


    full = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "cache" / "data.arrow"))
    dataset = type("Full", (Loads,), {"returned": full})
    host = make_host(plugin_with(datasets=(dataset,), suite_dataset="loads"), names=["mine0"])
    with pytest.raises(StorageError) as caught:
        run_in_process(host, model="echo", suite="s", tmp_path=tmp_path)
    assert "disk full" in str(caught.value) and "--resume" in str(caught.value)


def test_a_dataset_load_returning_a_tuple_of_examples_runs(tmp_path):
    dataset = type("Tup", (Loads,), {"returned": tuple(EXAMPLES)})
    host = make_host(plugin_with(datasets=(dataset,), suite_dataset="loads"), names=["mine0"])
    outcome = run_in_process(host, model="echo", suite="s", tmp_path=tmp_path)
    assert outcome.exit_code == 0 and [r.value for r in outcome.rows] == [1.0]


@pytest.mark.parametrize("key", [object(), {"colors": {"red", "blue"}}])
def test_a_memo_key_that_is_not_json_fails_the_probe_instead_of_missing_the_memo_in_every_process(key, tmp_path):
    class Memo(Share):
        def run(self, ctx):
            ctx.memo("colors", key, lambda: 1)
            return super().run(ctx)

    outcome = run_in_process(_host(plugin_with(probes=(Memo,))), model="echo", suite="s", tmp_path=tmp_path)
    [failure] = outcome.probe_failures
    assert "ctx.memo('colors', key, ...): the key is not JSON" in failure.message


def test_a_memo_value_comes_back_as_json_reads_it_the_first_time_too(tmp_path):
    seen = []

    class Memo(Share):
        def run(self, ctx):
            seen.append(ctx.memo("pair", {"n": len(ctx.examples)}, lambda: (1, 2)))
            return super().run(ctx)

    outcome = run_in_process(_host(plugin_with(probes=(Memo,))), model="echo", suite="s", tmp_path=tmp_path)
    assert outcome.exit_code == 0 and seen == [[1, 2]]  # docs/plugins.md, the ctx table


def test_a_probe_error_text_that_is_not_unicode_is_kept_readable(tmp_path):
    """A probe's exception whose text holds a lone surrogate: before, writing its
    traceback.txt raised UnicodeEncodeError out of the containment, and the run ended there."""
    class Garbled(Share):
        def run(self, ctx):
            raise ValueError("server said: caf\udce9")

    outcome = run_in_process(_host(plugin_with(probes=(Garbled,))), model="echo", suite="s", tmp_path=tmp_path)
    [failure] = outcome.probe_failures
    assert outcome.exit_code == 1 and failure.message.startswith("ValueError: server said: caf")
    (trace,) = outcome.rundir.path.rglob("traceback.txt")
    assert "server said: caf\ufffd" in trace.read_text(encoding="utf-8")
    assert "server said: caf\ufffd" in (outcome.rundir.path / "report.md").read_text(encoding="utf-8")
