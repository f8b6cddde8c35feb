"""Per-process state of a run: the plugin host, data folder, loaded datasets.

A dataset's `load` returns Examples or a memory-mapped Arrow table (`datasets.Dataset`).
`--limit` slices the table before any row becomes an Example, and reaches a `load` that takes
`limit` (decoys are generated for the kept questions only). A split is converted once, whole:
probes need random access to all of it (pair partners, nearest images, similar questions),
so streaming would only move the memory. A split is loaded only when needed (`LazyExamples`).
"""

from __future__ import annotations

import gc
import inspect
from collections import Counter
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from ..api import DatasetPlugin
from ..digest import digest
from ..errors import DataError, PluginError, UsageError, plugin_call
from ..fileio import exists
from ..host import PluginHost
from ..specs import parse_spec
from ..types import Example

__all__ = ["Session", "LazyExamples", "to_examples", "takes_limit", "missing_files", "data_hint"]


def data_hint(data_dir: Path | None) -> str:
    """What to do about missing files: check or set --data-dir, and the status command."""
    where = f"--data-dir {data_dir}" if data_dir is not None else "--data-dir DIR"
    return (f"{'check' if data_dir is not None else 'set'} {where}; `harness data status {where}` lists every "
            "file each dataset needs and where it is released")


def takes_limit(plugin: DatasetPlugin) -> bool:
    """Whether the plugin's `load` accepts `limit=` (harness.api.DatasetPlugin)."""
    try:
        params = inspect.signature(plugin.load).parameters
    except (TypeError, ValueError):
        return False
    return "limit" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


class LazyExamples(Sequence[Example]):
    """A dataset split's Examples, loaded on first use; `fingerprint` identifies the content
    without loading it (a fully cached re-run never loads the data)."""

    def __init__(self, fingerprint: str, load: Callable[[], list[Example]]) -> None:
        self.fingerprint = fingerprint
        self._load = load
        self._items: list[Example] | None = None

    @property
    def loaded(self) -> bool:
        return self._items is not None

    def items(self) -> list[Example]:
        if self._items is None:
            self._items = self._load()
        return self._items

    def __len__(self) -> int:
        return len(self.items())

    def __getitem__(self, index):  # type: ignore[override]
        return self.items()[index]

    def __iter__(self) -> Iterator[Example]:
        return iter(self.items())


