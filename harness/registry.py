"""Registries of named plugin objects with attribution and "did you mean" errors."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Generic, Iterator, TypeVar

from .errors import PluginError, UsageError

__all__ = ["Entry", "Registry", "did_you_mean"]

T = TypeVar("T")


@dataclass(frozen=True)
class Entry(Generic[T]):
    """A registered object and who supplied it."""

    name: str
    obj: T
    plugin: str
    distribution: str


def did_you_mean(name: str, known: list[str]) -> str:
    """' ; did you mean: a, b?' for close matches, or a list of what exists."""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    if not close:
        close = [k for k in known if name.lower() in k.lower() or k.lower() in name.lower()][:3]
    if close:
        return f"; did you mean: {', '.join(close)}?"
    if known:
        shown = ", ".join(sorted(known)[:12]) + (" ..." if len(known) > 12 else "")
        return f"; known: {shown}"
    return "; none are registered"


class Registry(Generic[T]):
    """Name -> Entry, for one kind of thing ("model", "dataset", "probe", "suite")."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, Entry[T]] = {}

    def add(self, name: str, obj: T, *, plugin: str, distribution: str) -> None:
        if not isinstance(name, str) or not name:
            raise PluginError(f"plugin {plugin!r} ({distribution}) registered a {self.kind} with no name")
        if name in self._entries:
            first = self._entries[name]
            raise PluginError(f"duplicate {self.kind} {name!r}: registered by plugin "
                              f"{first.plugin!r} ({first.distribution}) and by plugin {plugin!r} "
                              f"({distribution})")
        self._entries[name] = Entry(name, obj, plugin, distribution)

    def get(self, name: str) -> Entry[T]:
        try:
            return self._entries[name]
        except KeyError:
            raise UsageError(f"unknown {self.kind} {name!r}{did_you_mean(name, self.names())}") from None

    def __getitem__(self, name: str) -> T:
        return self.get(name).obj

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[Entry[T]]:
        return iter(sorted(self._entries.values(), key=lambda e: e.name))

    def __len__(self) -> int:
        return len(self._entries)

    def names(self) -> list[str]:
        return sorted(self._entries)
