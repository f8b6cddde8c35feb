"""Meta-tests keep the docs honest (as datasette does)."""

from __future__ import annotations

import inspect
from pathlib import Path

from harness import hookspecs
from harness.plugins import PluginHost

ROOT = Path(__file__).resolve().parents[2]


def test_every_hookspec_is_documented_in_the_plugin_guide():
    guide = (ROOT / "docs" / "plugins.md").read_text()
    specs = [n for n, f in inspect.getmembers(hookspecs, inspect.isfunction) if n.startswith("register_")]
    assert specs, "no hookspecs found"
    for name in specs:
        assert f"`{name}(register)`" in guide, name


def test_every_builtin_plugin_is_listed_by_harness_plugins(capsys):
    from harness.cli import main
    from harness.plugins import reset_host

    reset_host(None)
    main(["plugins"])
    out = capsys.readouterr().out
    host = PluginHost(blocked=frozenset())
    for plugin in host.loaded:
        assert plugin.name in out
    reset_host(None)


def test_every_cli_command_has_help(capsys):
    from harness.cli import COMMANDS, main, plugin_commands

    names = [*COMMANDS, *plugin_commands()]
    assert {"run", "list", "leaderboard", "report", "perturb", "nle", "decoys", "export"} <= set(names)
    for name in names:
        assert main([name, "--help"]) == 0
        assert capsys.readouterr().out.strip()
