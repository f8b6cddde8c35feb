"""The project's one distinctive name, defined once (as tox does with `NAME = "tox"`).

It is the pluggy project name (hook markers, plugin manager) and the entry-point group.
"""

from __future__ import annotations

NAME = "vqa_harness"
ENTRY_POINT_GROUP = NAME
#: Comma-separated plugin names (entry-point names or distribution names) to skip.
BLOCK_ENV = "VQA_HARNESS_BLOCK_PLUGINS"
#: Folder for the user cache (toy data, trained weights, predictions); see harness/paths.py.
CACHE_ENV = "VQA_HARNESS_CACHE"
#: Version of the result-row schema (harness/types.py ResultRow). 2: `higher_is_better` may be
#: null (no better direction); a reader of version 1 would take null for "lower is better".
SCHEMA_VERSION = 2
#: Versions this harness reads (1: the same rows, `higher_is_better` always true or false).
READABLE_SCHEMA_VERSIONS = (1, 2)

__all__ = ["NAME", "ENTRY_POINT_GROUP", "BLOCK_ENV", "CACHE_ENV", "SCHEMA_VERSION", "READABLE_SCHEMA_VERSIONS"]
