"""The folders a cached value may name (the harness cache with the toy images, `--data-dir`),
written as tokens in what is stored and in keys: a value computed before a folder was moved is
restored naming the folder where it is now (docs/architecture.md, "The caches")."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Mapping

__all__ = ["Locations"]

#: Where a stored path may begin: at the start, after a JSON escape (`\n`, `\t`, `\r`), or after
#: a character that cannot be part of a path name (a space, a quote, a bracket). The folder's
#: characters inside another path or a URL ("/mnt/data/", "https://host/data/") are not it.
_PATH_START = rb"(?:(?<=\\[ntr])|(?<![\w.~/\x80-\xff-]))"


class Locations:
    """`folders`: a name ("data-dir") -> its absolute folder now (None: not given to this run).
    A path under one of them is stored as `<<name>>/` and the rest of the path; the deepest
    folder wins where one holds another."""

    def __init__(self, folders: Mapping[str, Path | str | None]) -> None:
        prefixes = [(name, os.path.join(os.path.abspath(folder), "")) for name, folder in folders.items() if folder]
        # "/" as a folder would stand for every absolute path: not one that can be moved.
        self._prefixes = sorted(((n, p) for n, p in prefixes if p != os.sep), key=lambda item: -len(item[1]))
        self._names = [name for name, _ in sorted(folders.items())]

    def _forms(self) -> list[tuple[str, str]]:
        """(token, text) pairs: the folder as plain text (and JSON written with ensure_ascii=False)
        and as JSON escapes it (ensure_ascii=True: a non-ASCII name)."""
        out = []
        for name, prefix in self._prefixes:
            plain, escaped = json.dumps(prefix, ensure_ascii=False)[1:-1], json.dumps(prefix)[1:-1]
            out.append((f"<<{name}>>/", plain))
            if escaped != plain:
                out.append((f"<<{name}:ascii>>/", escaped))
        return out

    def path(self, path: str) -> str:
        """`path` with the folder it lies in as a token (for a key); unchanged outside them."""
        for name, prefix in self._prefixes:
            if path.startswith(prefix):
                return f"<<{name}>>/" + path[len(prefix):]
        return path

    def store(self, blob: bytes) -> bytes:
        """What a stored file or text holds: each path that starts with a folder named with its
        token (`_PATH_START`: not the same characters inside another path)."""
        for token, text in self._forms():
            found = re.compile(_PATH_START + re.escape(text.encode("utf-8", "surrogateescape")))
            blob = found.sub(lambda _: token.encode(), blob)
        return blob

    def restore(self, blob: bytes) -> bytes | None:
        """The stored bytes with each token as its folder now; None when a token names a folder
        this run was not given (the output cannot be placed: the probe runs again)."""
        for token, text in self._forms():
            blob = blob.replace(token.encode(), text.encode("utf-8", "surrogateescape"))
        return None if any(_token_in(blob, name) for name in self._names) else blob


def _token_in(blob: bytes, name: str) -> bool:
    return f"<<{name}>>/".encode() in blob or f"<<{name}:ascii>>/".encode() in blob
