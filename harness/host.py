"""Plugin loading: entry points, block list, validation, collection into registries. Check at
registration, contain at run time: a plugin that fails to import or register is recorded
(name, distribution, message) and the rest keep working; `harness plugins` shows the failures."""

from __future__ import annotations

import importlib.metadata as md
import inspect
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import click
import pluggy

from . import hookspecs
from .api import DatasetPlugin, FeatureExtractor, Model, Option, Probe, Publisher, Suite
from .errors import PluginError, one_line
from .options import Configurable
from .project import BLOCK_ENV, DISTRIBUTION, ENTRY_POINT_GROUP, NAME, TOY_SUITE
from .registry import Registry, did_you_mean
from .types import CAPABILITIES, EXAMPLE_COLUMNS

__all__ = ["PluginHost", "PluginFailure", "LoadedPlugin", "get_host", "reset_host"]


@dataclass(frozen=True)
class PluginFailure:
    plugin: str
    distribution: str
    message: str

    def __str__(self) -> str:
        return f"plugin {self.plugin!r} ({self.distribution}) failed: {self.message}"


@dataclass(frozen=True)
class LoadedPlugin:
    name: str
    distribution: str
    module: str


def _registry(kind: str) -> Any:
    return field(init=False, default_factory=lambda: Registry(kind))


