"""The torch models' weight cache: one folder per key, `vocab.json` and `weights.pt`.

`<cache>/models/<model>/<key[:32]>/` holds the vocabularies (`vocab.json`) and the state
dict (`weights.pt`, read back with `weights_only=True`: no arbitrary unpickling). Each file
is written to a temporary name and moved into place, vocabulary first and weights last, so
an interrupted run never leaves an entry that looks complete. docs/models.md, "Weight cache".

Beside them, `meta.json` holds what is known of the network without loading it (its
parameter count), and `<cache>/models/<model>/fits/<fit id>.json` names the folder a fitted
state (`Model.fit_key`: config, code, training data's fingerprint, seed) was stored in, so a
re-run that restores every output, and so never fits, still knows the parameter count.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.fileio import atomic_path, atomic_write_text
from harness.paths import cache_dir

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["weights_dir", "looks_saved", "save_entry", "load_entry", "parameters_of", "write_meta", "read_count",
           "record_fit", "count_for_fit"]

VOCAB, WEIGHTS, META = "vocab.json", "weights.pt", "meta.json"


def weights_dir(model: str, key: str) -> Path:
    """Cache folder of `model`'s weights with this key (created)."""
    return cache_dir("models", model, key[:32])


def looks_saved(folder: Path) -> bool:
    """Both files of an entry, the weights a complete torch zip archive (checked without
    importing torch; a damaged entry is retrained)."""
    weights = folder / WEIGHTS
    return (folder / VOCAB).is_file() and weights.is_file() and zipfile.is_zipfile(weights)


def save_entry(folder: Path, vocab: dict[str, Any], net: "torch.nn.Module") -> None:
    """Write the vocabulary, then the weights (each atomically)."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    atomic_write_text(folder / VOCAB, json.dumps(vocab, ensure_ascii=False))
    with atomic_path(folder / WEIGHTS) as tmp:
        torch.save(net.state_dict(), tmp)


def load_entry(folder: Path) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(vocabulary, state dict on the CPU), or None when a file is missing or unreadable."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    weights, vocab_file = folder / WEIGHTS, folder / VOCAB
    if not (weights.is_file() and vocab_file.is_file()):
        return None
    try:
        vocab = json.loads(vocab_file.read_text(encoding="utf-8"))
        state = torch.load(weights, map_location="cpu", weights_only=True)
    except Exception:  # a truncated or stale entry: the caller trains again and overwrites it
        return None
    return vocab, state


def parameters_of(net: "torch.nn.Module") -> int:
    """Number of parameters (trainable or not; buffers such as MCB's sketches excluded)."""
    return int(sum(p.numel() for p in net.parameters()))


def write_meta(folder: Path, parameter_count: int) -> None:
    """Record the entry's parameter count (atomically; rewritten only when it differs)."""
    if read_count(folder) != parameter_count:
        text = json.dumps({"parameter_count": int(parameter_count)})
        atomic_write_text(folder / META, text)


def read_count(folder: Path) -> int | None:
    """The parameter count recorded for an entry, or None (none recorded, unreadable)."""
    try:
        count = json.loads((folder / META).read_text(encoding="utf-8")).get("parameter_count")
    except (OSError, ValueError, AttributeError):
        return None
    return count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else None


def _fit_file(model: str, fit_id: str) -> Path:
    return cache_dir("models", model, "fits") / f"{fit_id[:32]}.json"


def record_fit(model: str, fit_id: str, folder: Path) -> None:
    """Note that the fitted state `fit_id` is stored in `folder` (a weights folder)."""
    path = _fit_file(model, fit_id)
    text = json.dumps({"weights": folder.name})
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    atomic_write_text(path, text)


def count_for_fit(model: str, fit_id: str) -> int | None:
    """The parameter count of the fitted state `fit_id`, from the cache alone (no torch), or
    None when that state was never stored or its count was never recorded."""
    try:
        name = json.loads(_fit_file(model, fit_id).read_text(encoding="utf-8")).get("weights")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
        return None
    folder = cache_dir("models", model) / name
    return read_count(folder) if looks_saved(folder) else None
