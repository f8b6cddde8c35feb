"""Which copy of an NLP resource a result was computed with, for cache keys and the manifest.

NLTK data the user already has (`$NLTK_DATA`, `~/nltk_data`, ...) is preferred over the copy
`harness resources install` made (docs/resources.md), so the WordNet or tagger a probe reads
can change with an environment variable or a folder appearing in the home directory. A key
that named only the generator would then restore perturbations or decoys computed with the
other copy. `wordnet_identity()` and `tagger_identity()` give the copy that would be read now
as a digest of the bytes of the files the readers read (names and contents, not the folder's
path): two byte-identical copies in different places are one identity, and an edited,
re-installed or other copy is another.

The digest is read once per copy: it is cached in `<cache>/resources/` under a name keyed by
the files' (name, size, modification time) (`indexfiles.cache_name`, as the prebuilt indexes
are) and in this process by those stamps, so after the first use an identity costs a `stat` of
each file (`benchmarks/resource_identity.py`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from harness.digest import digest, digest_bytes
from harness.errors import ResourceError
from harness.paths import cache_dir

from .base import first_root, folder_stamps, is_file, resolve_target
from .indexfiles import cache_name, marshal_file, older_versions
from .perceptron import TAGGER_FILES, tagger_folder
from .wordnet_build import SOURCE_FILES
from .wordnet_corpus import header_version, wordnet_folder

__all__ = ["describe", "tagger_identity", "wordnet_identity"]

#: Bump when what the digest covers changes.
IDENTITY_VERSION = 1
_FIX = "run `harness resources install`"
_MEMO: dict[tuple[Any, ...], tuple[str, str]] = {}


def _content(folder: Path, names: Sequence[str]) -> str:
    """sha256 of each file's name and the sha256 of its bytes, in `names` order."""
    parts = []
    for name in names:
        try:
            parts.append([name, digest_bytes((folder / name).read_bytes())])
        except OSError as exc:
            raise ResourceError(f"{folder / name}: cannot read ({exc.strerror or exc}); {_FIX}") from None
    return digest(parts, 64)


def _identity(stem: str, folder: Path, names: Sequence[str], version: bool) -> tuple[str, str]:
    """(version read from the files or "", content digest) of `names` in `folder`, cached by their stamps."""
    stamps = folder_stamps(folder, names, _FIX)
    memo = (stem, str(folder), tuple(map(tuple, stamps)))
    found = _MEMO.get(memo)
    if found is None:
        path = cache_dir("resources") / cache_name(stem, str(folder.resolve()),
                                                   {"version": IDENTITY_VERSION, "files": stamps})
        data = marshal_file(path, lambda: (header_version(folder) if version else "", _content(folder, names)),
                            valid=lambda d: isinstance(d, tuple) and len(d) == 2, older=older_versions(path.name))
        found = _MEMO[memo] = (str(data[0]), str(data[1]))
    return found


def wordnet_identity(target: Path | str | None = None) -> dict[str, Any]:
    """{"version", "sha256"} of the WordNet that `wordnet_index()` and `wordnet()` read now (the
    `corpora/wordnet` files the index is built from; NLTK's `wordnet.zip` when only that is
    installed), or {"missing": why} (the reader then raises the same ResourceError)."""
    try:
        version, sha = _identity("wordnet-identity", wordnet_folder(target), SOURCE_FILES, True)
        return {"version": version, "sha256": sha}
    except ResourceError as exc:
        root = first_root(resolve_target(target), lambda r: is_file(r / "corpora" / "wordnet.zip"))
        if root is None:
            return {"missing": str(exc)}
        try:
            _, sha = _identity("wordnet-zip-identity", root / "corpora", ("wordnet.zip",), False)
        except ResourceError as zip_exc:
            return {"missing": str(zip_exc)}
        return {"version": "?", "sha256": sha, "zip": True}


def tagger_identity(target: Path | str | None = None) -> dict[str, Any]:
    """{"sha256"} of the tagger's three JSON files that `pos_tag` reads now, or {"missing": why}."""
    try:
        return {"sha256": _identity("pos-tagger-identity", tagger_folder(target), TAGGER_FILES, False)[1]}
    except ResourceError as exc:
        return {"missing": str(exc)}


def describe(identity: dict[str, Any]) -> str:
    """'sha256 0123456789abcdef' (16 hex digits), or 'not installed' for a missing one."""
    return f"sha256 {identity['sha256'][:16]}" if "sha256" in identity else "not installed"