@dataclass
class PluginHost:
    """A pluggy manager plus the registries it fills."""

    load_entry_points: bool = True
    extra_plugins: Iterable[tuple[str, Any]] = ()
    blocked: frozenset[str] | None = None

    pm: pluggy.PluginManager = field(init=False)
    models: Registry[type[Model]] = _registry("model")
    datasets: Registry[type[DatasetPlugin]] = _registry("dataset")
    probes: Registry[type[Probe]] = _registry("probe")
    suites: Registry[Suite] = _registry("suite")
    features: Registry[type[FeatureExtractor]] = _registry("feature extractor")
    publishers: Registry[type[Publisher]] = _registry("publisher")
    commands: Registry[Any] = _registry("command")
    failures: list[PluginFailure] = field(init=False, default_factory=list)
    loaded: list[LoadedPlugin] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.pm = pluggy.PluginManager(NAME)
        self.pm.add_hookspecs(hookspecs)
        if self.blocked is None:
            raw = os.environ.get(BLOCK_ENV, "")
            self.blocked = frozenset(x.strip() for x in raw.split(",") if x.strip())
        self._dists: dict[str, str] = {}
        #: Plugins of the harness's own distribution: registered first, so their names win.
        self._builtin: set[str] = set()
        if self.load_entry_points:
            self._load_entry_points()
        for name, obj in self.extra_plugins:
            self._register(name, obj, "(in-process)")
        self._collect()

    def _load_entry_points(self) -> None:
        for ep in sorted(md.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            found = getattr(ep, "dist", None)
            dist_name = found.name if found is not None else ""
            dist = f"{dist_name} {found.version}" if found is not None else "(unknown distribution)"
            if ep.name in self.blocked or dist_name in self.blocked:
                continue
            try:
                obj = ep.load()
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # contain (a module's sys.exit('needs X') too): report and keep going
                self.failures.append(PluginFailure(ep.name, dist, f"import error: {one_line(exc)}"))
                continue
            if dist_name == DISTRIBUTION:
                self._builtin.add(ep.name)
            self._register(ep.name, obj, dist)

    def release(self, plugin: str) -> str:
        """The "name version" of the installed distribution a third-party `plugin` came from,
        folded into its models' prediction keys (a new release is asked again); "" for the
        harness's own plugins and for in-process or unknown ones."""
        dist = self._dists.get(plugin, "")
        return "" if plugin in self._builtin or dist.startswith("(") else dist

    def _register(self, name: str, obj: Any, dist: str) -> None:
        # is_registered: `make_host(my_plugin, builtins=True)` with my_plugin installed
        if name in self.blocked or self.pm.is_registered(obj):
            return
        try:
            self.pm.register(obj, name=name)
        except pluggy.PluginValidationError as exc:  # pluggy validates hookimpl signatures here
            self.failures.append(PluginFailure(name, dist, _validation_line(exc)))
            return
        except Exception as exc:
            self.failures.append(PluginFailure(name, dist, one_line(exc)))
            return
        try:
            self.pm.check_pending()  # a misspelt hook fails at start-up, naming the plugin
        except pluggy.PluginValidationError as exc:
            self.pm.unregister(obj)
            self.failures.append(PluginFailure(name, dist, _validation_line(exc)))
            return
        self._dists[name] = dist
        self.loaded.append(LoadedPlugin(name, dist, getattr(obj, "__name__", type(obj).__name__)))

    def _collect(self) -> None:
        targets: list[tuple[str, Registry[Any], Callable[[Any], bool], str]] = [
            ("register_datasets", self.datasets, _subclass(DatasetPlugin), "a subclass of harness.api.DatasetPlugin"),
            ("register_models", self.models, _subclass(Model), "a subclass of harness.api.Model"),
            ("register_probes", self.probes, _subclass(Probe), "a subclass of harness.api.Probe"),
            ("register_suites", self.suites, lambda o: isinstance(o, Suite), "a harness.api.Suite"),
            ("register_features", self.features, _subclass(FeatureExtractor), "a subclass of harness.api.FeatureExtractor"),
            ("register_publishers", self.publishers, _subclass(Publisher), "a subclass of harness.api.Publisher"),
            ("register_commands", self.commands, _is_command, "a click command"),
        ]
        for hook_name, registry, accepts, what in targets:
            # Built-ins first: a third-party plugin cannot take a built-in name (it is refused,
            # the built-in kept); otherwise in loading order.
            impls = getattr(self.pm.hook, hook_name).get_hookimpls()
            for impl in sorted(impls, key=lambda i: i.plugin_name not in self._builtin):
                self._call_register(impl, hook_name, registry, accepts, what)

    def _call_register(self, impl: Any, hook_name: str, registry: Registry[Any],
                       accepts: Callable[[Any], bool], what: str) -> None:
        """Call one plugin's `register_*` hook with its `register` callback: an object of the
        wrong kind ends the hook (a failure naming the plugin); a name already taken refuses
        that object only (a failure naming both plugins, built-in or not)."""
        plugin = impl.plugin_name
        dist = self._dists.get(plugin, "(unknown)")

        def register(obj: Any) -> None:
            if not accepts(obj):
                raise PluginError(f"plugin {plugin!r} ({dist}) registered {obj!r}, which is not {what}")
            problem = _contract_problem(obj)
            if problem:  # refused, the plugin's others kept (as for a duplicate name)
                self.failures.append(PluginFailure(plugin, dist, (
                    f"{hook_name}: {registry.kind} {getattr(obj, 'name', '')!r} refused: {problem}")))
                return
            try:
                registry.add(obj.name, obj, plugin=plugin, distribution=dist)
            except PluginError as exc:  # a duplicate name: this object is refused, the plugin's others kept
                first = registry.get(obj.name) if obj.name in registry else None
                kept = (f"; the built-in {registry.kind} is kept" if first is not None
                        and first.plugin in self._builtin else "")
                self.failures.append(PluginFailure(plugin, dist, f"{hook_name}: {exc}{kept}"))

        try:
            returned = impl.function(register=register)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # contain a plugin that breaks (or exits) while registering
            self.failures.append(PluginFailure(plugin, dist, f"{hook_name}: {one_line(exc)}"))
            return
        if returned is not None:  # e.g. `return [MyModel]`: a hook registers through the callback only
            sized = isinstance(returned, (list, tuple, set, dict))
            size = f" of {len(returned)} item(s)" if sized else ""
            self.failures.append(PluginFailure(plugin, dist, (  # kind and size, not its repr
                f"{hook_name} returned a {type(returned).__name__}{size} instead of calling "
                "register(...) for each; nothing from the returned value is registered")))


def _contract_problem(obj: Any) -> str:
    """What a registered class declares wrongly, found before any run ('' when nothing): bad
    `options` (`Option.default_problem`), a probe's `requires` / `requires_any` naming no
    capability (the probe would be skipped for every model), a probe's `needs` or a dataset's
    `provides` naming no Example field."""
    if isinstance(obj, Suite) and obj.name == TOY_SUITE:
        return (f"{TOY_SUITE!r} is the derived suite of every toy suite (`harness run --suite toy`); "
                "give yours another name, with Suite(..., toy=True) to join it")
    if not (isinstance(obj, type) and issubclass(obj, Configurable)):
        return ""
    options = obj.options
    if not isinstance(options, Mapping):
        return f"options must map option names to harness.api.Option, got a {type(options).__name__}"
    base, passed = _CONSTRUCTOR_ARGUMENTS.get(obj.kind, (None, frozenset()))
    taken = sorted(set(options) & passed)
    if taken and base is not None:  # the base the harness defines, not the plugin's own (obj.__mro__[1])
        return (f"option {taken[0]!r} is a name the harness passes to every {obj.kind} itself "
                f"(harness.api.{base.__name__}.__init__); call the option something else")
    for key, option in options.items():
        if not isinstance(option, Option):
            return f"option {key!r} is not a harness.api.Option (got {type(option).__name__} {option!r:.40})"
        problem = option.default_problem()
        if problem:
            return f"option {key!r}: {problem}"
    if issubclass(obj, Probe):
        for attr, known, nouns in (("requires", CAPABILITIES, _CAPABILITY), ("needs", EXAMPLE_COLUMNS, _FIELD),
                                   ("requires_any", CAPABILITIES, _CAPABILITY)):
            if problem := _names_problem(attr, getattr(obj, attr), known, nouns, "a tuple of"):
                return problem
    if issubclass(obj, DatasetPlugin) and obj.provides is not None:
        return _names_problem("provides", obj.provides, EXAMPLE_COLUMNS, _FIELD, "None or a set of")
    return ""


_CAPABILITY, _FIELD = ("capability", "capabilities"), ("Example field", "Example fields")


def _names_problem(attr: str, declared: Any, known: tuple[str, ...], nouns: tuple[str, str], shape: str) -> str:
    """Why `declared` is not names from `known` ('' when it is); a plain string (`("pair_id")`
    is one) would be read letter by letter."""
    if not isinstance(declared, (tuple, list, frozenset, set)) or not all(isinstance(c, str) for c in declared):
        return f"{attr} must be {shape} {nouns[0]} names, got {declared!r}"
    if unknown := [c for c in declared if c not in known]:
        return (f"{attr} names unknown {nouns[len(unknown) > 1]} "
                f"{', '.join(map(repr, unknown))}{did_you_mean(unknown[0], list(known))}")
    return ""


#: Keyword arguments the harness passes to a plugin class besides its options: an option of
#: that name would never reach `config` (`--model m:feature_resolver=x` refused, its default
#: read as the harness's value).
_CONSTRUCTOR_ARGUMENTS: dict[str, tuple[type, frozenset[str]]] = {
    Model.kind: (Model, frozenset({"feature_resolver"})), DatasetPlugin.kind: (DatasetPlugin, frozenset({"data_dir"}))}


def _validation_line(exc: pluggy.PluginValidationError) -> str:
    """pluggy's validation error as one line that says what is wrong: an unknown hook with
    near matches, or a hook whose arguments the hookspec does not have (pluggy puts the
    reason on later lines, which `one_line` would drop)."""
    text = str(exc).strip()
    unknown = re.match(r"unknown hook '([^']+)'", text)
    if unknown:
        hooks = [n for n in dir(hookspecs) if n.startswith("register_")]
        return f"unknown hook {unknown.group(1)!r}{did_you_mean(unknown.group(1), hooks)}"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    hook = re.search(r"for hook '([^']+)'", lines[0]) if lines else None
    detail = "; ".join(lines[1:])
    if hook and detail:
        spec = getattr(hookspecs, hook.group(1), None)
        expected = f" (the hookspec is {hook.group(1)}({', '.join(inspect.signature(spec).parameters)}))" if spec else ""
        return f"hook {hook.group(1)!r}: {detail}{expected}"
    return one_line(exc)


def _subclass(base: type) -> Callable[[Any], bool]:
    return lambda obj: isinstance(obj, type) and issubclass(obj, base)


def _is_command(obj: Any) -> bool:
    return isinstance(obj, click.Command)


_HOST: PluginHost | None = None


def get_host() -> PluginHost:
    """The process-wide host (entry points loaded once, lazily)."""
    global _HOST
    if _HOST is None:
        _HOST = PluginHost()
    return _HOST


def reset_host(host: PluginHost | None = None) -> None:
    """Replace the process-wide host (tests and `harness.testing`)."""
    global _HOST
    _HOST = host
