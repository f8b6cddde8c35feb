"""Where the harness keeps things (user cache: toy data, trained weights, predictions; NLP
resources), and sizes set by environment variables. A variable whose value cannot be used
is one UsageError line naming it."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Iterator

from .errors import UsageError
from .project import CACHE_ENV

__all__ = ["cache_dir", "check_cache_writable", "CACHE_TAG", "tag_cache_folder", "data_home", "HOME_ENV",
           "env_megabytes", "tqdm_disabled", "quiet_unless", "RESULTS", "DEFAULT_RUNS", "DEFAULT_LEADERBOARD"]

#: The one home of generated output under the working directory: run folders and the
#: leaderboard. It is never a package (see vqa_harness_cli.publish.check_output_folder).
RESULTS = Path("results")
DEFAULT_RUNS = RESULTS / "runs"
DEFAULT_LEADERBOARD = RESULTS / "leaderboard"


#: Marks a folder of the cache as the harness's own (the Cache Directory Tagging standard,
#: which backup tools honour): `harness cache clear` removes only folders that carry it.
CACHE_TAG = "CACHEDIR.TAG"
_TAG_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
             "# A cache folder of vqa-harness: `harness cache clear` may remove it.\n")


def cache_dir(*parts: str) -> Path:
    """`$VQA_HARNESS_CACHE` or `$XDG_CACHE_HOME/vqa-harness` (default ~/.cache/vqa-harness),
    absolute (a relative `$VQA_HARNESS_CACHE` is under the working directory); the first of
    `parts` names a kind, whose folder is tagged as the harness's (`CACHE_TAG`)."""
    path = _folder(CACHE_ENV, "XDG_CACHE_HOME", "~/.cache", parts)
    if parts:  # the kind's folder: `path` itself, or the ancestor the first part names
        tag_cache_folder(path.parents[len(parts) - 2] if len(parts) > 1 else path)
    return path


def check_cache_writable() -> None:
    """A UsageError line, before a run starts, when the cache (or its artifacts folder) exists
    but cannot be written (else each probe failed on its lock file, blamed on its plugin)."""
    for path in (cache_dir(), cache_dir("artifacts")):
        if not os.access(path, os.W_OK | os.X_OK):
            raise UsageError(f"{path} cannot be used as a folder (not writable); set {CACHE_ENV} to a "
                             f"writable folder (now {os.environ.get(CACHE_ENV) or 'unset'})")


def tag_cache_folder(folder: Path) -> None:
    """Mark the existing `folder` as a cache folder of the harness."""
    tag = folder / CACHE_TAG
    if not tag.exists():  # OSError: written by another process meanwhile, or a read-only cache
        with contextlib.suppress(OSError), open(tag, "x", encoding="utf-8") as fh:
            fh.write(_TAG_TEXT)


#: Where installed NLP resources go (else $XDG_DATA_HOME/vqa-harness).
HOME_ENV = "VQA_HARNESS_HOME"


def data_home(*parts: str, create: bool = True) -> Path:
    """`$VQA_HARNESS_HOME` or `$XDG_DATA_HOME/vqa-harness`: installed NLP resources.
    `create=False` for a look-up: a read-only home whose NLTK data lies elsewhere works."""
    return _folder(HOME_ENV, "XDG_DATA_HOME", "~/.local/share", parts, create)


def _folder(variable: str, xdg: str, default: str, parts: tuple[str, ...], create: bool = True) -> Path:
    root = os.environ.get(variable)
    if not root:
        base = os.environ.get(xdg, "")
        if not os.path.isabs(base):  # the XDG base directory spec: a relative path is ignored
            base = os.path.expanduser(default)
        if not os.path.isabs(base):  # "~" left as is: HOME unset and the user has no passwd entry
            raise UsageError(f"no home folder to keep the harness's files in (HOME is unset and user id "
                             f"{os.getuid()} has none); set {variable} to a writable folder")
        root = os.path.join(base, "vqa-harness")
    # A relative value is taken from the working directory here, so every path handed on is
    # absolute: the toy data's image paths (absolute) are made relative to their cache folder,
    # and stored outputs name cache files. Not resolved: `..` and links stay for the kernel.
    path = Path(root).expanduser().absolute().joinpath(*parts)  # "~": a .env or systemd file has no shell
    if not create:
        return path
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file in the way, no permission, a read-only mount
        reason = "a file is in the way" if isinstance(exc, (FileExistsError, NotADirectoryError)) else (
            exc.strerror or str(exc))
        raise UsageError(f"{path} cannot be used as a folder ({reason}); set {variable} to a "
                         f"writable folder (now {os.environ.get(variable) or 'unset'})") from None
    return path


def tqdm_disabled() -> bool:
    """Whether `$TQDM_DISABLE` turns progress bars off: "1", "true" or "yes", in any case, for
    the run's own bars and the models' training bars alike (docs/models.md)."""
    return os.environ.get("TQDM_DISABLE", "").strip().lower() in ("1", "true", "yes")


@contextlib.contextmanager
def quiet_unless(progress: bool) -> Iterator[None]:
    """Without `progress` (a program's `RunConfig(progress=False)`), TQDM_DISABLE=1 for the
    block: the models' own training bars and per-epoch lines honour it (docs/models.md), so
    a quiet run prints nothing. The variable is as it was after."""
    before = os.environ.get("TQDM_DISABLE")
    if progress or tqdm_disabled():  # as the models read it
        yield
        return
    os.environ["TQDM_DISABLE"] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TQDM_DISABLE", None)
        else:
            os.environ["TQDM_DISABLE"] = before


def env_megabytes(variable: str, default: int) -> int:
    """`$variable` (a whole number of megabytes; `default` when unset) in bytes."""
    text = os.environ.get(variable, "").strip()
    if not text:
        return default * 2**20
    if not (text.isascii() and text.isdigit()):  # "²" passes isdigit() and breaks int()
        raise UsageError(f"{variable}={text!r}: expected a whole number of megabytes (the default is {default})")
    return int(text) * 2**20
