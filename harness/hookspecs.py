"""The plugin contract: hooks a vqa-harness plugin may implement.

Every hook receives a `register` callback (as in simonw/llm). Call it once per thing the plugin
provides; the core names it, detects duplicates (the error names both plugins) and remembers which
plugin and distribution supplied it. Hooks return nothing. Each is called once at start-up, after
all plugins are loaded (`register_commands`: when the command line starts).

A plugin is any module or object with functions decorated by `harness.hookspecs.hookimpl`, exposed
through the entry-point group `vqa_harness` (see docs/plugins.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import pluggy

from .project import NAME

if TYPE_CHECKING:  # pragma: no cover
    import click

    from .api import DatasetPlugin, FeatureExtractor, Model, Probe, Publisher, Suite

__all__ = ["hookspec", "hookimpl"]

hookspec = pluggy.HookspecMarker(NAME)
hookimpl = pluggy.HookimplMarker(NAME)


@hookspec
def register_datasets(register: Callable[[type["DatasetPlugin"]], None]) -> None:
    """Register dataset classes (subclasses of `harness.api.DatasetPlugin`):
    `register(DatasetClass)` for each; `DatasetClass.name` is the name suite tasks and suite
    files use (`toyvqa:variant=balanced`)."""


@hookspec
def register_models(register: Callable[[type["Model"]], None]) -> None:
    """Register model classes (subclasses of `harness.api.Model`): `register(ModelClass)` for
    each; `ModelClass.name` is what `harness run --model NAME[:key=value,...]` accepts, and
    `ModelClass.options` lists the accepted keys."""


@hookspec
def register_features(register: Callable[[type["FeatureExtractor"]], None]) -> None:
    """Register feature extractors (subclasses of `harness.api.FeatureExtractor`):
    `register(ExtractorClass)` for each; feature-based models accept `ExtractorClass.name`
    (with options, `NAME:key=value`) where they take image or text features, e.g.
    `--model mlp-iqa:image_features=NAME`."""


@hookspec
def register_probes(register: Callable[[type["Probe"]], None]) -> None:
    """Register probe classes (subclasses of `harness.api.Probe`): `register(ProbeClass)` for
    each; suites refer to probes by `ProbeClass.name`."""


@hookspec
def register_suites(register: Callable[["Suite"], None]) -> None:
    """Register suites (`harness.api.Suite` records: a name and a list of tasks):
    `register(Suite(...))` for each; the tasks may name datasets and probes from any plugin
    (they are resolved when a run starts, with "did you mean" errors for unknown names)."""


@hookspec
def register_commands(register: Callable[["click.Command"], None]) -> None:
    """Register `harness` subcommands (click commands or groups), as llm and datasette do:
    `register(command)` for each; the command's name is the subcommand users type (`harness
    perturb ...`). A name that a core command or another plugin already uses is refused,
    naming both. Blocking the plugin removes its commands with everything else it registered."""


@hookspec
def register_publishers(register: Callable[[type["Publisher"]], None]) -> None:
    """Register publishers (subclasses of `harness.api.Publisher`), what turns run folders into
    a leaderboard: `harness run` (unless `--no-leaderboard`) and `harness leaderboard build`
    call every registered publisher with the run folders and the output folder. A publisher
    reads only run folders (results.jsonl, manifest.json, tables.json)."""