@dataclass
class Session:
    host: PluginHost
    data_dir: Path | None = None
    limit: int | None = None
    _loaded: dict[tuple[str, str, bool], list[Example]] = field(default_factory=dict)
    _plugins: dict[str, DatasetPlugin] = field(default_factory=dict)

    def dataset(self, spec: str) -> DatasetPlugin:
        """The dataset plugin of 'name:key=value', one instance per spec (its `summary` stays)."""
        if spec not in self._plugins:
            name, options = parse_spec(spec)
            entry = self.host.datasets.get(name)
            self._plugins[spec] = plugin_call(f"plugin {entry.plugin}:{name}: the dataset could not be created",
                                              entry.obj, data_dir=self.data_dir, **options)
        return self._plugins[spec]

    def _owner(self, plugin: DatasetPlugin) -> str:
        """'plugin P:NAME', how errors about a dataset plugin's code name it."""
        entry = self.host.datasets.get(plugin.name) if plugin.name in self.host.datasets else None
        return f"plugin {entry.plugin if entry else '?'}:{plugin.name}"

    def load(self, spec: str, split: str, *, limit: bool = False) -> list[Example]:
        """Examples of `spec`/`split` (memoized); `limit=True` applies `--limit`."""
        key = (spec, split, limit)
        if key not in self._loaded:
            rows = self._rows(spec, split, limit)
            items = to_examples(rows)
            self._check_examples(self.dataset(spec), split, items, fields=isinstance(rows, list))
            self._loaded[key] = items
        return self._loaded[key]

    def _check_examples(self, plugin: DatasetPlugin, split: str, items: list[Example], *, fields: bool = True) -> None:
        """One PluginError naming the plugin unless `items` are Examples with ids unique in the
        split (the key of predictions and scores) and, when the plugin built them (`fields`;
        Arrow rows go through `Example.from_row`), fields of the declared types."""
        if (wrong := next((x for x in items if not isinstance(x, Example)), None)) is not None:
            raise PluginError(f"{self._owner(plugin)}: load({split!r}) returned a {type(wrong).__name__} among its "
                              "examples; it returns harness.types.Example records (or a datasets.Dataset of their rows)")
        if fields and (problem := _fields_problem(items)):
            raise PluginError(f"{self._owner(plugin)}: load({split!r}) returned examples whose {problem}")
        if len({x.id for x in items}) != len(items):
            seen = Counter(x.id for x in items)
            dups = [i for i, c in seen.items() if c > 1]
            raise PluginError(f"{self._owner(plugin)}: load({split!r}) returned {len(dups)} id(s) used more than once "
                              f"(first: {dups[0]!r}, {seen[dups[0]]} times); Example.id must be unique within a split")

    def ids(self, spec: str, split: str) -> list[str]:
        """The example ids of `spec`/`split` (no `--limit`), from an Arrow table's id column: no
        Examples (214k VQA v2 questions: 1.9 s for `Model.check_example_ids` alone)."""
        if (spec, split, False) in self._loaded:
            return [ex.id for ex in self._loaded[(spec, split, False)]]
        rows = self._rows(spec, split, False)
        if isinstance(rows, list):
            self._check_examples(self.dataset(spec), split, rows, fields=True)
            self._loaded[(spec, split, False)] = rows
            return [ex.id for ex in rows]
        try:  # one Arrow column to Python at once (iterating a Column formats row by row)
            column = rows.select_columns(["id"]).to_dict()["id"]
        except (AttributeError, KeyError, TypeError, ValueError):  # another table type: as load() reads it
            return [ex.id for ex in to_examples(rows)]
        return [str(i) for i in column]

    def _rows(self, spec: str, split: str, limit: bool) -> Any:
        """The loader's rows (Examples or an Arrow table), checked: files present, unchanged
        while read, at least one row."""
        plugin = self.dataset(spec)
        if split not in plugin.splits:
            raise UsageError(f"dataset {plugin.name!r} has no split {split!r}; splits: {', '.join(plugin.splits)}")
        if missing := [p for p in plugin.expected_files(split) if not exists(p)]:
            shown = "; ".join(str(p) for p in missing[:6])
            raise DataError(f"dataset {plugin.name!r} split {split!r}: missing file(s): {shown}"
                            + (f" (+{len(missing) - 6} more)" if len(missing) > 6 else "")
                            + f" ({data_hint(self.data_dir)})")
        cap = self.limit if limit and self.limit is not None else None
        before = plugin.fingerprint(split)
        what = f"{self._owner(plugin)}: load({split!r}) failed"
        rows = (plugin_call(what, plugin.load, split, limit=cap) if cap is not None and takes_limit(plugin)
                else plugin_call(what, plugin.load, split))
        rows = list(rows) if isinstance(rows, tuple) else rows
        if not isinstance(rows, list) and not hasattr(rows, "select"):
            raise PluginError(f"{self._owner(plugin)}: load({split!r}) returned a {type(rows).__name__}, not a list of "
                              "harness.types.Example nor a datasets.Dataset")
        self._check_unchanged(plugin, split, before)
        if len(rows) == 0:  # loaders say which file is empty; this catches any other plugin
            files = ", ".join(str(p) for p in plugin.expected_files(split)[:3]) or "no file"
            raise DataError(f"dataset {plugin.name!r} split {split!r}: no examples (read from {files}); "
                            "a dataset split needs at least one")
        if isinstance(rows, list):
            return rows if cap is None else rows[:cap]
        # An Arrow table is memory-mapped: only the rows kept become Python objects.
        return rows.select(range(cap)) if cap is not None and cap < len(rows) else rows

    def lazy(self, spec: str, split: str, *, limit: bool = False) -> LazyExamples:
        """`load` deferred until the examples are used; the fingerprint covers `--limit`. Files
        changed between fingerprint and load are a DataError: results are cached under it."""
        plugin = self.dataset(spec)
        files = plugin.fingerprint(split)
        base = self._released(plugin, files)
        fp = digest({"dataset": base, "limit": self.limit}) if limit and self.limit is not None else base

        def load() -> list[Example]:
            items = self.load(spec, split, limit=limit)
            self._check_unchanged(plugin, split, files)
            return items

        return LazyExamples(fp, load)

    @staticmethod
    def _check_unchanged(plugin: DatasetPlugin, split: str, fingerprint: str) -> None:
        if plugin.fingerprint(split) != fingerprint:
            raise DataError(f"dataset {plugin.name!r} split {split!r}: its files changed on disk while the run read "
                            "them (replaced or still being written); run again once they are complete")

    def labelled(self, spec: str, split: str) -> bool:
        return self.dataset(spec).is_labelled(split)

    def fingerprint(self, spec: str, split: str) -> str:
        """What the split's examples are keyed by (probe outputs, `ctx.memo` values, the weights
        a model trains on them, the manifest's data digest): the plugin's `fingerprint`, with a
        third-party plugin's release."""
        plugin = self.dataset(spec)
        return self._released(plugin, plugin.fingerprint(split))

    def _released(self, plugin: DatasetPlugin, fingerprint: str) -> str:
        """`fingerprint` with the distribution and version of a third-party dataset plugin: a new
        release reads its unchanged files anew (its `load` may make other examples of them), as a
        new release of a model is asked again; unchanged for the harness's own plugins."""
        if plugin.name not in self.host.datasets:  # a plugin object the host did not register
            return fingerprint
        release = self.host.release(self.host.datasets.get(plugin.name).plugin)
        return digest([fingerprint, release]) if release else fingerprint


