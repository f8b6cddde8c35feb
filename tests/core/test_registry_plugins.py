from __future__ import annotations

import pytest

from harness.api import Model, Suite, Task
from harness.errors import UsageError
from harness.hookspecs import hookimpl
from harness.plugins import PluginHost
from harness.registry import Registry
from harness.testing import fake_entry_points, make_host


def test_unknown_name_suggests_near_matches():
    reg = Registry("model")
    for name in ("qonly", "qtype-prior", "prior"):
        reg.add(name, object(), plugin="p", distribution="d 1")
    with pytest.raises(UsageError, match=r"unknown model 'qonyl'; did you mean: qonly"):
        reg.get("qonyl")


def test_duplicate_names_name_both_plugins():
    class A(Model):
        name = "dup"

    class B(Model):
        name = "dup"

    class P1:
        @hookimpl
        def register_models(self, register):
            register(A)

    class P2:
        @hookimpl
        def register_models(self, register):
            register(B)

    host = make_host(P1(), P2(), names=["first-plugin", "second-plugin"])
    assert len(host.failures) == 1
    msg = str(host.failures[0])
    assert "first-plugin" in msg and "second-plugin" in msg and "duplicate model 'dup'" in msg
    assert host.models["dup"] is A  # the first registration keeps working


def test_misspelt_hook_is_reported_and_others_keep_working():
    class Bad:
        @hookimpl
        def register_modles(self, register):  # typo
            pass

    class Good:
        @hookimpl
        def register_suites(self, register):
            register(Suite("s", "d", (Task("x", "val", ("accuracy",)),)))

    host = make_host(Bad(), Good(), names=["bad", "good"])
    assert [f.plugin for f in host.failures] == ["bad"]
    assert "register_modles" in host.failures[0].message
    assert "s" in host.suites


def test_plugin_raising_during_registration_is_contained():
    class Broken:
        @hookimpl
        def register_models(self, register):
            raise RuntimeError("cannot register")

    host = make_host(Broken(), names=["broken"])
    assert host.failures and "cannot register" in host.failures[0].message


def test_registering_a_non_model_is_rejected_with_plugin_name():
    class Wrong:
        @hookimpl
        def register_models(self, register):
            register("not a class")

    host = make_host(Wrong(), names=["wrong"])
    assert "wrong" in str(host.failures[0]) and "harness.api.Model" in str(host.failures[0])


def test_builtins_load_through_entry_points():
    host = PluginHost(blocked=frozenset())
    names = {p.name for p in host.loaded}
    assert "probes-accuracy" in names
    assert all(p.distribution.startswith("vqa-harness") for p in host.loaded if p.name == "probes-accuracy")
    assert "accuracy" in host.probes


def test_block_list_env(monkeypatch):
    monkeypatch.setenv("VQA_HARNESS_BLOCK_PLUGINS", "probes-accuracy")
    host = PluginHost()
    assert "accuracy" not in host.probes


def test_import_failure_reported_with_distribution(monkeypatch):
    with fake_entry_points(monkeypatch, {"ghost": "no_such_module_xyz"}, dist_name="ghost-dist"):
        host = PluginHost(blocked=frozenset())
    failure = [f for f in host.failures if f.plugin == "ghost"][0]
    assert "ghost-dist 0.0.1" in failure.distribution and "ModuleNotFoundError" in failure.message
    assert "accuracy" in host.probes  # the rest keep working
