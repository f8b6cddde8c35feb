"""HieCoAtt, MCB (open-ended) and Attention*, HieCoAtt* (multiple choice) on tiny grid data:
shapes, a seed fixes the model, the loss goes down, predictions do not depend on the batch
size; plus the MCB count sketch checked against its definition."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers_grid import COLORS, multiple_choice, scenes, write_grids

from harness.errors import DataError, UsageError
from harness.types import BLANK_IMAGE
from vqa_harness_plugins.models.coattention import HieCoAttMC, HieCoAttModel
from vqa_harness_plugins.models.mcb import (
    MCBModel,
    circular_convolution,
    compact_bilinear,
    count_sketch,
)
from vqa_harness_plugins.models.spatial_attention import SpatialAttentionMC

TINY = {"hidden": 16, "embed": 8, "batch_size": 32, "threads": 1, "lr": 0.02}
OPEN = {HieCoAttModel: {**TINY, "epochs": 12, "dropout": 0.0},
        MCBModel: {**TINY, "epochs": 12, "dropout": 0.0, "mcb_dim": 64, "attention_hidden": 8}}
CHOICE = {SpatialAttentionMC: {**{k: v for k, v in TINY.items() if k != "embed"}, "epochs": 20, "mc_hidden": 16,
                               "text_features": "hashed-bow:dim=32"},
          HieCoAttMC: {**TINY, "epochs": 20, "mc_hidden": 16, "text_features": "hashed-bow:dim=32"}}


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("grid")
    train, g1 = scenes(96, seed=0, prefix="t")
    val, g2 = scenes(24, seed=1, prefix="v")
    return {"train": train, "val": val, "grid": write_grids(root / "grids.npz", {**g1, **g2})}


def _mean_loss(model, examples) -> float:
    """Soft-target cross entropy of the trained open-ended model on `examples`."""
    logp = model.log_probs(examples)
    return float(-np.mean([logp[i, model.answers.get(ex.label)].item() for i, ex in enumerate(examples)]))


@pytest.mark.parametrize("cls", list(OPEN), ids=lambda c: c.name)
def test_open_ended_models_learn_are_seeded_and_batch_invariant(cls, data, fresh_cache) -> None:
    options = {**OPEN[cls], "grid": data["grid"]}
    untrained = cls(**{**options, "epochs": 1, "lr": 1e-6})
    untrained.fit(data["train"], seed=0)
    model = cls(**options)
    model.fit(data["train"], seed=0)
    assert not model.uses_images  # a feature file: no image files are read
    logp = model.log_probs(data["val"])
    assert logp.shape == (len(data["val"]), len(COLORS))
    assert _mean_loss(model, data["train"]) < 0.5 * _mean_loss(untrained, data["train"])
    answers = model.answer(data["val"])
    assert np.mean([a.text == ex.label for a, ex in zip(answers, data["val"])]) >= 0.75
    # Same seed, fresh cache: bit-identical; another seed: different weights.
    fresh_cache.rename(fresh_cache.with_name("old-cache"))
    again = cls(**options)
    again.fit(data["train"], seed=0)
    assert again.last_fit_trained and np.array_equal(again.log_probs(data["val"]).numpy(), logp.numpy())
    other = cls(**options)
    other.fit(data["train"], seed=1)
    assert not np.allclose(other.log_probs(data["val"]).numpy(), logp.numpy())
    # Batch size: a blank image and an unknown word in the mix.
    batch = data["val"][:9] + [data["val"][0].with_(image=BLANK_IMAGE), data["val"][1].with_(question="zzz?")]
    whole = model.log_probs(batch)
    for size in (1, 4):
        parts = np.concatenate([model.log_probs(batch[i: i + size]).numpy() for i in range(0, len(batch), size)])
        assert np.allclose(parts, whole.numpy(), atol=1e-6)


@pytest.mark.parametrize("cls", list(CHOICE), ids=lambda c: c.name)
def test_choice_models_learn_are_seeded_and_batch_invariant(cls, data, fresh_cache) -> None:
    train, val = multiple_choice(data["train"], 0), multiple_choice(data["val"], 1)
    options = {**CHOICE[cls], "grid": data["grid"]}
    model = cls(**options)
    assert model.capabilities() == {"score_choices", "fit"}
    model.fit(train, seed=0)
    history = model.loss_history
    assert len(history) == options["epochs"] and history[-1] < 0.6 * history[0]
    scores = model.score_choices(val)
    assert [len(s) for s in scores] == [4] * len(val)
    picked = [ex.choices[int(np.argmax(s))] for ex, s in zip(val, scores)]
    assert np.mean([p == ex.label for p, ex in zip(picked, val)]) >= 0.75
    fresh_cache.rename(fresh_cache.with_name("old-cache"))
    again = cls(**options)
    again.fit(train, seed=0)
    assert again.loss_history == history and again.score_choices(val) == scores
    # Batch size, a shorter candidate list and an example without choices.
    batch = val[:7] + [val[0].with_(choices=val[0].choices[:2]), val[1].with_(choices=())]
    whole = model.score_choices(batch)
    assert whole[-1] == [] and len(whole[-2]) == 2
    singles = [s for ex in batch for s in model.score_choices([ex])]
    assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(whole, singles))


def test_choice_model_needs_candidates(data, fresh_cache) -> None:
    with pytest.raises(DataError, match="no training example has `choices`"):
        SpatialAttentionMC(**CHOICE[SpatialAttentionMC], grid=data["grid"]).fit(data["train"], seed=0)


def test_the_cpu_circular_convolution_matches_torch_fft_with_its_gradients() -> None:
    """On the CPU the convolution runs through numpy's FFT (machine-independent bits); values
    and both gradients agree with torch.fft's and pass a finite-difference check."""
    import torch

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(3, 2, 16, dtype=torch.float64, generator=gen, requires_grad=True)
    y = torch.randn(3, 2, 16, dtype=torch.float64, generator=gen, requires_grad=True)
    z = circular_convolution(x, y)
    reference = torch.fft.irfft(torch.fft.rfft(x, dim=-1) * torch.fft.rfft(y, dim=-1), n=16, dim=-1)
    assert torch.allclose(z, reference, atol=1e-12)
    grad = torch.randn(3, 2, 16, dtype=torch.float64, generator=gen)
    gx, gy = torch.autograd.grad(z, (x, y), grad)
    rx, ry = torch.autograd.grad(reference, (x, y), grad)
    assert torch.allclose(gx, rx, atol=1e-12) and torch.allclose(gy, ry, atol=1e-12)
    assert torch.autograd.gradcheck(circular_convolution, (x, y))


