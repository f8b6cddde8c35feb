"""A third-party plugin's mistakes at start-up and in its commands: a module that exits while
imported, a hook that exits, a suite named like the derived `toy` suite, an option named like a
constructor argument, a command that raises. Each is one line naming the plugin; the other
plugins and commands keep working. And the test kit's `fake_entry_points` works whatever ran
before it in the same process."""

from __future__ import annotations

import click
import pytest

from harness.api import DatasetPlugin, Model, Option, Suite, Task
from harness.hookspecs import hookimpl
from harness.host import get_host
from harness.testing import fake_entry_points, make_host, use_host
from vqa_harness_cli import main


def _installed(tmp_path, monkeypatch, source: str, name: str = "exits_plugin"):
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    return fake_entry_points(monkeypatch, {name.replace("_", "-"): name}, dist_name="exits-dist")


@pytest.mark.parametrize("source, says", [
    ("import sys\nsys.exit('exits_plugin needs CUDA')\n", "import error: SystemExit: exits_plugin needs CUDA"),
    ("class Abort(BaseException):\n    pass\nraise Abort('no licence')\n", "import error: Abort: no licence"),
])
def test_a_plugin_that_exits_while_imported_is_a_failure_and_the_others_load(source, says, tmp_path, monkeypatch,
                                                                               capsys):
    with _installed(tmp_path, monkeypatch, source):  # a fresh host inside, and after
        code = main(["list", "models"])
    out = capsys.readouterr()
    assert code == 0 and "prior" in out.out
    assert f"warning: plugin 'exits-plugin' (exits-dist 0.0.1) failed: {says}" in out.err


def test_a_hook_that_exits_is_a_failure_naming_the_plugin():
    class Exits:
        @hookimpl
        def register_models(self, register):
            raise SystemExit("cannot register")

    host = make_host(Exits(), names=["exits"])
    assert [str(f) for f in host.failures] == [
        "plugin 'exits' ((in-process)) failed: register_models: SystemExit: cannot register"]


def test_a_suite_named_toy_is_refused_so_the_derived_toy_suite_stays():
    class Toyish:
        @hookimpl
        def register_suites(self, register):
            register(Suite("toy", "mine", (Task("yesno", "val", ("accuracy",)),)))
            register(Suite("mine", "mine", (Task("yesno", "val", ("accuracy",)),)))

    host = make_host(Toyish(), names=["toyish"])
    assert "toy" not in host.suites and "mine" in host.suites
    [failure] = host.failures
    assert "suite 'toy' refused: 'toy' is the derived suite of every toy suite" in failure.message


@pytest.mark.parametrize("base, option", [(Model, "feature_resolver"), (DatasetPlugin, "data_dir")])
def test_an_option_named_like_a_constructor_argument_is_refused_when_it_registers(base, option):
    mine = type("MyBase", (base,), {"name": "my-base"})  # a plugin's own base class: not the one named
    cls = type("Clash", (mine,), {"name": "clash", "options": {option: Option("x", "mine")}})
    hook = "register_models" if base is Model else "register_datasets"
    plugin = type("P", (), {hook: hookimpl(lambda self, register: register(cls))})()
    host = make_host(plugin, names=["clasher"])
    [failure] = host.failures
    assert (f"option {option!r} is a name the harness passes to every {base.kind} itself "
            f"(harness.api.{base.__name__}.__init__)") in failure.message


@click.command("boom")
@click.option("--how", default="raise")
def boom(how):
    """A plugin command with a bug."""
    if how == "raise":
        raise RuntimeError("boom\nsecond line")
    raise SystemExit("boom: nothing to do")


@click.command("run")
def fake_run():
    """A plugin command named like a core one."""


class Commands:
    @hookimpl
    def register_commands(self, register):
        register(boom)
        register(fake_run)


@pytest.mark.parametrize("how, code, says", [
    ("raise", 4, "error: plugin 'commands' ((in-process)): command 'boom' failed: RuntimeError: boom second line"),
    ("exit", 1, "boom: nothing to do"),
])
def test_a_plugin_command_that_raises_or_exits_says_one_line(how, code, says, capsys):
    with use_host(make_host(Commands(), names=["commands"])):
        assert main(["boom", "--how", how]) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err and says in err.splitlines()


def test_a_plugin_command_named_like_a_core_one_is_reported_once(capsys):
    with use_host(make_host(Commands(), names=["commands"])):
        assert main(["--help"]) == 0
    err = capsys.readouterr().err
    assert err.count("registers command 'run', which is a core command") == 1


def test_fake_entry_points_takes_effect_after_an_earlier_command_in_the_process(tmp_path, monkeypatch, capsys):
    get_host()  # an earlier test ran a command: the process-wide host holds the installed plugins
    source = ("from harness.api import Model\nfrom harness.hookspecs import hookimpl\n"
              "class Tiny(Model):\n    name = 'tiny-late'\n    def answer(self, batch):\n        return ['y'] * len(batch)\n"
              "@hookimpl\ndef register_models(register):\n    register(Tiny)\n")
    with _installed(tmp_path, monkeypatch, source, name="tiny_late"):
        assert main(["list", "models"]) == 0
    assert "tiny-late" in capsys.readouterr().out
    assert "tiny-late" not in get_host().models  # and the fake is gone afterwards
