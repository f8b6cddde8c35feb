"""WordNet 3.0 for NLTK without a download: copy Debian's `wordnet-base` and
`wordnet-sense-index` files into an NLTK data folder (`corpora/wordnet/`) and write the
`lexnames` file Debian lacks, generated from its documentation, lexnames(5WN)."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any

from harness.errors import ResourceError
from harness.fileio import atomic_folder

from .base import (
    ResourceCache,
    ResourceStatus,
    first_root,
    is_file,
    make_private,
    make_target,
    nltk_refusal,
    read_manifest,
    record_source,
    resolve_target,
    try_nltk_download,
)
from .wordnet_build import check_folder

__all__ = [
    "DEBIAN_PACKAGES",
    "LEXNAMES",
    "NAME",
    "REQUIRED_FILES",
    "debian_dir",
    "header_version",
    "install_wordnet",
    "lexnames_text",
    "parse_lexnames_manpage",
    "wordnet",
    "wordnet_folder",
    "wordnet_status",
]

NAME = "wordnet"
DEBIAN_PACKAGES = ("wordnet-base", "wordnet-sense-index")
NOT_INSTALLED = "WordNet is not installed; run `harness resources install`"

#: The files NLTK's WordNetCorpusReader opens (its `_FILES`); all ship in the two packages.
REQUIRED_FILES = (
    "data.noun", "data.verb", "data.adj", "data.adv",
    "index.noun", "index.verb", "index.adj", "index.adv",
    "noun.exc", "verb.exc", "adj.exc", "adv.exc",
    "index.sense", "cntlist.rev",
)  # fmt: skip

#: WordNet 3.0's 45 lexicographer files, numbered from 00, transcribed from lexnames(5WN).
#: Used when the man page is not installed (slim images drop /usr/share/man); a test checks
#: that it equals the man page's table wherever that exists.
LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal",
    "noun.artifact", "noun.attribute", "noun.body", "noun.cognition",
    "noun.communication", "noun.event", "noun.feeling", "noun.food", "noun.group",
    "noun.location", "noun.motive", "noun.object", "noun.person", "noun.phenomenon",
    "noun.plant", "noun.possession", "noun.process", "noun.quantity", "noun.relation",
    "noun.shape", "noun.state", "noun.substance", "noun.time", "verb.body", "verb.change",
    "verb.cognition", "verb.communication", "verb.competition", "verb.consumption",
    "verb.contact", "verb.creation", "verb.emotion", "verb.motion", "verb.perception",
    "verb.possession", "verb.social", "verb.stative", "verb.weather", "adj.ppl",
)  # fmt: skip

#: The syntactic-category field of lexnames(5WN): 1 noun, 2 verb, 3 adjective, 4 adverb.
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
MANPAGE = Path("/usr/share/man/man5/lexnames.5WN.gz")
_TABLE_ROW = re.compile(r"^(\d\d)\t(\S+)\s*\t")
_VERSION = re.compile(r"Word[nN]et (\d+\+?|\d+\.\d+) Copyright")
DEBIAN_DIR = Path("/usr/share/wordnet")


def debian_dir() -> Path:
    """Where the WordNet database files are: $WNSEARCHDIR, $WNHOME/dict, or /usr/share/wordnet.

    The two variables are the ones WordNet itself documents (lexnames(5WN))."""
    if os.environ.get("WNSEARCHDIR"):
        return Path(os.environ["WNSEARCHDIR"])
    if os.environ.get("WNHOME"):
        return Path(os.environ["WNHOME"]) / "dict"
    return DEBIAN_DIR


def parse_lexnames_manpage(text: str) -> tuple[str, ...]:
    """The lexicographer file names, in file-number order, from the lexnames(5WN) troff source."""
    rows = [m.groups() for line in text.splitlines() if (m := _TABLE_ROW.match(line))]
    names = tuple(name for _, name in rows)
    numbers = [int(number) for number, _ in rows]
    if numbers != list(range(len(rows))) or len(rows) != 45:
        raise ValueError(f"lexnames table: expected files 00..44, found {len(rows)} rows")
    return names


def lexnames_text(manpage: Path | None = MANPAGE) -> tuple[str, str]:
    """The `lexnames` file content ("NN\\tname\\tcategory" lines) and where it came from."""
    names, origin = LEXNAMES, "a built-in copy of lexnames(5WN)"
    if manpage is not None and manpage.is_file():
        try:
            names = parse_lexnames_manpage(gzip.decompress(manpage.read_bytes()).decode("utf-8"))
            origin = "the lexnames(5WN) man page"
        except (OSError, ValueError, UnicodeDecodeError):
            pass  # a damaged man page: the transcription is the same table
    lines = [f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}" for i, name in enumerate(names)]
    return "\n".join(lines) + "\n", origin


def _complete(folder: Path) -> bool:
    return is_file(folder / "lexnames") and all(is_file(folder / f) for f in REQUIRED_FILES)


def _locate_folder(target: Path) -> Path | None:
    """The first NLTK data root holding every WordNet file in `corpora/wordnet/` (the form
    both NLTK's reader and the harness's prebuilt index read)."""
    return first_root(target, lambda root: _complete(root / "corpora" / "wordnet"))


def _locate_zip(target: Path) -> Path | None:
    """The first NLTK data root holding NLTK's `corpora/wordnet.zip` (NLTK's reader only)."""
    return first_root(target, lambda root: is_file(root / "corpora" / "wordnet.zip"))


def _locate(target: Path) -> Path | None:
    """Where NLTK's reader reads WordNet: a folder first, else NLTK's zip."""
    return _locate_folder(target) or _locate_zip(target)


def _package_versions() -> str:
    """'wordnet-base 1:3.0-37, wordnet-sense-index 1:3.0-37', or the names when dpkg is absent."""
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f=${Package} ${Version}\\n", *DEBIAN_PACKAGES],
            capture_output=True, text=True, timeout=10, check=False,
        ).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        out = ""
    found = [line.strip() for line in out.splitlines() if line.strip()]
    return ", ".join(found) if found else " + ".join(DEBIAN_PACKAGES)


def header_version(folder: Path) -> str:
    """The version in data.adj's licence header ("WordNet 3.0 Copyright ..."), as NLTK reads it."""
    try:
        with open(folder / "data.adj", encoding="utf-8", errors="replace") as fh:
            for _, line in zip(range(60), fh):
                if match := _VERSION.search(line):
                    return match.group(1)
    except OSError:
        pass
    return "?"


