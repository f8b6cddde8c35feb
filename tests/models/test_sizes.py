"""The `sizes` option: `paper` and `toy` presets, explicit options win, the fingerprint (and
the weight-cache key) follows the resolved values, the defaults of every model family."""

from __future__ import annotations

import pytest
from helpers_grid import scenes, write_grids

from harness.errors import UsageError
from harness.host import PluginHost
from vqa_harness_plugins import baselines, decoys
from vqa_harness_plugins.models.coattention import HieCoAttModel
from vqa_harness_plugins.models.sizes import SizedModel, Sizes

#: Model -> (default preset, the paper values).
PAPER = {
    "cnn-lstm": ("toy", {"hidden": 1024, "embed": 200}),
    "counterexample-explainer": ("toy", {"hidden": 1024, "embed": 200, "k": 24}),
    "hiecoatt": ("toy", {"hidden": 512, "embed": 512, "lstm_layers": 2}),
    "hiecoatt-mc": ("toy", {"hidden": 512, "embed": 512, "lstm_layers": 2, "mc_hidden": 8192}),
    "mcb": ("toy", {"embed": 300, "hidden": 1024, "lstm_layers": 2, "mcb_dim": 16_000, "attention_hidden": 512,
                    "glimpses": 2}),
    "attention-mc": ("toy", {"mc_hidden": 8192}),
    **{name: ("paper", {"hidden": 8192}) for name in ("mlp-a", "mlp-qa", "mlp-ia", "mlp-iqa")},
}


def _models() -> dict[str, type]:
    host = PluginHost(load_entry_points=False, extra_plugins=[("baselines", baselines), ("decoys", decoys)])
    return {name: host.models[name] for name in host.models.names()}


def test_every_model_with_paper_sizes_has_the_switch_and_nothing_else_does() -> None:
    models = _models()
    sized = {name for name, cls in models.items() if issubclass(cls, SizedModel)}
    assert sized == set(PAPER)
    for name in ("prior", "qtype-prior", "qonly"):
        assert "sizes" not in models[name].options


@pytest.mark.parametrize("name", sorted(PAPER))
def test_presets_resolve_and_explicit_options_win(name: str) -> None:
    cls = _models()[name]
    default, paper = PAPER[name]
    presets: Sizes = cls.size_presets
    assert dict(presets.paper) == paper and presets.default == default
    assert cls.options["sizes"].default == default and not cls.options["sizes"].fingerprint
    # The options' defaults are the default preset's values, and their help names both.
    for key, value in presets.values(default).items():
        assert cls.options[key].default == value
        assert f"sizes=toy: {presets.toy[key]:,}, sizes=paper: {paper[key]:,}]" in cls.options[key].help
    plain = cls()
    assert {k: plain.config[k] for k in paper} == dict(presets.values(default))
    big, small = cls(sizes="paper"), cls(sizes="toy")
    assert {k: big.config[k] for k in paper} == paper
    assert {k: small.config[k] for k in paper} == dict(presets.toy)
    # Explicit values win over either preset; a bad preset is one usage error.
    key = sorted(paper)[0]
    assert cls(sizes="paper", **{key: 7}).config[key] == 7
    assert cls(sizes="toy", **{key: 7}).config[key] == 7
    with pytest.raises(UsageError, match="sizes='huge' must be one of toy, paper"):
        cls(sizes="huge")


@pytest.mark.parametrize("name", sorted(PAPER))
def test_the_fingerprint_follows_the_resolved_values(name: str) -> None:
    cls = _models()[name]
    _, paper = PAPER[name]
    assert "sizes" not in cls(sizes="paper").fingerprint_config()
    assert cls(sizes="paper").fingerprint_config() == cls(**paper).fingerprint_config()
    assert cls(sizes="paper").fingerprint_config() != cls(sizes="toy").fingerprint_config()
    # The default preset is the same model as no option at all.
    assert cls(sizes=cls.size_presets.default).fingerprint_config() == cls().fingerprint_config()


def test_paper_sizes_and_explicit_options_share_the_weight_cache(tmp_path) -> None:
    train, grids = scenes(8, seed=0, prefix="t")
    grid = write_grids(tmp_path / "grids.npz", grids)
    preset = HieCoAttModel(sizes="paper", grid=grid)
    explicit = HieCoAttModel(hidden=512, embed=512, lstm_layers=2, grid=grid)
    toy = HieCoAttModel(grid=grid)
    assert preset.weights_key(train, 0) == explicit.weights_key(train, 0) != toy.weights_key(train, 0)
    assert preset.fit_key("data", 0) == explicit.fit_key("data", 0)


def test_hiecoatt_lstm_layers_builds_a_deeper_lstm_and_keeps_the_one_layer_key(tmp_path, fresh_cache) -> None:
    # A one-layer LSTM is the network cached before the option existed: not in the fingerprint.
    assert "lstm_layers" not in HieCoAttModel().fingerprint_config()
    assert HieCoAttModel(lstm_layers=2).fingerprint_config()["lstm_layers"] == 2
    train, grids = scenes(16, seed=0, prefix="t")
    tiny = {"hidden": 8, "embed": 4, "epochs": 1, "batch_size": 8, "grid": write_grids(tmp_path / "g.npz", grids)}
    one, two = HieCoAttModel(**tiny), HieCoAttModel(**tiny, lstm_layers=2)
    for model in (one, two):
        model.fit(train, seed=0)
    assert one._ensure_net().body.lstm.num_layers == 1 and two._ensure_net().body.lstm.num_layers == 2
    assert two.log_probs(train[:3]).shape == one.log_probs(train[:3]).shape


def test_sizes_rejects_mismatched_tables() -> None:
    with pytest.raises(ValueError):
        Sizes(toy={"hidden": 1}, paper={"embed": 2}, source="x")
    with pytest.raises(ValueError):
        Sizes(toy={"hidden": 1}, paper={"hidden": 2}, source="x", default="huge")
