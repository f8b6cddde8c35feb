"""A third-party plugin author's mistakes found at registration are one line naming the plugin
and what is wrong (hook arguments, a misspelt hook, option defaults, a probe's capabilities),
and refuse that class only; the guide's own test recipe records no failure."""

from __future__ import annotations

import sys
import types

import pytest
from helpers_mistakes import Echo, Share, plugin_with

from harness.api import Option
from harness.hookspecs import hookimpl
from harness.testing import fake_entry_points, make_host

# ------------------------------------------------------------------- registration


def test_a_hook_with_other_arguments_says_which_and_what_the_hookspec_takes():
    class WrongArgs:
        @hookimpl
        def register_models(self, reg):
            reg(Echo)

    host = make_host(WrongArgs(), names=["mine"])
    [failure] = host.failures
    assert failure.plugin == "mine"
    assert "'reg'" in failure.message and "register_models(register)" in failure.message


def test_a_misspelt_hook_suggests_the_hook_meant():
    class Misspelt:
        @hookimpl
        def register_model(self, register):
            register(Echo)

    host = make_host(Misspelt(), names=["mine"])
    [failure] = host.failures
    assert "unknown hook 'register_model'" in failure.message and "did you mean: register_models" in failure.message


@pytest.mark.parametrize("options, says", [
    ({"k": Option(500, "k", min=1, max=10)}, "option 'k': default 500 is out of range"),
    ({"mode": Option("fast", "mode", choices=("a", "b"))}, "option 'mode': default 'fast' is not one of its choices"),
    ({"k": Option(None, "k", min=1)}, "option 'k': has min/max but its default None is not a number"),
    ({"k": 5}, "option 'k' is not a harness.api.Option"),
])
def test_an_option_whose_default_breaks_its_own_rules_refuses_that_class_only(options, says):
    bad = type("Bad", (Echo,), {"name": "bad", "options": options})
    host = make_host(plugin_with(models=(bad, Echo)), names=["mine"])
    [failure] = host.failures
    assert failure.plugin == "mine" and "model 'bad' refused" in failure.message and says in failure.message
    assert "bad" not in host.models and "echo" in host.models


def test_a_probe_requiring_an_unknown_capability_is_refused_not_skipped_for_every_model():
    typo = type("Typo", (Share,), {"name": "typo", "requires": ("answers",)})
    host = make_host(plugin_with(probes=(typo, Share)), names=["mine"])
    [failure] = host.failures
    assert "probe 'typo' refused: requires names unknown capability 'answers'" in failure.message
    assert "did you mean: answer" in failure.message
    assert "typo" not in host.probes and "share" in host.probes


def test_a_probe_whose_requires_is_not_a_tuple_is_refused_alone():
    """Before, `requires = None` raised TypeError inside the register hook, which dropped the
    plugin's other probes and named none."""
    broken = type("Broken", (Share,), {"name": "broken", "requires": None})
    host = make_host(plugin_with(probes=(broken, Share)), names=["mine"])
    [failure] = host.failures
    assert "probe 'broken' refused: requires must be a tuple of capability names, got None" in failure.message
    assert "broken" not in host.probes and "share" in host.probes


def test_an_unset_option_with_choices_is_accepted():
    """`Option(None, choices=...)`: no value unless the user gives one of the choices."""
    unset = type("Unset", (Echo,), {"name": "unset", "options": {"mode": Option(None, "mode", choices=("a", "b"))}})
    host = make_host(plugin_with(models=(unset,)), names=["mine"])
    assert not host.failures and "unset" in host.models


def test_the_guides_test_recipe_with_the_plugin_installed_records_no_failure(monkeypatch):
    module = types.ModuleType("installed_plugin")
    module.register_models = hookimpl(lambda register: register(Echo))
    monkeypatch.setitem(sys.modules, "installed_plugin", module)
    with fake_entry_points(monkeypatch, {"installed": "installed_plugin"}):
        host = make_host(module, builtins=True)  # docs/plugins.md, "Testing your plugin in-process"
    assert not [f for f in host.failures if "installed" in f.plugin], host.failures
    assert host.models.get("echo").plugin == "installed"


@pytest.mark.parametrize("needs, says", [
    ("pair_id", "needs must be a tuple of Example field names, got 'pair_id'"),  # ("pair_id") is a str
    (5, "needs must be a tuple of Example field names, got 5"),
    (("pairid",), "needs names unknown Example field 'pairid'; did you mean: pair_id"),
])
def test_a_probe_whose_needs_is_not_field_names_is_refused_alone(needs, says):
    """Before, `needs = 5` was a TypeError once a suite file paired the probe with a dataset
    declaring `provides`, `needs = "pair_id"` asked for the fields 'p', 'a', ..., and a misspelt
    field refused every such suite file, blaming the dataset."""
    broken = type("Broken", (Share,), {"name": "broken", "needs": needs})
    host = make_host(plugin_with(probes=(broken, Share)), names=["mine"])
    [failure] = host.failures
    assert f"probe 'broken' refused: {says}" in failure.message
    assert "broken" not in host.probes and "share" in host.probes


def test_a_dataset_whose_provides_is_a_string_is_refused():
    from harness.api import DatasetPlugin

    class Words(DatasetPlugin):
        name = "words"
        provides = "answers"

    host = make_host(plugin_with(datasets=(Words,)), names=["mine"])
    assert any("dataset 'words' refused: provides must be None or a set of Example field names, "
               "got 'answers'" in f.message for f in host.failures), host.failures
    assert "words" not in host.datasets