def _status_at(root: Path, target: Path) -> ResourceStatus:
    folder = root / "corpora" / "wordnet"
    if root == target:
        source = (
            read_manifest(target).get(NAME, {}).get("source", "found in the harness data folder")
        )
    else:
        source = f"existing NLTK data ({root})"
    # "" when NLTK's reader may open the files and they parse (the prebuilt index is read or built)
    problem = nltk_refusal(root, folder) or check_folder(folder)
    if problem and root != target:
        problem += f" (it comes first on NLTK's data path: repair or remove {folder})"
    return ResourceStatus(NAME, not problem, str(folder), source, problem)


def wordnet_status(target: Path | str | None = None) -> ResourceStatus:
    """Whether WordNet 3.0 is available (to NLTK and to the prebuilt index), and where from;
    a copy whose files do not parse is not present (`detail` names the file)."""
    target = resolve_target(target)
    root = _locate_folder(target)
    if root is not None:
        return _status_at(root, target)
    src = debian_dir()
    fix = (
        f"run `harness resources install` (copies Debian's WordNet from {src})"
        if all((src / f).is_file() for f in REQUIRED_FILES)
        else f"apt-get install {' '.join(DEBIAN_PACKAGES)} (or set WNSEARCHDIR), "
        "then run `harness resources install`"
    )
    zipped = _locate_zip(target)
    if zipped is not None:
        fix = (f"only NLTK's {zipped / 'corpora' / 'wordnet.zip'} is installed, which the prebuilt index "
               f"cannot read: unzip it in place, or {fix}")
    return ResourceStatus(NAME, False, str(target / "corpora" / "wordnet"), "", fix)


