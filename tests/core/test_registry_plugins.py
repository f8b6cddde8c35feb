from __future__ import annotations

import pytest

from harness.api import Model, Suite, Task
from harness.errors import UsageError
from harness.hookspecs import hookimpl
from harness.host import PluginHost
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
    assert {"toy", "vqa", "balanced", "decoys", "e-vil", "counterfactual", "baselines", "hf", "features",
            "leaderboard"} <= names
    assert all(p.distribution.startswith("vqa-harness") for p in host.loaded if p.name == "vqa")
    assert "accuracy" in host.probes
    assert "leaderboard" in host.publishers and "report" in host.commands


def test_block_list_env(monkeypatch):
    monkeypatch.setenv("VQA_HARNESS_BLOCK_PLUGINS", "vqa")
    host = PluginHost()
    assert "accuracy" not in host.probes


def _provided(host, plugin: str) -> dict[str, set[str]]:
    kinds = ("datasets", "models", "probes", "suites", "features", "publishers", "commands")
    return {k: {e.name for e in getattr(host, k) if e.plugin == plugin} for k in kinds}


def test_blocking_a_builtin_plugin_removes_all_it_registers(monkeypatch):
    full = _provided(PluginHost(blocked=frozenset()), "decoys")
    assert full["datasets"] >= {"visual7w", "toyvqa-mc"} and full["models"] >= {"mlp-a", "mlp-iqa"}
    assert full["probes"] == {"decoys", "decoy-audit"}
    assert full["suites"] == {"decoys", "decoys-visual7w", "decoys-vqa1", "decoys-vqa2", "decoys-vg"}
    assert full["commands"] == {"decoys"}
    monkeypatch.setenv("VQA_HARNESS_BLOCK_PLUGINS", "decoys")
    host = PluginHost()
    everything = {name for k in ("datasets", "models", "probes", "suites", "commands") for name in getattr(host, k).names()}
    assert not (set().union(*full.values()) - {"decoys"}) & everything
    assert "decoys" not in host.commands and "decoys" not in host.suites and "decoys" not in host.probes
    assert "toyvqa" in host.datasets  # the other plugins are untouched


THIRD_PARTY = """
import click
from harness.api import DatasetPlugin, Model, Probe, Suite, Task
from harness.hookspecs import hookimpl


class D(DatasetPlugin):
    name = "tp-data"


class M(Model):
    name = "tp-model"


class P(Probe):
    name = "tp-probe"


@click.command("tp-cmd")
def tp_cmd():
    "A third-party command."


@hookimpl
def register_datasets(register):
    register(D)


@hookimpl
def register_models(register):
    register(M)


@hookimpl
def register_probes(register):
    register(P)


@hookimpl
def register_suites(register):
    register(Suite("tp-suite", "third party", (Task("tp-data", "val", ("tp-probe",)),)))


@hookimpl
def register_commands(register):
    register(tp_cmd)
"""


def test_blocking_a_third_party_plugin_removes_its_commands_too(monkeypatch, tmp_path):
    import sys

    (tmp_path / "tp_plugin.py").write_text(THIRD_PARTY)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("tp_plugin", None)
    with fake_entry_points(monkeypatch, {"third-party": "tp_plugin"}, dist_name="tp-dist"):
        loaded = PluginHost(blocked=frozenset())
        assert {k: v for k, v in _provided(loaded, "third-party").items() if v} == {
            "datasets": {"tp-data"}, "models": {"tp-model"}, "probes": {"tp-probe"}, "suites": {"tp-suite"},
            "commands": {"tp-cmd"}}
        for blocked in ("third-party", "tp-dist"):  # by entry-point name or by distribution
            host = PluginHost(blocked=frozenset({blocked}))
            assert not any(_provided(host, "third-party").values())
            assert "tp-cmd" not in host.commands and "tp-data" not in host.datasets


def test_import_failure_reported_with_distribution(monkeypatch):
    with fake_entry_points(monkeypatch, {"ghost": "no_such_module_xyz"}, dist_name="ghost-dist"):
        host = PluginHost(blocked=frozenset())
    failure = [f for f in host.failures if f.plugin == "ghost"][0]
    assert "ghost-dist 0.0.1" in failure.distribution and "ModuleNotFoundError" in failure.message
    assert "accuracy" in host.probes  # the rest keep working
