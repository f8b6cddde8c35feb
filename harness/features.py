"""Resolve a feature-extractor spec (`NAME[:key=value,...]`, the plugins of
`register_features`) to an instance; feature-based models take them as options, e.g.
`mlp-iqa:image_features=toy-objects`. A bare `.npz` / `.npy` path means `precomputed:file=PATH`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import UsageError
from .host import get_host
from .specs import parse_spec

if TYPE_CHECKING:  # pragma: no cover
    from .api import FeatureExtractor
    from .host import PluginHost

__all__ = ["resolve_features", "FEATURE_FILE_SUFFIXES"]

FEATURE_FILE_SUFFIXES = (".npz", ".npy")


def resolve_features(spec: str, modality: str, *, owner: str, host: "PluginHost | None" = None) -> "FeatureExtractor":
    """The extractor `spec` names, checked to encode `modality` ("image" or "text")."""
    spec = spec.strip()
    if spec.endswith(FEATURE_FILE_SUFFIXES) and not spec.startswith("precomputed:"):
        name, options = "precomputed", {"file": spec}
    else:
        name, options = parse_spec(spec)
    host = host or get_host()
    try:
        entry = host.features.get(name)
    except UsageError as exc:
        raise UsageError(f"{owner}: {exc}") from None
    cls = entry.obj
    if cls.modality != modality:
        raise UsageError(f"{owner}: feature extractor {name!r} encodes {cls.modality}s, not {modality}s")
    return cls(**options)