def _copy_debian(src: Path, target: Path) -> str:
    """Build `corpora/wordnet` in `target` from `src`; return the source description."""
    corpora = target / "corpora"
    corpora.mkdir(parents=True, exist_ok=True)
    # Built beside the final folder and renamed into place, so an interrupted install
    # never leaves a half-copied WordNet that looks installed.
    with atomic_folder(corpora / "wordnet") as partial:  # an incomplete earlier copy of ours is replaced
        for item in sorted(src.iterdir()):
            if item.is_file():
                # Copies, not links: NLTK's sandbox refuses files that resolve outside its
                # data roots or that belong to another account.
                shutil.copyfile(item, partial / item.name)
        lexnames, origin = lexnames_text()
        (partial / "lexnames").write_text(lexnames, encoding="utf-8")
        copyright_file = Path("/usr/share/doc/wordnet-base/copyright")
        if src == DEBIAN_DIR and copyright_file.is_file():
            shutil.copyfile(copyright_file, partial / "LICENSE")
    final = corpora / "wordnet"
    where = f"debian {_package_versions()}" if src == DEBIAN_DIR else str(src)
    return f"{where} (WordNet {header_version(final)}; lexnames from {origin})"


def install_wordnet(
    target: Path | str | None = None, *, allow_download: bool = False
) -> ResourceStatus:
    """Make WordNet 3.0 available: existing NLTK data, then `nltk.download`, then Debian's files."""
    target = make_target(target)
    found = wordnet_status(target)
    if found.present:
        return found
    if _locate_folder(target) not in (None, target):
        return found  # a damaged copy elsewhere comes first: a copy here would not be read
    if allow_download and try_nltk_download("wordnet", target) and _locate_folder(target) == target:
        make_private(target, target / "corpora" / "wordnet")
        # Only with --allow-download (try_nltk_download's restriction); this line records the source.
        record_source(target, NAME, "nltk.download('wordnet')")
        return wordnet_status(target)
    src = debian_dir()
    missing = [f for f in REQUIRED_FILES if not (src / f).is_file()]
    if missing:
        damaged = f"{found.detail}; no copy to replace it: " if _locate_folder(target) == target else ""
        return ResourceStatus(
            NAME, False, str(target / "corpora" / "wordnet"), "",
            f"{damaged}{src} lacks {', '.join(missing[:3])}: apt-get install {' '.join(DEBIAN_PACKAGES)} "
            "(or set WNSEARCHDIR to a WordNet 3.0 dict folder)",
        )  # fmt: skip
    source = _copy_debian(src, target)
    make_private(target, target / "corpora" / "wordnet")  # NLTK reads it only so (nltk_refusal)
    record_source(target, NAME, source)
    return wordnet_status(target)


def _open_reader(root: Path) -> Any:
    import nltk.data  # heavy: nltk takes about 1 s; only its own reader and tagger need it
    from nltk.corpus.reader.wordnet import WordNetCorpusReader  # heavy: imported on use

    try:
        pointer = nltk.data.find("corpora/wordnet", paths=[str(root)])
    except LookupError:
        pointer = nltk.data.find("corpora/wordnet.zip/wordnet/", paths=[str(root)])
    with warnings.catch_warnings():
        # English only: the multilingual (OMW) warning is noise here.
        warnings.filterwarnings("ignore", message="The multilingual functions")
        return WordNetCorpusReader(pointer, None)


def wordnet_folder(target: Path | str | None = None) -> Path:
    """The installed `corpora/wordnet` folder (no nltk import), or ResourceError."""
    root = _locate_folder(resolve_target(target))
    if root is not None:
        return root / "corpora" / "wordnet"
    if _locate_zip(resolve_target(target)) is not None:
        raise ResourceError("WordNet is installed only as NLTK's wordnet.zip; unzip it in place "
                            "(corpora/wordnet/) for the prebuilt index")
    raise ResourceError(NOT_INSTALLED)


def _refusal(root: Path) -> str:
    folder = root / "corpora" / "wordnet"
    return nltk_refusal(root, folder if _complete(folder) else root / "corpora" / "wordnet.zip")


_READERS = ResourceCache(_locate, _open_reader, "WordNet", NOT_INSTALLED, _refusal)


def wordnet(target: Path | str | None = None) -> Any:
    """NLTK's WordNet 3.0 corpus reader (cached), or ResourceError when it is not installed."""
    return _READERS.get(target)