_CONVOLVE = """
import hashlib, torch
from vqa_harness_plugins.models.mcb import circular_convolution
gen = torch.Generator().manual_seed(0)
x, y, g = (torch.randn(4, 1000, dtype=torch.float64, generator=gen, requires_grad=True) for _ in range(3))
z = circular_convolution(x, y)
z.backward(g.detach())
print(hashlib.sha256(z.detach().numpy().tobytes() + x.grad.numpy().tobytes() + y.grad.numpy().tobytes()).hexdigest())
"""


def test_the_cpu_circular_convolution_does_not_depend_on_numpy_s_simd_kernels() -> None:
    """numpy picks its complex-multiply kernel at run time (fused multiply-adds on AVX2 and
    AVX-512 CPUs); the convolution's products are real products and sums instead, so the bits
    are the same with every dispatched kernel turned off (NPY_DISABLE_CPU_FEATURES), as on a
    CPU that has none of them (docs/models.md, "Machine-independent numerics")."""
    import os
    import subprocess
    import sys

    try:  # numpy 2 (the locked 2.4.6); numpy 1.x keeps the same tables under numpy.core
        from numpy._core import _multiarray_umath as umath
    except ImportError:
        from numpy.core import _multiarray_umath as umath
    features = getattr(umath, "__cpu_features__", {})
    present = [f for f in getattr(umath, "__cpu_dispatch__", ()) if features.get(f)]
    if not present:
        pytest.skip("this numpy or CPU has no dispatch target above the baseline")
    digests = {}
    # all kernels on; the AVX-512 ones off (as on an AVX2-only CPU); every dispatched one off
    for disabled in ("", " ".join(f for f in present if "512" in f or f == "X86_V4"), " ".join(present)):
        env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": disabled}
        out = subprocess.run([sys.executable, "-c", _CONVOLVE], env=env, capture_output=True, text=True)
        assert out.returncode == 0, f"NPY_DISABLE_CPU_FEATURES={disabled!r}: {out.stderr[-2000:]}"
        digests[disabled] = out.stdout.strip()
    assert len(set(digests.values())) == 1, digests


def test_count_sketch_and_compact_bilinear_follow_the_definition() -> None:
    import torch

    x = torch.tensor([[1.0, 2.0, 3.0]])
    hashes, signs = torch.tensor([0, 2, 0]), torch.tensor([1.0, -1.0, -1.0])
    assert count_sketch(x, hashes, signs, 4).tolist() == [[1.0 - 3.0, 0.0, -2.0, 0.0]]
    # The FFT product is the circular convolution of the sketches; then signed sqrt, l2.
    a, b = torch.tensor([[1.0, 2.0, 0.0, -1.0]]), torch.tensor([[0.5, 0.0, 1.0, 0.0]])
    conv = [sum(a[0, i].item() * b[0, (t - i) % 4].item() for i in range(4)) for t in range(4)]
    expected = np.sign(conv) * np.sqrt(np.abs(conv))
    expected /= np.linalg.norm(expected)
    assert np.allclose(compact_bilinear(a, b).numpy()[0], expected, atol=1e-6)
    # Linear in x: psi(x + y) = psi(x) + psi(y).
    y = torch.tensor([[0.5, -1.0, 4.0]])
    assert torch.allclose(count_sketch(x + y, hashes, signs, 4),
                          count_sketch(x, hashes, signs, 4) + count_sketch(y, hashes, signs, 4))


def test_bad_grid_option_and_unknown_image(data, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="grid='nope'"):
        MCBModel(grid="nope")
    model = HieCoAttModel(**OPEN[HieCoAttModel], grid=data["grid"])
    with pytest.raises(DataError, match="unknown image id"):
        model.fit([data["train"][0].with_(image_id="missing")], seed=0)
