"""The WordNet index's file format, shared by its builder (`wordnet_build`) and its reader
(`wordnet_index`): the layout version and the WordNet 3.0 file conventions both parse."""

from __future__ import annotations

import re

__all__ = ["INDEX_VERSION", "POS_FILES", "POS_NUMBER", "FILE_POS", "POINTERS", "MARKER"]

#: Bump when the layout or the parsing changes: old cache files are then rebuilt.
INDEX_VERSION = 3
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
POS_NUMBER = {"n": 1, "v": 2, "a": 3, "r": 4, "s": 5}
FILE_POS = {"n": "n", "v": "v", "a": "a", "s": "a", "r": "r"}
#: Pointer symbols kept: hypernym, instance hypernym, hyponym, instance hyponym, similar to.
POINTERS = {"@": 0, "@i": 1, "~": 2, "~i": 3, "&": 4}
MARKER = re.compile(r"(.*?)(\([^()]*\))?$")
