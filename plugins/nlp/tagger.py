"""The English averaged-perceptron POS tagger without a download.

The PyPI package `textblob-aptagger` ships trained weights (Penn Treebank tags) as a
Python 2 pickle of plain dicts and sets. They are read once with a restricted unpickler
that can build nothing but those containers, and rewritten as the JSON files NLTK's
`PerceptronTagger` loads (`taggers/averaged_perceptron_tagger_eng/`). A pickle is a
program, not data: an ordinary `pickle.load` of a tampered file runs whatever it names
(`os.system`, ...), so the full unpickler is never used on it."""

from __future__ import annotations

import builtins
import importlib.metadata
import importlib.util
import io
import json
import pickle
from pathlib import Path
from typing import Any, BinaryIO, ClassVar

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
from .perceptron import NOT_INSTALLED, TAGGER_DIR, TAGGER_FILES, check_folder, complete, fast_tagger

__all__ = [
    "NAME",
    "PIP_PACKAGE",
    "TAGGER_DIR",
    "TAGGER_FILES",
    "RestrictedUnpickler",
    "aptagger_pickle",
    "install_tagger",
    "load_aptagger_weights",
    "nltk_tagger",
    "pos_tag",
    "restricted_load",
    "tagger_status",
    "write_nltk_tagger",
]

NAME = "pos-tagger"
PIP_PACKAGE = "textblob-aptagger"


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that builds only plain containers (dict, list, tuple, set, frozenset).

    Every other global a pickle names — `os.system`, `builtins.eval`, any class — is
    refused before it is looked up, so loading cannot run code."""

    ALLOWED: ClassVar[dict[str, type]] = {
        name: getattr(builtins, name) for name in ("dict", "list", "tuple", "set", "frozenset")
    }

    def find_class(self, module: str, name: str) -> Any:
        """Return an allowed builtin container type; refuse everything else."""
        # Python 2 pickles (protocol <= 2) spell the builtins module `__builtin__`.
        if module in ("builtins", "__builtin__") and name in self.ALLOWED:
            return self.ALLOWED[name]
        raise pickle.UnpicklingError(
            f"refusing to load global {module}.{name}: only plain data is allowed"
        )

    def persistent_load(self, pid: Any) -> Any:
        """Persistent ids could smuggle objects in from outside; refuse them."""
        raise pickle.UnpicklingError("refusing a persistent id: only plain data is allowed")


def restricted_load(source: bytes | BinaryIO) -> Any:
    """Unpickle `source` (bytes or a binary file) with `RestrictedUnpickler`."""
    stream = io.BytesIO(source) if isinstance(source, (bytes, bytearray)) else source
    # Python 2 `str` objects decode as UTF-8 text (the weights are all ASCII).
    return RestrictedUnpickler(stream, encoding="utf-8").load()


def aptagger_pickle() -> Path | None:
    """The weights pickle shipped by `textblob-aptagger`, found without importing it."""
    try:
        spec = importlib.util.find_spec("textblob_aptagger")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("trontagger-*.pickle"))
        if found:
            return found[-1]
    return None


def _check_shape(
    obj: Any, path: Path
) -> tuple[dict[str, dict[str, float]], dict[str, str], set[str]]:
    """The (weights, tagdict, classes) triple, or ResourceError naming what is wrong."""

    def bad(what: str) -> ResourceError:
        return ResourceError(f"{path}: not averaged-perceptron weights ({what})")

    if not (isinstance(obj, tuple) and len(obj) == 3):
        raise bad("expected a (weights, tagdict, classes) tuple")
    weights, tagdict, classes = obj
    if not isinstance(weights, dict) or not all(
        isinstance(f, str) and isinstance(w, dict) for f, w in weights.items()
    ):
        raise bad("weights must map feature strings to dicts")
    if not all(
        isinstance(t, str) and isinstance(v, (int, float))
        for w in weights.values()
        for t, v in w.items()
    ):
        raise bad("a weight is not tag -> number")
    if not isinstance(tagdict, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in tagdict.items()
    ):
        raise bad("tagdict must map words to tags")
    if not isinstance(classes, (set, frozenset)) or not all(isinstance(c, str) for c in classes):
        raise bad("classes must be a set of tags")
    return weights, tagdict, set(classes)


def load_aptagger_weights(
    path: Path,
) -> tuple[dict[str, dict[str, float]], dict[str, str], set[str]]:
    """Read `textblob-aptagger`'s pickle safely; ResourceError if it is unsafe or malformed."""
    try:
        with open(path, "rb") as fh:
            obj = restricted_load(fh)
    except pickle.UnpicklingError as exc:
        raise ResourceError(f"{path}: {exc}") from None
    except (OSError, EOFError, ValueError, UnicodeDecodeError) as exc:
        raise ResourceError(f"{path}: unreadable tagger weights ({exc})") from None
    return _check_shape(obj, path)


def write_nltk_tagger(
    weights: dict[str, dict[str, float]], tagdict: dict[str, str], classes: set[str], root: Path
) -> Path:
    """Write the three JSON files NLTK's PerceptronTagger loads under `root`/TAGGER_DIR."""
    final = root / TAGGER_DIR
    # Written beside the final folder and renamed into place: never a half-written tagger.
    with atomic_folder(final) as partial:
        for name, value in zip(TAGGER_FILES, (weights, tagdict, sorted(classes))):
            with open(partial / name, "w", encoding="utf-8") as fh:
                json.dump(value, fh, separators=(",", ":"))
    return final


