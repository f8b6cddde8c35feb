"""A program (a notebook, a script) calling `execute_run` gets what `harness run` gets: a
RunConfig that the command line would refuse is one UsageError line, not wrong rows or a
traceback; no run folder or cache lands where the command refuses to write; and
`progress=False` prints nothing, the models' own training lines included."""

from __future__ import annotations

import os

import pytest
from helpers_core import core_plugins

from harness.api import Suite, Task
from harness.errors import UsageError
from harness.run import RunConfig, execute_run
from harness.testing import make_host, run_in_process


@pytest.mark.parametrize("limit", [0, -1, "5", 2.5, True])
def test_a_limit_the_command_line_refuses_is_refused(limit):
    """`--limit` is an integer from 1 (click); `RunConfig(limit=-1)` ran every example but
    the last, `limit=0` scored the empty split, `limit="5"` was a TypeError from a slice."""
    with pytest.raises(UsageError, match="limit"):
        RunConfig(model="echo", suite="tiny-suite", limit=limit)


@pytest.mark.parametrize("size", [0, 2.5, "8", False])
def test_a_batch_size_the_command_line_refuses_is_refused(size):
    """`batch_size=2.5` ran and failed every example (exit 1); "8" was a TypeError."""
    with pytest.raises(UsageError, match="batch_size"):
        RunConfig(model="echo", suite="tiny-suite", batch_size=size)


def test_a_limit_of_one_or_none_is_taken():
    assert RunConfig(model="echo", suite="tiny-suite", limit=1).limit == 1
    assert RunConfig(model="echo", suite="tiny-suite").limit is None


def test_a_numpy_integer_is_a_whole_number():
    """`limit=np.int64(5)` (a count computed with numpy) was refused as not an integer."""
    import numpy as np

    config = RunConfig(model="echo", suite="tiny-suite", limit=np.int64(5), batch_size=np.int32(8))
    assert (config.limit, config.batch_size) == (5, 8) and type(config.limit) is int


@pytest.mark.parametrize("field, value", [("model", None), ("model", 3), ("suite", None), ("device", None),
                                          ("split", 1)])
def test_a_field_of_the_wrong_type_is_one_line(field, value):
    """`RunConfig(device=None)`, `model=None`, `suite=None` were raw AttributeErrors and
    TypeErrors from deep inside the run."""
    with pytest.raises(UsageError, match=f"^{field} "):
        RunConfig(**{"model": "echo", "suite": "tiny-suite", field: value})


def _config(tmp_path, **given) -> RunConfig:
    settings = {"out": tmp_path / "runs", "cache_path": tmp_path / "cache.sqlite", **given}
    return RunConfig(model="echo", suite="tiny-suite", device="cpu", progress=False, **settings)


def test_an_out_that_is_a_file_is_one_line(tmp_path):
    plugins, names = core_plugins(8)
    host = make_host(*plugins, names=names)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(UsageError, match="afile"):
        execute_run(_config(tmp_path, out=tmp_path / "afile"), host)


def test_no_run_folder_or_cache_inside_a_package(tmp_path):
    """Generated output never lands in a source package: `harness run --out` checks it, and
    so does the engine now, for a program's `out` and `cache_path` too."""
    plugins, names = core_plugins(8)
    host = make_host(*plugins, names=names)
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    with pytest.raises(UsageError, match="package"):
        execute_run(_config(tmp_path, out=package / "runs"), host)
    with pytest.raises(UsageError, match="package"):
        execute_run(_config(tmp_path, cache_path=package / "cache.sqlite"), host)
    assert sorted(p.name for p in package.iterdir()) == ["__init__.py"]


def test_progress_false_prints_no_training_lines(tmp_path, monkeypatch, capfd, fresh_cache):
    """Off a terminal a trainable model prints a line per epoch unless TQDM_DISABLE is set
    (docs/models.md); `RunConfig(progress=False)` silences the run, those lines too."""
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    plugins, names = core_plugins(8)
    host = make_host(*plugins, builtins=True, names=names)  # qonly, and the tiny dataset
    suite = Suite("tiny-train", "qonly on tiny", (Task("tiny", "val", ("accuracy",), train=("tiny", "train")),))
    capfd.readouterr()
    outcome = run_in_process(host, model="qonly:epochs=2", suite=suite, tmp_path=tmp_path)
    assert outcome.exit_code == 0 and outcome.model_calls > 0
    out, err = capfd.readouterr()
    assert out + err == "", (out, err)
    assert not os.environ.get("TQDM_DISABLE")  # as it was


@pytest.mark.parametrize("value", ["", "0", "false"])
def test_progress_false_is_quiet_whatever_tqdm_disable_held(monkeypatch, value):
    """TQDM_DISABLE set to a value that does not disable (0, false, empty) was left so while
    a quiet run trained (its epoch lines came out), and an empty one was removed after."""
    from harness.paths import quiet_unless

    monkeypatch.setenv("TQDM_DISABLE", value)
    with quiet_unless(False):
        assert os.environ["TQDM_DISABLE"] == "1"  # before, for "0" and "false": left as it was
    assert os.environ["TQDM_DISABLE"] == value  # before, for "": removed


@pytest.mark.parametrize("value, shown", [("", True), ("0", True), ("false", True), ("1", False),
                                          (" Yes ", False), ("TRUE", False)])
def test_the_run_reads_tqdm_disable_as_the_models_do(monkeypatch, tmp_path, value, shown):
    """The predictor's bars were off for any non-empty TQDM_DISABLE (even "0"), while the models'
    training bars and the quiet fit take only 1, true and yes (harness.paths.tqdm_disabled)."""
    from harness.cache.predictions import PredictionCache
    from harness.run.predictor import Predictor
    from helpers_core import EchoModel

    monkeypatch.setenv("TQDM_DISABLE", value)
    cache = PredictionCache(tmp_path / "c.sqlite")
    try:
        assert Predictor(EchoModel(), cache=cache, progress=True).progress is shown
    finally:
        cache.close()


def test_a_leading_tilde_is_the_home_folder_as_the_checks_read_it(tmp_path, monkeypatch):
    """execute_run checked `out=Path("~/runs")` as the home folder's runs (check_output_folder
    expands `~`) and then wrote the run folder into a folder named '~' in the current one."""
    plugins, names = core_plugins(8)
    host = make_host(*plugins, names=names)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    execute_run(RunConfig(model="echo", suite="tiny-suite", device="cpu", progress=False,
                          out="~/runs", cache_path="~/c.sqlite"), host)
    assert list((tmp_path / "cwd").iterdir()) == []  # before: ~/runs/<run> here
    assert len(list((tmp_path / "home" / "runs").iterdir())) == 1 and (tmp_path / "home" / "c.sqlite").is_file()