def missing_files(session: Session, spec: str, split: str) -> list[Path]:
    """Files `spec`/`split` needs that are not on disk."""
    return [Path(p) for p in session.dataset(spec).expected_files(split) if not exists(p)]


_TEXT_FIELDS = ("id", "question", "image_id", "image", "answer_type", "question_type", "label", "pair_id")
_TEXTS_FIELDS = ("answers", "choices", "explanations")


def _fields_problem(items: list[Example]) -> str:
    """The first `_field_problem` of `items` ('' when none), looked for only when the types of
    all fields, gathered in bulk (0.5 s per 200,000 examples; 1.1 s one by one), show one."""
    texts = attrgetter(*_TEXT_FIELDS)
    seqs = [s for ex in items for s in attrgetter(*_TEXTS_FIELDS)(ex)]
    kinds = set(map(type, (v for ex in items for v in texts(ex))))
    outer = set(map(type, seqs))
    inner = set(map(type, chain.from_iterable(seqs))) if outer <= {tuple, list} else {None}
    metas = set(map(type, (ex.meta for ex in items)))
    if kinds <= {str} and outer <= {tuple, list} and inner <= {str} and all(issubclass(m, Mapping) for m in metas):
        return ""
    return next(filter(None, map(_field_problem, items)), "")


def _field_problem(ex: Example) -> str:
    """What in `ex` is not of the type `Example` declares ('' when nothing): a None question,
    an int id, answers as one string (iterated letter by letter)."""
    for name in _TEXT_FIELDS:
        value = getattr(ex, name)
        if not isinstance(value, str):
            return f"field {name!r} of example {ex.id!r} is {type(value).__name__}, not str"
    for name in _TEXTS_FIELDS:
        value = getattr(ex, name)
        if not isinstance(value, (tuple, list)):
            return f"field {name!r} of example {ex.id!r} is {type(value).__name__}, not a tuple of str"
        if (odd := next((v for v in value if not isinstance(v, str)), None)) is not None:
            return f"field {name!r} of example {ex.id!r} holds {type(odd).__name__} {odd!r:.40}, not str"
    if not isinstance(ex.meta, Mapping):
        return f"field 'meta' of example {ex.id!r} is {type(ex.meta).__name__}, not a mapping"
    return ""


def to_examples(dataset: Any) -> list[Example]:
    """Arrow rows -> Examples, column-wise and with the cyclic GC paused (214k VQA v2 val
    questions: the GC's repeated scans of the growing list dominated the conversion)."""
    if isinstance(dataset, list):
        return dataset
    enabled = gc.isenabled()
    gc.disable()
    try:
        if hasattr(dataset, "to_dict"):
            columns = dataset.to_dict()
            names = list(columns)
            return [Example.from_row(dict(zip(names, values))) for values in zip(*columns.values())]
        return [Example.from_row(r) for r in dataset]
    finally:
        if enabled:
            gc.enable()
