"""Helpers for testing plugins in-process (for third-party plugin authors too).

    from harness.testing import make_host, run_in_process, ListDataset

    def test_my_model(tmp_path):
        host = make_host(my_plugin_module, builtins=True)
        outcome = run_in_process(host, model="my-model", suite="toy", tmp_path=tmp_path)
        assert outcome.exit_code == 0

Plugins are data in tests (as in pluggy's own tests): a module or a throwaway class with
`@hookimpl` methods can be passed to `make_host`.
"""

from __future__ import annotations

import contextlib
import importlib.metadata as md
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar, Iterable, Iterator, Sequence

from .api import DatasetPlugin, Suite, Task
from .digest import digest_stream
from .hookspecs import hookimpl
from .host import PluginHost, reset_host
from .project import ENTRY_POINT_GROUP
from .run import RunConfig, execute_run
from .types import Example

__all__ = ["make_host", "use_host", "run_in_process", "fake_entry_points", "ListDataset",
           "dataset_plugin", "hookimpl"]


def make_host(*plugins: Any, builtins: bool = False, names: Sequence[str] | None = None) -> PluginHost:
    """A fresh PluginHost holding `plugins` (modules or objects with @hookimpl functions); with
    `builtins=True` the installed entry points (the built-in plugins and any third-party ones)
    are loaded too."""
    labels = list(names) if names else [getattr(p, "__name__", type(p).__name__) for p in plugins]
    return PluginHost(load_entry_points=builtins, extra_plugins=list(zip(labels, plugins)), blocked=frozenset())


@contextlib.contextmanager
def use_host(host: PluginHost) -> Iterator[PluginHost]:
    """Make `host` the process-wide host (what the CLI uses) for the duration."""
    reset_host(host)
    try:
        yield host
    finally:
        reset_host(None)


def run_in_process(host: PluginHost, *, model: str, suite: str | Suite, tmp_path: Path, **config: Any):
    """Run `model` through `suite` (a registered name or a `Suite`): the run folder, the
    prediction cache and the probe outputs stored with it are written under `tmp_path`;
    model-independent artifacts (toy data, decoy sets, `ctx.memo` values) go to the harness
    cache, `$VQA_HARNESS_CACHE`, shared by every run (point it at a folder of the tests' own)."""
    config.setdefault("device", "cpu")
    config.setdefault("progress", False)
    cfg = RunConfig(model=model, suite=suite, out=Path(tmp_path) / "runs",
                    cache_path=config.pop("cache_path", Path(tmp_path) / "cache.sqlite"), **config)
    return execute_run(cfg, host)


@contextlib.contextmanager
def fake_entry_points(monkeypatch: Any, plugins: dict[str, str], dist_name: str = "fake-plugin",
                      version: str = "0.0.1") -> Iterator[None]:
    """Pretend `plugins` ({entry-point name: "module"}) are installed in the group, as pytest's
    own tests do: `importlib.metadata.entry_points` is monkeypatched to add entry points of a
    fake distribution next to the real ones. The process-wide host (what
    `vqa_harness_cli.main` uses) is reset on entry and on exit, so the fake plugins are loaded
    whatever ran before, and are gone after."""
    dist = SimpleNamespace(name=dist_name, metadata={"Name": dist_name}, version=version)
    real = md.entry_points

    def entry_points(**params: Any):
        eps = list(real(**params))
        if params.get("group") == ENTRY_POINT_GROUP:
            for name, target in plugins.items():
                ep = md.EntryPoint(name=name, value=target, group=ENTRY_POINT_GROUP)
                eps.append(ep._for(dist) if hasattr(ep, "_for") else ep)
        return eps

    monkeypatch.setattr(md, "entry_points", entry_points)
    reset_host(None)
    try:
        yield
    finally:
        monkeypatch.setattr(md, "entry_points", real)
        reset_host(None)


class ListDataset(DatasetPlugin):
    """A dataset plugin over in-memory examples; subclass and set `data` and `name`."""

    name = "list-dataset"
    data: ClassVar[dict[str, list[Example]]] = {}

    def load(self, split: str) -> list[Example]:  # type: ignore[override]
        return list(self.data[split])

    def fingerprint(self, split: str) -> str:
        """The content itself (in-memory data has no file to stat)."""
        return digest_stream([self.name, split, *(ex.to_row() for ex in self.data.get(split, []))], 32)


def dataset_plugin(name: str, splits: dict[str, Iterable[Example]], *, suite: str | None = None,
                   probes: Sequence[str] = ("accuracy",), eval_split: str = "val") -> object:
    """A throwaway plugin registering dataset `name` (and optionally a suite over it)."""
    data = {k: list(v) for k, v in splits.items()}
    cls = type(f"Dataset_{name}", (ListDataset,), {"name": name, "data": data, "splits": tuple(data)})

    class _Plugin:
        @hookimpl
        def register_datasets(self, register):
            register(cls)

        @hookimpl
        def register_suites(self, register):
            if suite:
                register(Suite(suite, f"test suite over {name}", (Task(name, eval_split, tuple(probes)),)))

    return _Plugin()