def _locate_folder(target: Path) -> Path | None:
    """The first NLTK data root with the three JSON files unzipped (what `pos_tag` reads)."""
    return first_root(target, lambda root: complete(root / TAGGER_DIR))


def _locate_zip(target: Path) -> Path | None:
    return first_root(target, lambda root: is_file(root / (TAGGER_DIR + ".zip")))


def _locate(target: Path) -> Path | None:
    """Where NLTK's own tagger reads the weights: a folder first, else NLTK's zip."""
    return _locate_folder(target) or _locate_zip(target)


def _aptagger_source() -> str:
    try:
        version = importlib.metadata.version(PIP_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    return f"{PIP_PACKAGE} {version} weights (converted to NLTK JSON with a restricted unpickler)"


def tagger_status(target: Path | str | None = None) -> ResourceStatus:
    """Whether the English perceptron tagger is available to NLTK, and where from."""
    target = resolve_target(target)
    root = _locate_folder(target)
    if root is not None:
        folder = root / TAGGER_DIR
        if root == target:
            source = (
                read_manifest(target)
                .get(NAME, {})
                .get("source", "found in the harness data folder")
            )
        else:
            source = f"existing NLTK data ({root})"
        problem = nltk_refusal(root, folder) or check_folder(folder)
        if problem and root != target:
            problem += f" (it comes first on NLTK's data path: repair or remove {folder})"
        return ResourceStatus(NAME, not problem, str(folder), source, problem)
    fix = (
        "run `harness resources install` (converts the textblob-aptagger weights)"
        if aptagger_pickle() is not None
        else f"pip install {PIP_PACKAGE}, then run `harness resources install`"
    )
    zipped = _locate_zip(target)
    if zipped is not None:
        fix = (f"only NLTK's {zipped / (TAGGER_DIR + '.zip')} is installed, which `pos_tag` cannot read: "
               f"unzip it in place, or {fix}")
    return ResourceStatus(NAME, False, str(target / TAGGER_DIR), "", fix)


def install_tagger(
    target: Path | str | None = None, *, allow_download: bool = False
) -> ResourceStatus:
    """Make the tagger available: existing NLTK data, then `nltk.download`, then textblob-aptagger.

    A copy of its own in `target` that does not load is rewritten; weights that cannot be
    converted (a tampered or malformed pickle) are a `present=False` status saying why."""
    target = make_target(target)
    found = tagger_status(target)
    if found.present:
        return found
    if _locate_folder(target) not in (None, target):
        return found  # a damaged copy elsewhere comes first: a copy here would not be read
    if (
        allow_download
        and try_nltk_download("averaged_perceptron_tagger_eng", target)
        and _locate_folder(target) == target
    ):
        make_private(target, target / TAGGER_DIR)
        # Only with --allow-download (try_nltk_download's restriction); this line records the source.
        record_source(target, NAME, "nltk.download('averaged_perceptron_tagger_eng')")
        return tagger_status(target)
    path = aptagger_pickle()
    if path is None:
        return found
    try:
        weights = load_aptagger_weights(path)
    except ResourceError as exc:
        return ResourceStatus(NAME, False, str(target / TAGGER_DIR), "", str(exc))
    write_nltk_tagger(*weights, root=target)
    make_private(target, target / TAGGER_DIR)  # NLTK's own tagger reads it only so (nltk_refusal)
    record_source(target, NAME, _aptagger_source())
    return tagger_status(target)


def _load(root: Path) -> Any:
    """NLTK's own PerceptronTagger on the installed weights (for code that wants NLTK's object)."""
    import nltk.data  # heavy: nltk takes about 1 s; only its own reader and tagger need it
    from nltk.tag.perceptron import PerceptronTagger  # heavy: nltk, imported where it is used

    try:
        pointer = nltk.data.find(TAGGER_DIR + "/", paths=[str(root)])
    except LookupError:
        pointer = nltk.data.find(
            TAGGER_DIR + ".zip/" + TAGGER_DIR.split("/")[-1] + "/", paths=[str(root)]
        )
    params = []
    for name in TAGGER_FILES:
        with pointer.join(name).open() as fh:
            params.append(json.load(fh))  # JSON: plain data, nothing to execute
    weights, tagdict, classes = params
    # Filled in directly rather than via load_from_json so NLTK < 3.9 (pickle-era) works too.
    tagger = PerceptronTagger(load=False)
    tagger.model.weights = weights
    tagger.tagdict = tagdict
    tagger.classes = tagger.model.classes = set(classes)
    return tagger


_TAGGERS = ResourceCache(_locate, _load, "POS tagger", NOT_INSTALLED, lambda root: nltk_refusal(
    root, root / TAGGER_DIR if complete(root / TAGGER_DIR) else root / (TAGGER_DIR + ".zip")))


def nltk_tagger(target: Path | str | None = None) -> Any:
    """NLTK's `PerceptronTagger` with the installed weights (imports nltk: about 3 s)."""
    return _TAGGERS.get(target)


def pos_tag(tokens: list[str], target: Path | str | None = None) -> list[tuple[str, str]]:
    """Penn Treebank tags for `tokens` with the installed perceptron tagger.

    The same tags as NLTK's tagger (vqa_harness_plugins.nlp.perceptron reimplements its `tag`),
    without importing nltk; the weights load from a marshal cache in well under a second."""
    if isinstance(tokens, str):
        raise TypeError("pos_tag expects a list of tokens, not a string")
    return fast_tagger(target).tag(list(tokens))
