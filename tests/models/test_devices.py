"""Training on the run's device (no GPU here: the device is faked and recorded): the run's
device reaches `fit` through the deferred fit, CPU weight-cache keys are those of before
devices, a CUDA key differs, the CPU path moves nothing, and the moving path (run with the
CPU under another name) trains every model family to the CPU's bits."""

from __future__ import annotations

import pytest
import torch
from helpers_grid import multiple_choice, scenes, write_grids
from helpers_run import run_tiny, tiny

from harness.digest import digest
from harness.manifest import package_version
from vqa_harness_plugins.models import runtime
from vqa_harness_plugins.models.coattention import HieCoAttMC, HieCoAttModel
from vqa_harness_plugins.models.qonly import QOnlyModel
from vqa_harness_plugins.models.text import normalizer, train_digest
from vqa_harness_plugins.models.training import MODEL_VERSION


def test_the_runs_device_reaches_fit(tmp_path, fresh_cache, monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.run.plan

    seen: list[tuple[str, str]] = []
    fit_now = QOnlyModel._fit_now

    def spy(self, rows, seed, key):
        seen.append((self.train_device, key))
        self.device = "cpu"  # recorded; no GPU here, so the network is trained (and used) on the CPU
        return fit_now(self, rows, seed, key)

    monkeypatch.setattr(harness.run.plan, "resolve_device", lambda device: "cuda:1")
    monkeypatch.setattr(QOnlyModel, "_fit_now", spy)
    manifest = run_tiny(tmp_path)
    assert manifest["device"] == "cuda:1"
    # setup(device) came before the (deferred) fit, and the weights were keyed for CUDA.
    cuda, cpu, rows = QOnlyModel(epochs=2, hidden=8), QOnlyModel(epochs=2, hidden=8), tiny(30, "t")
    cuda.setup("cuda")
    assert seen == [("cuda:1", cuda.weights_key(rows, 0))] and seen[0][1] != cpu.weights_key(rows, 0)


def _old_key(model, train, seed) -> str:
    """The weight-cache key as computed before devices existed (CPU keys must not change)."""
    return digest({"model": model.name, "version": MODEL_VERSION, "config": model.fingerprint_config(),
                   "normalizer": normalizer()[0], "torch": package_version("torch").split("+")[0],
                   "train": train_digest(train, extra=model._example_extra), "seed": seed})


def test_cpu_keys_are_unchanged_and_a_cuda_key_differs(tmp_path) -> None:
    rows = tiny(20, "t")
    model = QOnlyModel(hidden=8)
    assert model.train_device == "cpu"
    cpu_key, cpu_fit = model.weights_key(rows, 0), model.fit_key("data", 0)
    assert cpu_key == _old_key(model, rows, 0) and "device" not in cpu_fit
    model.setup("cpu")
    assert model.weights_key(rows, 0) == cpu_key and model.fit_key("data", 0) == cpu_fit
    model.setup("cuda")
    assert model.train_device == "cuda"
    cuda_key, cuda_fit = model.weights_key(rows, 0), model.fit_key("data", 0)
    assert cuda_key != cpu_key and cuda_fit == {**cpu_fit, "device": "cuda"}
    model.setup("cuda:1")  # the device kind, not the index, can change the weights
    assert model.weights_key(rows, 0) == cuda_key
    # The grid models wrap the same key: CPU as before, CUDA apart.
    train, grids = scenes(6, seed=0, prefix="t")
    grid = write_grids(tmp_path / "g.npz", grids)
    for cls, data in ((HieCoAttModel, train), (HieCoAttMC, multiple_choice(train, 0))):
        grid_model = cls(grid=grid, text_features="hashed-bow:dim=8") if cls is HieCoAttMC else cls(grid=grid)
        cpu = grid_model.weights_key(data, 0)
        assert "device" not in grid_model.fit_key("data", 0)
        grid_model.setup("cuda")
        assert grid_model.weights_key(data, 0) != cpu and grid_model.fit_key("data", 0)["device"] == "cuda"


def test_the_cpu_path_moves_nothing() -> None:
    t = torch.ones(2)
    assert runtime.to_device([t], "cpu")[0] is t
    assert runtime.device_kind(None) == runtime.device_kind("cpu") == "cpu"
    assert runtime.device_kind("cuda:3") == "cuda"
    flags = torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark
    with runtime.training_device("cpu"):
        assert (torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark) == flags
    with runtime.training_device("cuda:0"):  # only flags: no GPU needed to set them
        assert torch.backends.cudnn.deterministic and not torch.backends.cudnn.benchmark
    assert (torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark) == flags
    state = torch.random.get_rng_state()
    with runtime.seeded(3, "cpu"):
        first = torch.rand(3)
    with runtime.seeded(3, "cpu"):
        assert torch.equal(torch.rand(3), first)
    assert torch.equal(torch.random.get_rng_state(), state)


def _fake_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """"cpu:0" counts as a device other than the CPU (kind "sim"): modules and tensors are
    moved to it as they would be to a GPU, but it is the CPU, so the bits must not change."""
    from vqa_harness_plugins.models import choice_training, training

    kind = runtime.device_kind
    fake = lambda device: "sim" if device == "cpu:0" else kind(device)  # noqa: E731
    for module in (runtime, training, choice_training):
        monkeypatch.setattr(module, "device_kind", fake)


@pytest.mark.parametrize("family", ["open", "choice", "explainer"])
def test_the_moving_path_trains_to_the_cpus_bits(family, tmp_path, fresh_cache, monkeypatch) -> None:
    from test_counterexample_explainer import _pairs

    from vqa_harness_plugins.models.counterexample import CounterExampleExplainer
    from vqa_harness_plugins.models.spatial_attention import SpatialAttentionMC

    tiny_sizes = {"hidden": 8, "epochs": 2, "batch_size": 8, "threads": 1}
    if family == "explainer":
        import numpy as np

        train, grids, points = _pairs(12, 0, "t")
        ids = sorted(points)
        np.savez(tmp_path / "nb.npz", ids=np.array(ids), features=np.stack([points[i] for i in ids]))
        cls, options = CounterExampleExplainer, {**tiny_sizes, "embed": 4, "k": 4,
                                                 "neighbour_features": str(tmp_path / "nb.npz")}
    else:
        train, grids = scenes(24, seed=0, prefix="t")
        if family == "choice":
            train = multiple_choice(train, 0)
            cls, options = SpatialAttentionMC, {**tiny_sizes, "mc_hidden": 8, "text_features": "hashed-bow:dim=16"}
        else:
            cls, options = HieCoAttModel, {**tiny_sizes, "embed": 4}
    options["grid"] = write_grids(tmp_path / "g.npz", grids)

    def trained(device: str) -> list:
        model = cls(**options)
        model.setup(device)
        model.fit(train, seed=0)
        assert model.last_fit_trained
        return model.score_choices(train[:6]) if family == "choice" else model.log_probs(train[:6]).tolist()

    cpu = trained("cpu")
    _fake_device(monkeypatch)
    assert trained("cpu:0") == cpu  # another cache key (kind "sim"): trained again, same bits


def test_seeded_leaves_the_callers_other_generators_as_they_were(monkeypatch: pytest.MonkeyPatch) -> None:
    """`torch.manual_seed` seeds every CUDA device (queued until CUDA starts when it has not),
    but `seeded` restores only the CPU's and its own device's: a block on the CPU (a network
    built there, MLP training) left the caller's GPU generators reseeded. (GPU faked here.)"""
    all_seeded: list[int] = []
    monkeypatch.setattr(torch.cuda, "manual_seed_all", all_seeded.append)
    with runtime.seeded(3, "cpu"):
        pass
    states = {0: 10, 1: 11}  # device -> its generator's state

    class Generator:
        def __init__(self, index: int) -> None:
            self.index = index

        def manual_seed(self, seed: int) -> None:
            states[self.index] = seed

    monkeypatch.setattr(torch.cuda, "default_generators", (Generator(0), Generator(1)))
    monkeypatch.setattr(torch.cuda, "get_rng_state", lambda device: states[device])
    monkeypatch.setattr(torch.cuda, "set_rng_state", lambda state, device: states.__setitem__(device, state))
    with runtime.seeded(3, "cuda:1"):
        inside = dict(states)
    assert all_seeded == []  # before: [3, 3]
    assert inside == {0: 10, 1: 3} and states == {0: 10, 1: 11}  # its device seeded, then restored
