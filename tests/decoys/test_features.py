"""Feature-extractor plugins: registry, resolution, built-ins, a third-party extractor in a run."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from harness.api import FeatureExtractor, Option, Suite, Task
from harness.errors import UsageError
from harness.features import resolve_features
from harness.hookspecs import hookimpl
from harness.testing import make_host, run_in_process
from harness.types import BLANK_IMAGE, Example

TOY = "toyvqa-mc:images=40"


class _MeanColorPlugin:
    """The docs/plugins.md example extractor, plus a small decoy suite to run it in."""

    calls = 0

    @hookimpl
    def register_features(self, register):
        plugin = self

        class MeanColor(FeatureExtractor):
            name = "mean-color"
            description = "mean RGB of the image"
            modality = "image"
            options = {"scale": Option(1.0, "multiplier")}

            def encode(self, items):
                from harness.images import load_image

                plugin.calls += 1
                rows = [np.zeros(3, np.float32) if ex.image == BLANK_IMAGE
                        else np.asarray(load_image(ex.image), np.float32).reshape(-1, 3).mean(0) / 255
                        for ex in items]
                return np.stack(rows) * self.config["scale"]

        register(MeanColor)

    @hookimpl
    def register_suites(self, register):
        register(Suite("decoys-tiny", "one toy decoy set", (
            Task(f"{TOY},decoys=iou+qou", "val", ("decoys",), train=(f"{TOY},decoys=iou+qou", "train"), label="iou+qou",
                 probe_options={"decoys": {"variants": "iou+qou"}}),
        )))


def test_builtin_extractors_are_registered_with_their_modality() -> None:
    host = make_host(builtins=True)
    kinds = {e.name: e.obj.modality for e in host.features}
    assert kinds == {"toy-objects": "image", "toy-pixels": "image", "precomputed": "image", "hf-vision": "image",
                     "hashed-bow": "text", "sentence": "text"}


def test_resolution_errors_are_one_line_and_name_the_owner(tmp_path: Path) -> None:
    host = make_host(builtins=True)
    with pytest.raises(UsageError, match="model 'm': unknown feature extractor 'toy-object'.*toy-objects"):
        resolve_features("toy-object", "image", owner="model 'm'", host=host)
    with pytest.raises(UsageError, match="'hashed-bow' encodes texts, not images"):
        resolve_features("hashed-bow", "image", owner="model 'm'", host=host)
    with pytest.raises(UsageError, match="does not accept option"):
        resolve_features("hashed-bow:width=3", "text", owner="model 'm'", host=host)
    ext = resolve_features(str(tmp_path / "f.npz"), "image", owner="model 'm'", host=host)
    assert ext.name == "precomputed" and ext.config["file"].endswith("f.npz")
    bow = resolve_features("hashed-bow:dim=64", "text", owner="m", host=host)
    vecs = bow.encode(["How many cats?", "", "how many cats"])
    assert vecs.shape == (3, 64) and not vecs[1].any()
    assert np.allclose(vecs[0], vecs[2]) and abs(float(np.linalg.norm(vecs[0])) - 1) < 1e-6


def test_third_party_extractor_feeds_an_mlp_through_a_run(tmp_path: Path) -> None:
    plugin = _MeanColorPlugin()
    host = make_host(plugin, builtins=True)
    out = run_in_process(host, model="mlp-ia:hidden=16,epochs=2,image_features=mean-color", suite="decoys-tiny",
                         tmp_path=tmp_path)
    assert out.exit_code == 0, out.probe_failures
    assert plugin.calls > 0
    assert any(r.metric == "mc_accuracy" for r in out.rows)
    # Another extractor (or options) gives another model fingerprint: no stale cache hits.
    from vqa_harness_plugins.models.mlp import MLPIA

    resolver = functools.partial(resolve_features, host=host)
    a = MLPIA(feature_resolver=resolver, image_features="mean-color")
    b = MLPIA(feature_resolver=resolver, image_features="mean-color:scale=2")
    assert a.fingerprint() != b.fingerprint()


def test_hf_vision_extractor_pools_a_local_vit(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from PIL import Image
    from transformers import ViTConfig, ViTImageProcessor, ViTModel

    folder = tmp_path / "vit"
    cfg = ViTConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=48, image_size=32,
                    patch_size=16)
    ViTModel(cfg).save_pretrained(folder)
    ViTImageProcessor(size={"height": 32, "width": 32}).save_pretrained(folder)
    paths = []
    for i, color in enumerate([(255, 0, 0), (0, 0, 255)]):
        paths.append(str(tmp_path / f"{i}.png"))
        Image.new("RGB", (40, 40), color).save(paths[-1])
    exs = [Example(id=str(i), question="?", image_id=str(i), image=p) for i, p in enumerate(paths)]
    exs.append(Example(id="b", question="?", image_id="b", image=BLANK_IMAGE))
    host = make_host(builtins=True)
    ext = resolve_features(f"hf-vision:path={folder},batch_size=1", "image", owner="m", host=host)
    vecs = ext.encode(exs)
    assert vecs.shape == (3, 32)
    assert np.allclose(np.linalg.norm(vecs[:2], axis=1), 1, atol=1e-5) and not vecs[2].any()
    assert not np.allclose(vecs[0], vecs[1])
    again = resolve_features(f"hf-vision:path={folder},batch_size=4", "image", owner="m", host=host).encode(exs[:2])
    assert np.allclose(again, vecs[:2], atol=1e-5)  # batch size does not change the vectors
    blank_only = resolve_features(f"hf-vision:path={folder}", "image", owner="m", host=host).encode(exs[2:])
    assert blank_only.shape == (1, 32) and not blank_only.any()
    with pytest.raises(UsageError, match="does not exist"):
        resolve_features(f"hf-vision:path={tmp_path / 'nope'}", "image", owner="m", host=host)


def test_sentence_extractor_uses_the_local_model() -> None:
    from harness.errors import ResourceError

    host = make_host(builtins=True)
    ext = resolve_features("sentence", "text", owner="m", host=host)
    try:
        vecs = ext.encode(["What color is the ball?", "What colour is the ball?", "How many cups?"])
    except ResourceError as exc:  # pragma: no cover - resources not installed
        pytest.skip(str(exc))
    assert vecs.shape[0] == 3 and np.allclose(np.linalg.norm(vecs, axis=1), 1, atol=1e-5)
    assert float(vecs[0] @ vecs[1]) > float(vecs[0] @ vecs[2])


def test_mlps_that_decode_images_ask_the_run_to_check_the_files() -> None:
    from vqa_harness_plugins.models.mlp import MLPA, MLPIA, MLPIQA, MLPQA

    assert not MLPA().uses_images and not MLPQA().uses_images
    assert MLPIA().uses_images and MLPIQA(image_features="toy-pixels").uses_images
    assert not MLPIA(image_features="feats.npz").uses_images
    assert not MLPIQA(image_features="precomputed:file=feats.npy").uses_images
