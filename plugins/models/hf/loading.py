"""Finding and loading Hugging Face models offline-first, and fingerprinting their weights.

A `path` option is either a local folder (a `save_pretrained` output) or a hub id. A hub id
is looked up in the local Hugging Face cache only: nothing is downloaded unless the user
opts in with the model option `download=true` (off by default; the README promises no
download at run time). A model that is not cached is a one-line UsageError saying how to
opt in or point at a local folder. `trust_remote_code` is passed to transformers only when
the user set it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.digest import digest_bytes
from harness.errors import ResourceError, UsageError
from harness.options import Option

__all__ = [
    "ModelSource",
    "resolve_source",
    "weights_digest",
    "torch_dtype",
    "precision",
    "DTYPES",
    "DOWNLOAD_OPTION",
    "read_config",
]

#: Accepted `dtype` option values; "auto" = float32 on CPU, the checkpoint's dtype on CUDA.
DTYPES = ("auto", "float32", "bfloat16", "float16")


@dataclass(frozen=True)
class ModelSource:
    """Where the weights are: a local folder, and the hub id/revision it came from (if any)."""

    folder: Path
    hub_id: str = ""
    revision: str = ""


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes") or os.environ.get(
        "TRANSFORMERS_OFFLINE", ""
    ).lower() in ("1", "true", "yes")


def resolve_source(owner: str, path: str, revision: str = "", *, download: bool = False) -> ModelSource:
    """A local folder for `path`: a folder, or a hub id found in the HF cache (or, only when
    `download` is True, fetched into it), whose config.json is a JSON object (UsageError
    naming the file otherwise)."""
    source = _resolve(owner, path, revision, download=download)
    config = source.folder / "config.json"
    try:
        parsed = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # JSONDecodeError, UnicodeDecodeError
        raise UsageError(f"{owner}: {config} is not valid JSON ({exc})") from None
    if not isinstance(parsed, dict):
        raise UsageError(f"{owner}: {config} is not a JSON object (a model config; got {type(parsed).__name__})")
    return source


def _resolve(owner: str, path: str, revision: str, *, download: bool) -> ModelSource:
    if not path:
        raise UsageError(f"{owner}: option path=... is required (a local model folder or a hub id)")
    local = Path(path).expanduser()
    if local.is_dir():
        if not (local / "config.json").is_file():
            raise UsageError(f"{owner}: {local} has no config.json (expected a save_pretrained folder)")
        return ModelSource(local.resolve())
    if local.exists() or path.startswith((".", "/", "~")) or path.count("/") > 1:
        raise UsageError(f"{owner}: model folder {path} does not exist")
    from huggingface_hub import snapshot_download  # heavy: optional, Hugging Face models only

    try:
        folder = snapshot_download(path, revision=revision or None, local_files_only=True)
        return ModelSource(Path(folder), hub_id=path, revision=Path(folder).name)
    except Exception:  # not in the cache (LocalEntryNotFoundError and friends)
        pass
    hf_home = os.environ.get("HF_HOME", "~/.cache/huggingface")
    if not download:
        raise UsageError(
            f"{owner}: model {path!r} is not in the local Hugging Face cache ({hf_home}) and nothing is "
            f"downloaded unless you opt in: add download=true to the model's options (path={path},download=true), "
            f"or pass path=/local/folder (a save_pretrained output)"
        )
    if _offline():
        raise UsageError(
            f"{owner}: download=true, but the hub is switched off (HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE); "
            f"unset it, or download once with `huggingface-cli download {path}` on a connected machine, "
            f"or pass path=/local/folder (a save_pretrained output)"
        )
    try:
        folder = snapshot_download(path, revision=revision or None)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ResourceError(
            f"{owner}: could not fetch model {path!r} from the hub ({first}); pass path=/local/folder "
            f"(a save_pretrained output) or pre-populate the cache ({hf_home})"
        ) from None
    return ModelSource(Path(folder), hub_id=path, revision=Path(folder).name)


#: The `download` option of every Hugging Face plugin: off, so nothing is fetched by surprise.
#: It cannot change outputs (the weights are identified by their files), so it stays out of
#: fingerprints.
DOWNLOAD_OPTION = Option(False, "fetch a hub id that is not in the local Hugging Face cache (off: never "
                                "download; the error says how to opt in)", fingerprint=False)


def weights_digest(source: ModelSource) -> dict[str, Any]:
    """Identity of the weights for the model fingerprint, cheap to compute for large models.

    The config and processor files are hashed; weight files contribute name, size and
    modification time (hashing gigabytes on every run would cost more than the run). A hub
    snapshot is identified by its commit too.
    """
    small: list[bytes] = []
    files = []
    for item in sorted(source.folder.iterdir()):
        if not item.is_file():
            continue
        stat = item.stat()
        if item.suffix in (".json", ".txt", ".jinja", ".model") and stat.st_size < 8_000_000:
            small.append(item.name.encode() + b"\0" + item.read_bytes())
        else:
            files.append([item.name, stat.st_size, stat.st_mtime_ns])
    return {"hub_id": source.hub_id, "revision": source.revision, "configs": digest_bytes(b"".join(small), length=24), "weights": files}


def torch_dtype(name: str, device: str) -> Any:
    """The torch dtype to load weights in; "auto" keeps float32 on CPU (bf16 is slow there)."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    if name == "auto":
        return torch.float32 if not device.startswith("cuda") else "auto"
    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


def precision(device: str, dtype: str, autocast: bool) -> str:
    """A label of the numeric regime (goes into the fingerprint: bf16 and fp32 outputs differ)."""
    use_autocast = autocast and device.startswith("cuda")
    return f"{device.split(':')[0]}/{dtype}" + ("/bf16-autocast" if use_autocast else "")


def read_config(folder: Path) -> dict[str, Any]:
    """The model's config.json as a dict (resolve_source checked that it is one)."""
    return json.loads((folder / "config.json").read_text(encoding="utf-8"))
