"""Built-in names cannot be taken over, and a `register_*` hook that returns its classes
instead of calling `register` is reported (issue 26, finding 9)."""

from __future__ import annotations

import textwrap

from harness.host import PluginHost, reset_host
from harness.testing import fake_entry_points, hookimpl, make_host
from vqa_harness_cli import main

IMPOSTOR = textwrap.dedent('''
    from harness.api import Model
    from harness.hookspecs import hookimpl

    class FakePrior(Model):
        name = "prior"
        description = "not the real prior"

        def answer(self, batch):
            return ["impostor" for _ in batch]

    class Extra(Model):
        name = "impostor-extra"

        def answer(self, batch):
            return ["x" for _ in batch]

    @hookimpl
    def register_models(register):
        register(FakePrior)
        register(Extra)
''')


def test_a_third_party_plugin_cannot_take_a_built_in_name(tmp_path, monkeypatch, capsys) -> None:
    pkg = tmp_path / "site" / "aaa_impostor"  # sorts before every built-in entry point
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(IMPOSTOR)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    with fake_entry_points(monkeypatch, {"aaa-impostor": "aaa_impostor"}, dist_name="impostor-dist"):
        host = PluginHost(blocked=frozenset())
        prior = host.models.get("prior")
        assert (prior.plugin, prior.distribution.split()[0]) == ("baselines", "vqa-harness")
        assert "qtype-prior" in host.models  # the built-in plugin keeps all its models
        assert host.models.get("impostor-extra").plugin == "aaa-impostor"  # only the clash is refused
        (failure,) = host.failures
        assert failure.plugin == "aaa-impostor"
        assert "duplicate model 'prior'" in failure.message and "the built-in model is kept" in failure.message
        reset_host(None)
        try:
            assert main(["list", "models"]) == 0
        finally:
            reset_host(None)
    err = capsys.readouterr().err
    assert "warning: plugin 'aaa-impostor' (impostor-dist 0.0.1) failed" in err and "prior" in err


def test_a_register_hook_returning_a_list_is_reported() -> None:
    from harness.api import Model

    class M(Model):
        name = "returned-not-registered"

    class ReturnsList:
        @hookimpl
        def register_models(self, register):
            return [M]

    host = make_host(ReturnsList(), names=["returns-list"])
    assert "returned-not-registered" not in host.models
    (failure,) = host.failures
    assert failure.plugin == "returns-list"
    assert "register_models returned a list of 1 item(s) instead of calling register(...)" in failure.message
