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
#: Version of the result-row schema (harness/results.py).
SCHEMA_VERSION = 1

__all__ = ["NAME", "ENTRY_POINT_GROUP", "BLOCK_ENV", "CACHE_ENV", "SCHEMA_VERSION"]
