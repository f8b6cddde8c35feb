"""`hf-vision`: image features from a local Hugging Face vision model (ViT, CLIP vision, ResNet ...).

`path` is a `save_pretrained` folder or a hub id already in the local cache (offline rules
of the HF models, docs/hf-models.md). The vector is the model's `pooler_output`
(`image_embeds` for CLIP-style models) when it has one, else the mean of
`last_hidden_state` over tokens (or over H x W for convolutional maps); l2-normalized. A
blanked image gives the zero vector. Images are encoded once per path, in batches.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Sequence

import numpy as np
from PIL import Image

from harness.api import FeatureExtractor, Option
from harness.errors import ResourceError
from harness.images import load_image
from harness.types import BLANK_IMAGE, Example
from vqa_harness_plugins.models.hf.base import _first_line
from vqa_harness_plugins.models.hf.loading import resolve_source, weights_digest

from .toy import l2

__all__ = ["HFVisionFeatures"]


class HFVisionFeatures(FeatureExtractor):
    name = "hf-vision"
    description = "pooled features of a local Hugging Face vision model (path=folder or cached hub id)"
    modality: ClassVar[str] = "image"
    options: ClassVar[Mapping[str, Option]] = {
        "path": Option("", "a save_pretrained folder or a hub id in the local cache"),
        "revision": Option("", "hub revision"),
        "download": Option(False, "fetch a hub id that is not in the local cache (off: never download)",
                           fingerprint=False),
        "batch_size": Option(32, "images per forward pass", min=1, max=65_536),
        "device": Option("cpu", "cpu, cuda or cuda:N"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)

        self.source = resolve_source(f"feature extractor {self.name!r}", self.config["path"], self.config["revision"],
                                     download=bool(self.config["download"]))
        self._memo: dict[str, np.ndarray] = {}
        self._net: Any = None
        self._processor: Any = None

    def fingerprint_extra(self) -> Any:
        return weights_digest(self.source)

    def _load(self) -> None:
        if self._net is not None:
            return
        from transformers import (  # heavy: imported on use
            AutoImageProcessor,
            AutoModel,
        )  # heavy: transformers takes seconds; only the Hugging Face models need it

        folder = str(self.source.folder)
        try:
            self._processor = AutoImageProcessor.from_pretrained(folder)
            self._net = AutoModel.from_pretrained(folder).eval().to(self.config["device"])
        except Exception as exc:
            raise ResourceError(f"feature extractor 'hf-vision': could not load {folder}: {_first_line(exc)}") from None

    def _vectors(self, images: Sequence[Any]) -> np.ndarray:
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        self._load()
        pixels = self._processor(images=list(images), return_tensors="pt")
        pixels = {k: v.to(self.config["device"]) for k, v in pixels.items()}
        with torch.inference_mode():
            if hasattr(self._net, "get_image_features"):
                vec = self._net.get_image_features(**pixels)
                vec = getattr(vec, "pooler_output", vec)
            else:
                out = self._net(**pixels)
                vec = getattr(out, "pooler_output", None)
                if vec is None:
                    hidden = out.last_hidden_state
                    vec = hidden.mean(dim=(2, 3)) if hidden.dim() == 4 else hidden.mean(dim=1)
        return vec.reshape(len(images), -1).float().cpu().numpy()

    def encode(self, items: Sequence[Example]) -> np.ndarray:
        todo = list(dict.fromkeys(ex.image for ex in items if ex.image != BLANK_IMAGE and ex.image not in self._memo))
        bs = max(1, int(self.config["batch_size"]))
        for i in range(0, len(todo), bs):
            chunk = todo[i : i + bs]
            for path, vec in zip(chunk, self._vectors([load_image(p).convert("RGB") for p in chunk])):
                self._memo[path] = l2(vec.astype(np.float32))
        if self._memo:
            width = next(iter(self._memo.values())).shape[0]
        else:  # only blanked images so far: one forward pass tells the width
            width = self._vectors([Image.new("RGB", (64, 64), (128, 128, 128))]).shape[1]
        zero = np.zeros(width, np.float32)
        return np.stack([zero if ex.image == BLANK_IMAGE else self._memo[ex.image] for ex in items])
