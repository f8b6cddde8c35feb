"""The torch models' weight cache: one folder per key, `vocab.json` and `weights.pt`.

`<cache>/models/<model>/<key[:32]>/` holds the vocabularies (`vocab.json`) and the state
dict (`weights.pt`, read back with `weights_only=True`: no arbitrary unpickling). Each file
is written to a temporary name and moved into place, vocabulary first and weights last, so
an interrupted run never leaves an entry that looks complete. docs/models.md, "Weight cache".
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.paths import cache_dir

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["weights_dir", "looks_saved", "save_entry", "load_entry"]

VOCAB, WEIGHTS = "vocab.json", "weights.pt"


def weights_dir(model: str, key: str) -> Path:
    """Cache folder of `model`'s weights with this key (created)."""
    return cache_dir("models", model, key[:32])


def looks_saved(folder: Path) -> bool:
    """Both files of an entry, the weights a complete torch zip archive (checked without
    importing torch; a damaged entry is retrained)."""
    weights = folder / WEIGHTS
    return (folder / VOCAB).is_file() and weights.is_file() and zipfile.is_zipfile(weights)


def _write_atomic(path: Path, write: Any) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    write(tmp)
    os.replace(tmp, path)


def save_entry(folder: Path, vocab: dict[str, Any], net: "torch.nn.Module") -> None:
    """Write the vocabulary, then the weights (each atomically)."""
    import torch

    _write_atomic(folder / VOCAB, lambda p: p.write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8"))
    _write_atomic(folder / WEIGHTS, lambda p: torch.save(net.state_dict(), p))


def load_entry(folder: Path) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(vocabulary, state dict on the CPU), or None when a file is missing or unreadable."""
    import torch

    weights, vocab_file = folder / WEIGHTS, folder / VOCAB
    if not (weights.is_file() and vocab_file.is_file()):
        return None
    try:
        vocab = json.loads(vocab_file.read_text(encoding="utf-8"))
        state = torch.load(weights, map_location="cpu", weights_only=True)
    except Exception:  # a truncated or stale entry: the caller trains again and overwrites it
        return None
    return vocab, state
