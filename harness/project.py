"""The project's one distinctive name, defined once (as tox does with `NAME = "tox"`): the
pluggy project name (hook markers, plugin manager) and the entry-point group."""

from __future__ import annotations

NAME = "vqa_harness"
ENTRY_POINT_GROUP = NAME
#: The distribution that ships the built-in plugins: its names win over any other plugin's.
DISTRIBUTION = "vqa-harness"
#: Comma-separated plugin names (entry-point names or distribution names) to skip.
BLOCK_ENV = "VQA_HARNESS_BLOCK_PLUGINS"
#: Folder for the user cache (toy data, trained weights, predictions); see harness/paths.py.
CACHE_ENV = "VQA_HARNESS_CACHE"
#: The derived suite of every registered suite marked `Suite(toy=True)` (harness/suites.py): a
#: name no plugin may register.
TOY_SUITE = "toy"
#: Version of the result-row schema (harness/types.py ResultRow). 2: `higher_is_better` may be
#: null (no better direction); a reader of version 1 would take null for "lower is better".
SCHEMA_VERSION = 2
#: Versions this harness reads (1: the same rows, `higher_is_better` always true or false).
READABLE_SCHEMA_VERSIONS = (1, 2)
#: Version of `manifest.json` (a manifest without the field is version 1, written before it).
MANIFEST_SCHEMA_VERSION = 1
#: Version of `tables.json` (harness/layouts.py).
TABLES_SCHEMA_VERSION = 1


def schema_problem(data: object, readable: tuple[int, ...], what: str) -> str:
    """Why a run-folder file (a parsed JSON object) with `schema_version` cannot be read by
    this harness ("" when it can; a missing field is version 1)."""
    version = data.get("schema_version", 1) if isinstance(data, dict) else 1
    if isinstance(version, int) and not isinstance(version, bool) and version in readable:
        return ""
    shown = " and ".join(map(str, readable))
    return (f"{what}: unknown schema_version {version!r} (this vqa-harness reads {shown}; written by a newer "
            "vqa-harness?)")

__all__ = ["NAME", "ENTRY_POINT_GROUP", "DISTRIBUTION", "BLOCK_ENV", "CACHE_ENV", "TOY_SUITE", "SCHEMA_VERSION",
           "READABLE_SCHEMA_VERSIONS", "MANIFEST_SCHEMA_VERSION", "TABLES_SCHEMA_VERSION", "schema_problem"]
